import sys

from pkg.cli import group

cli = group("tool")


@cli.command("init")
def init(args):
    return ("init", args)


@cli.command()
def sync(args):
    return ("sync", args)


def helper(args):
    return args


def main():
    return cli.invoke(sys.argv[1:])
