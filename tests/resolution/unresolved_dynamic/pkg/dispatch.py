import requests

from pkg.jobs import CleanupJob, ExportJob

HANDLERS = {"export": ExportJob, "cleanup": CleanupJob}


def run_job(kind):
    job = HANDLERS[kind]()
    return job.run()


def run_method(job, name):
    return getattr(job, name)()


def run_untyped(job):
    return job.run()


def fetch_status(url):
    response = requests.get(url, timeout=5)
    return response.json()
