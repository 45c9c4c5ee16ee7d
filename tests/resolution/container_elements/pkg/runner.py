from typing import Sequence

from pkg.tasks import Task


def run_first(tasks: list[Task]):
    return tasks[0].run()


def run_all(tasks: Sequence[Task]):
    return [task.run() for task in tasks]


def run_named(tasks_by_name: dict[str, Task], name):
    return tasks_by_name[name].run()


def run_untyped(jobs):
    for job in jobs:
        job.run()


class Pipeline:
    stages: list[Task]

    def __init__(self, stages):
        self.stages = stages

    def execute(self):
        for stage in self.stages:
            stage.run()
