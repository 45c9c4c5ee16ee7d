from . import config
from .config import default_path


def load():
    return config.load_settings(default_path())
