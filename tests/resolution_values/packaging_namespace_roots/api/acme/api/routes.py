from acme.engine.run import start, status


def post_job(job):
    start(job)
    return status(job)
