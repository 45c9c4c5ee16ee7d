PLUGINS = {}


def plugin(name):
    def register(cls):
        PLUGINS[name] = cls
        return cls

    return register


def get_plugin(name):
    return PLUGINS[name]()


def available():
    return sorted(PLUGINS)
