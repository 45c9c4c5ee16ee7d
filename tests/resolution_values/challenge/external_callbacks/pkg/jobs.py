import atexit
import threading
from concurrent.futures import ThreadPoolExecutor


def cleanup():
    return "cleaned"


def crunch(n):
    return n * n


def heartbeat():
    return "beat"


def background(fn, *args):
    thread = threading.Thread(target=fn, args=args, daemon=True)
    thread.start()
    return thread


def run_now(fn, *args):
    return fn(*args)


def main(numbers):
    atexit.register(cleanup)
    background(heartbeat)
    with ThreadPoolExecutor() as pool:
        futures = [pool.submit(crunch, n) for n in numbers]
    results = list(map(crunch, numbers))
    return futures, results, run_now(crunch, 3)
