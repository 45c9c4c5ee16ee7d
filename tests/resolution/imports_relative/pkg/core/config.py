"""Where settings live and how they are read."""


def default_path():
    return "settings.toml"


def load_settings(path):
    return {"path": path, "debug": False}
