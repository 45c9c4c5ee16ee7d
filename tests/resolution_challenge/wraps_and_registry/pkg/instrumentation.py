import functools
import time

TIMINGS: dict[str, float] = {}


def record_timing(name: str, seconds: float) -> None:
    TIMINGS[name] = TIMINGS.get(name, 0.0) + seconds


def timed(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        started = time.perf_counter()
        try:
            return func(*args, **kwargs)
        finally:
            record_timing(func.__qualname__, time.perf_counter() - started)

    return wrapper


def audited(action: str):
    def decorate(func):
        @functools.wraps(func)
        def wrapper(self, *args, **kwargs):
            self.audit_log.append(action)
            return func(self, *args, **kwargs)

        return wrapper

    return decorate
