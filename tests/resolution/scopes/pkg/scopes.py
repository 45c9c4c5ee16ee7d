"""Name lookup: local, enclosing, global, then builtin scope."""
from pkg.util import log


def validate(record):
    return record is not None


def transform(record):
    return {"value": record}


def filter(records):
    """Shadows the builtin on purpose: module globals win over builtins."""
    return [record for record in records if validate(record)]


def pipeline(records):
    def clean(record):
        return record if record != "" else None

    def step(record):
        record = clean(record)
        return transform(record)

    results = [step(record) for record in filter(records)]
    log(len(results))
    return results


def run_plugins(records, plugins):
    transform = plugins["transform"]
    return [transform(record) for record in records]


def format_cell(value):
    return str(value)


class Table:
    def format_cell(self, value):
        return f"[{value}]"

    def render(self, row):
        # Class-body names are not visible here: this is the module-level function.
        return " | ".join(format_cell(value) for value in row)
