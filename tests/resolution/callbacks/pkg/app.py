import threading

from pkg.events import EventBus
from pkg.handlers import audit, by_name, on_created, on_deleted, worker

bus = EventBus()
bus.register("created", on_created)

ROUTES = {"deleted": on_deleted}
PIPELINE = [audit, on_created]


def sorted_users(users):
    return sorted(users, key=by_name)


def pick_handler(event):
    if event == "audit":
        return audit
    fallback = on_deleted
    return fallback


def subscribe(event, handler=audit):
    bus.register(event, handler)


def start_worker(queue):
    thread = threading.Thread(target=worker, args=(queue,), daemon=True)
    thread.start()
    return thread


def log_event(payload):
    return payload


def replay(payloads):
    handle = log_event
    return [handle(payload) for payload in payloads]
