import pytest

from pkg.cli import cli, other
from pkg.db import Config


@pytest.fixture
def config():
    return Config()


def test_invoke(runner):
    result = runner.invoke(cli, ["x"])
    assert result.output


def test_db(seeded, config):
    assert seeded.query("select 1")
    assert config.get("k") == "k"


def helper(runner):
    return runner.invoke(other)


class TestGroup:
    def test_method(self, runner):
        assert runner.invoke(cli)
