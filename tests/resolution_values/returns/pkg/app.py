from pkg.factories import make_closure, make_greeter, make_method, make_nested, make_unused, pick


def direct():
    return make_greeter()("a")


def via_variable():
    h = make_closure("p")
    return h("b")


def nested():
    return make_nested()()()


def method():
    return make_method()(1)


def unused():
    f = make_unused()
    return f


def either(flag):
    return pick(flag)("c")
