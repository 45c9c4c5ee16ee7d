"""API-level configuration; unrelated to pkg.core.config despite the names."""


def default_path():
    return "api.toml"


def load_settings(path):
    return {"api": path}
