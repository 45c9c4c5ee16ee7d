class Pipeline:
    def run(self):
        self.step()
        return self.finish()

    def step(self):
        return "base step"

    def finish(self):
        return "base finish"


class Unrelated:
    def step(self):
        return "unrelated"
