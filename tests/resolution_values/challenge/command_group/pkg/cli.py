class Group:
    def __init__(self, name):
        self.name = name
        self.commands = {}

    def command(self, name=None):
        def decorator(func):
            self.commands[name or func.__name__] = func
            return func

        return decorator

    def invoke(self, argv):
        command = self.commands[argv[0]]
        return command(argv[1:])


def group(name):
    return Group(name)
