import functools
import time

TIMINGS = []


def record(name, seconds):
    TIMINGS.append((name, seconds))


def timed(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return func(*args, **kwargs)
        finally:
            record(func.__name__, time.perf_counter() - start)

    return wrapper
