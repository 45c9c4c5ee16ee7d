"""Local disk storage."""


def save(path, data):
    return {"path": path, "size": len(data)}
