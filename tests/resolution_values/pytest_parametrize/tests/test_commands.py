import pytest

from app.commands import Command, Group


@pytest.mark.parametrize("cmd", [Command("a"), pytest.param(Command("b"), id="b")])
def test_main(cmd):
    assert cmd.main()


@pytest.mark.parametrize(("group", "expected"), [(Group("x"), "x"), (Group("y"), "y")])
def test_invoke(group, expected):
    assert group.invoke() == expected


@pytest.mark.parametrize("thing", [Command(), Group()])
def test_mixed(thing):
    thing.invoke()
