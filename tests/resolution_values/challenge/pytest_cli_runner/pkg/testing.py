class Result:
    def __init__(self, exit_code, output):
        self.exit_code = exit_code
        self.output = output


class CliRunner:
    def invoke(self, cli, args):
        output = cli.main(args)
        return Result(0, output)
