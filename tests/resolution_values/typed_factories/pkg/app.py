from pkg.lib import Command, anything, group


@group()
def cli():
    return "top"


@cli.command()
def sync():
    return "synced"


@anything(3)
def unknown_result():
    return None


def run():
    cli.add("x")
    sync.main()
    unknown_result.main()
    return Command
