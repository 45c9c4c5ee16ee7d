import pytest

from pkg.db import Database, OtherConfig
from pkg.testing import CliRunner


@pytest.fixture
def runner():
    return CliRunner()


@pytest.fixture
def db():
    database = Database()
    yield database
    database.close()


@pytest.fixture
def config():
    return OtherConfig()


@pytest.fixture
def seeded(db):
    db.insert({"id": 1})
    return db
