PLUGINS: dict[str, type] = {}


def register(name: str):
    def add(cls):
        PLUGINS[name] = cls
        return cls

    return add


def plugin(cls):
    PLUGINS[cls.__name__.lower()] = cls
    return cls


def create(name: str):
    return PLUGINS[name]()
