from dataclasses import dataclass, field

from pkg.runners import RetryPolicy, ShellRunner


@dataclass
class Job:
    name: str
    command: str
    runner: ShellRunner
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    tags: list[str] = field(default_factory=list)

    def execute(self) -> int:
        attempt = 0
        while True:
            code = self.runner.run(self.command)
            if code == 0 or not self.retry.should_retry(attempt):
                return code
            attempt += 1


def run_job(job: Job) -> int:
    return job.runner.run(job.command)


def nightly() -> int:
    job = Job("backup", "pg_dump app > /backups/app.sql", ShellRunner())
    return job.execute()
