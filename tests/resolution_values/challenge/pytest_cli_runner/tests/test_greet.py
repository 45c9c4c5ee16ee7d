from pkg.commands import greet


def test_greet(runner):
    result = runner.invoke(greet, ["bob"])
    assert result.exit_code == 0


def test_direct():
    assert greet.main(["ann"])
