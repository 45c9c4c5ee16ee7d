from pkg.instrumentation import audited, timed
from pkg.registry import plugin, register


@register("csv")
class CsvExporter:
    def __init__(self):
        self.audit_log: list[str] = []

    @timed
    def export(self, rows: list[dict]) -> str:
        return "\n".join(self.format_row(row) for row in rows)

    def format_row(self, row: dict) -> str:
        return ",".join(str(value) for value in row.values())

    @audited("purge")
    @timed
    def purge(self) -> None:
        self.audit_log.clear()


@plugin
class JsonExporter(CsvExporter):
    @timed
    def export(self, rows: list[dict]) -> str:
        return "[" + ",".join(self.format_row(row) for row in rows) + "]"


def export_all(rows: list[dict]) -> list[str]:
    csv_exporter = CsvExporter()
    json_exporter = JsonExporter()
    csv_exporter.purge()
    return [csv_exporter.export(rows), json_exporter.export(rows)]
