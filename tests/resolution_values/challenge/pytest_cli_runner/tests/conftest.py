import pytest

from pkg.testing import CliRunner


@pytest.fixture
def runner():
    return CliRunner()
