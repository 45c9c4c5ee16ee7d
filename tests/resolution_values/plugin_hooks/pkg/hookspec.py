import pluggy

hookspec = pluggy.HookspecMarker("pytest")


@hookspec
def pytest_runtest_setup(item):
    """Called before a test runs."""
