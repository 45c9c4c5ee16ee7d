from acme.core import engine
from acme.core.engine import stop


def test_start():
    assert engine.start({})


def test_stop():
    assert stop() == "stopped"
