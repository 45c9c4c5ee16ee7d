from pkg.actions import (
    archive,
    create,
    delete,
    export_csv,
    export_json,
    first,
    nested_x,
    nested_y,
    nested_z,
    on_start,
    on_stop,
    op_a,
    op_b,
    passed_a,
    passed_b,
    rest_a,
    rest_b,
    rest_c,
    second,
    step_a,
    step_b,
    step_c,
    unused_hook,
)

TABLE = {"create": create, "delete": delete}
TABLE["archive"] = archive

EXPORTERS = {}
EXPORTERS.update({"csv": export_csv})
EXPORTERS.setdefault("json", export_json)

HOOKS = [on_start]
HOOKS.append(on_stop)
UNUSED = [unused_hook]

PIPELINE = (step_a, step_b)
STEPS = {step_c}


def dispatch_literal(item):
    return TABLE["create"](item)


def dispatch_get(item):
    handler = TABLE.get("archive")
    return handler(item)


def dispatch(kind, item):
    return TABLE[kind](item)


def export(kind, rows):
    return EXPORTERS[kind](rows)


def fire():
    for hook in HOOKS:
        hook()


def run_pipeline(x):
    for step in PIPELINE:
        x = step(x)
    for extra in STEPS:
        extra(x)
    return x


def unpack(x):
    a, b = first, second
    return b(x)


def starred(x):
    head, *others = rest_a, rest_b, rest_c
    for fn in others:
        fn(x)
    return head


def nested(x):
    p, (q, r) = nested_x, (nested_y, nested_z)
    return r(x)


def local_table(x):
    ops = {"a": op_a, "b": op_b}
    return ops["b"](x)


def apply_all(fns, x):
    for fn in fns:
        fn(x)


def pass_on(x):
    apply_all([passed_a, passed_b], x)
