"""Spreadsheet export."""


def render(rows):
    return "\n".join(",".join(map(str, row)) for row in rows)
