def create(item):
    return ("create", item)


def delete(item):
    return ("delete", item)


def archive(item):
    return ("archive", item)


def export_csv(rows):
    return ",".join(rows)


def export_json(rows):
    return str(rows)


def on_start():
    return "start"


def on_stop():
    return "stop"


def unused_hook():
    return "unused"


def step_a(x):
    return x


def step_b(x):
    return x


def step_c(x):
    return x


def first(x):
    return x


def second(x):
    return x


def rest_a(x):
    return x


def rest_b(x):
    return x


def rest_c(x):
    return x


def nested_x(x):
    return x


def nested_y(x):
    return x


def nested_z(x):
    return x


def op_a(x):
    return x


def op_b(x):
    return x


def passed_a(x):
    return x


def passed_b(x):
    return x
