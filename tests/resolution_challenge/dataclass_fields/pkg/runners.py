import subprocess


class ShellRunner:
    def run(self, command: str) -> int:
        return subprocess.call(command, shell=True)


class DockerRunner:
    def __init__(self, image: str):
        self.image = image

    def run(self, command: str) -> int:
        return subprocess.call(["docker", "run", self.image, "sh", "-c", command])


class RetryPolicy:
    max_attempts = 3

    def should_retry(self, attempt: int) -> bool:
        return attempt + 1 < self.max_attempts
