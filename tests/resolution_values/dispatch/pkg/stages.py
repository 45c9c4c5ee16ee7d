from pkg.base import Pipeline


class Fast(Pipeline):
    def step(self):
        return "fast"

    def go(self):
        return self.step()


class Faster(Fast):
    def step(self):
        return "faster"


class Slow(Pipeline):
    def step(self):
        return super().step()

    def finish(self):
        return "slow finish"
