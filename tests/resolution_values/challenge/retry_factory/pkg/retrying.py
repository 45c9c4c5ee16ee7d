import functools
import time


def backoff(attempt, base):
    return base * 2**attempt


def retry(times=3, base=0.1, exceptions=(Exception,)):
    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            for attempt in range(times):
                try:
                    return fn(*args, **kwargs)
                except exceptions:
                    time.sleep(backoff(attempt, base))
            return fn(*args, **kwargs)

        return wrapper

    return decorator
