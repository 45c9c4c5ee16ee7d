from pkg.client import default_endpoint


def env_flag(name):
    return name in ("DEBUG", "VERBOSE")


def configure():
    return env_flag("VERBOSE")


class Settings:
    debug = env_flag("DEBUG")
    endpoint = default_endpoint()
