class Result:
    def __init__(self, output):
        self.output = output


class CliRunner:
    def invoke(self, command, args=()):
        return Result(command(args))
