from pkg.formatting import show
from pkg.handlers import (
    alpha,
    beta,
    finish,
    first_step,
    loud_format,
    never_called,
    notify,
    on_fail,
    on_ok,
    second_step,
)
from pkg.models import Model
from pkg.runner import build, choose, keep, outer, pair, run, run_kw


class Job:
    def on_done(self, result):
        return result

    def on_error(self, error):
        return error

    def start(self):
        return run(self.on_done, "job")


def main():
    run(alpha, 1)
    run(beta, 2)
    run_kw(3, on_done=finish)
    show(4)
    show(5, fmt=loud_format)
    outer(notify)
    pair(first_step, second_step)
    choose(fail=on_fail, ok=on_ok)
    keep(never_called)
    return build(Model, "m")
