def start(config):
    return ("started", config)


def stop():
    return "stopped"
