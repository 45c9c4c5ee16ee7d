def cli(args):
    return ("cli", args)


def other(args):
    return ("other", args)
