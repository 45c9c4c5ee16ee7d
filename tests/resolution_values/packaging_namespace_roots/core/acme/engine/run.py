def start(job):
    return ("start", job)


def status(job):
    return ("status", job)
