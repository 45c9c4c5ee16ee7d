import signal


def shutdown(signum, frame):
    return ("shutdown", signum)


def reload_config(signum, frame):
    return ("reload", signum)


def dump_stats(signum, frame):
    return ("stats", signum)


HANDLERS = {
    signal.SIGTERM: shutdown,
    signal.SIGHUP: reload_config,
}


def install():
    for signum, handler in HANDLERS.items():
        signal.signal(signum, handler)
    signal.signal(signal.SIGUSR1, dump_stats)


def simulate(signum):
    handler = HANDLERS.get(signum)
    if handler is not None:
        handler(signum, None)
