class Task:
    def run(self):
        return "task done"


class CronJob:
    def run(self):
        return "cron done"
