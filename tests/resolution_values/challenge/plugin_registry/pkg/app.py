import pkg.exporters  # noqa: F401  (registers the plugins)
from pkg.registry import get_plugin


def export(kind, rows):
    exporter = get_plugin(kind)
    return exporter.export(rows)
