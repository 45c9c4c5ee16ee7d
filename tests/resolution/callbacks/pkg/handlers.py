def on_created(payload):
    return ("created", payload)


def on_deleted(payload):
    return ("deleted", payload)


def audit(payload):
    return ("audit", payload)


def by_name(user):
    return user["name"]


def worker(queue):
    return len(queue)
