from pkg.events import Emitter

emitter = Emitter()


def on_login(user):
    return ("login", user)


def on_logout(user):
    return ("logout", user)


def on_unused(user):
    return user


class Metrics:
    def count(self, user):
        return user

    def reset(self):
        return 0


metrics = Metrics()
emitter.on("login", on_login)
emitter.on("logout", on_logout)
emitter.on("login", metrics.count)


def login(user):
    emitter.emit("login", user)
