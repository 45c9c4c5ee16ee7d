from ..core import config
from ..core.loader import load
from .serializers import envelope


def settings_view():
    settings = load()
    return envelope(settings)


def path_view():
    return envelope({"path": config.default_path()})
