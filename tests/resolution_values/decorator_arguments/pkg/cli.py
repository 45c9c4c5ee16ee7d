import click


class CertType(click.ParamType):
    name = "cert"

    def convert(self, value, param, ctx):
        return value


def check_key(ctx, param, value):
    return value


def unrelated():
    return 1


@click.command()
@click.option("--cert", type=CertType(), callback=check_key)
@click.option("--level", default=1)
def run(cert, level):
    return cert
