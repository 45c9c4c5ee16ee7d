from pkg.registry import plugin


@plugin("csv")
class CsvExporter:
    def export(self, rows):
        return "\n".join(",".join(r) for r in rows)


@plugin("json")
class JsonExporter:
    def __init__(self):
        self.indent = 2

    def export(self, rows):
        return str(rows)


class DraftExporter:
    def export(self, rows):
        return ""
