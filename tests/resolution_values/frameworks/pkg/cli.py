import click
from click import group

from pkg.tasks import rebuild


@group()
def cli():
    """The tool."""


@cli.command()
@click.option("--force", is_flag=True)
def sync(force):
    fetch(force)


@cli.group()
def remote():
    """Remotes."""


@remote.command("add")
def remote_add():
    fetch(True)


@click.command()
def standalone():
    rebuild.delay("all")


cli.add_command(standalone)


def fetch(force):
    return force


def main():
    cli.main(prog_name="tool")


def not_a_command():
    return fetch(False)
