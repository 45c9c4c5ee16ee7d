from click.testing import CliRunner

from pkg.cli import cli
from pkg.tasks import rebuild


def test_sync():
    result = CliRunner().invoke(cli, ["sync"])
    assert result.exit_code == 0


def test_rebuild_inline():
    assert rebuild.apply(args=("x",)).get() == "x"
