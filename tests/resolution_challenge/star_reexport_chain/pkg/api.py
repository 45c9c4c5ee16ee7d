from pkg.core import *
from pkg.textutil import load, pretty


def export_report(rows: list[dict]) -> str:
    configure(indent=4)
    return pretty(dumps(rows))


def import_report(text: str) -> list[str]:
    return load(text)


def write_report(rows: list[dict], stream) -> None:
    dump(rows, stream)
    serializer = JsonSerializer()
    stream.write(serializer.serialize(rows))
