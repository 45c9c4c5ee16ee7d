def pretty(obj) -> str:
    return str(obj).strip()


def load(text: str) -> list[str]:
    return [line for line in text.splitlines() if line]
