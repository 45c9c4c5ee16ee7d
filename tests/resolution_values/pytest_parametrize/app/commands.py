class Command:
    def __init__(self, name="cmd"):
        self.name = name

    def main(self):
        return self.name


class Group(Command):
    def invoke(self):
        return self.main()
