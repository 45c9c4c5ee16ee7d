from pkg.deco import make_option, parametrize, register, retry, trace


@trace
def load(x):
    return x


@register
def save(x):
    return x


@retry(3)
def fetch(x):
    return load(x)


@parametrize("opt", [make_option("a")])
def check(opt):
    return opt


class Api:
    @trace
    def get(self):
        return 1

    def use(self):
        return self.get()


def main():
    load(1)
    save(2)
    return fetch(3)
