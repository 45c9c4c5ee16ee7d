def alpha(payload):
    return ("alpha", payload)


def beta(payload):
    return ("beta", payload)


def finish(payload):
    return ("finish", payload)


def default_format(payload):
    return str(payload)


def loud_format(payload):
    return str(payload).upper()


def notify(payload):
    return ("notify", payload)


def on_ok(payload):
    return ("ok", payload)


def on_fail(payload):
    return ("fail", payload)


def first_step(payload):
    return payload


def second_step(payload):
    return payload


def never_called(payload):
    return payload
