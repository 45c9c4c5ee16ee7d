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


def load_env(ctx, param, value):
    return value


def default_level():
    return 1


env_option = click.Option(["--env"], callback=load_env, default=default_level())


def make_group():
    return click.Group("tool", params=[env_option])
