from pkg.repositories import Cache, UserRepository
from pkg.services import AuditLog, UserService


class UserController:
    cache: Cache

    def __init__(self, repo: UserRepository, cache):
        self.service = UserService()
        self.repo = repo
        self.cache = cache

    def register(self, name):
        self.audit = AuditLog()
        self.audit.record("register")
        return self.service.create(name)

    def load(self, user_id):
        self.audit.record("load")
        return self.repo.get(user_id)

    def lookup(self, key):
        return self.cache.get(key)

    def trace(self, event):
        return self.tracer.record(event)


def attach_tracer(controller: UserController):
    # Set from outside the class: not a type the resolver may rely on.
    controller.tracer = AuditLog()
