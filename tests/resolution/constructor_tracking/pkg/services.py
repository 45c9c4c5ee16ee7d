class UserService:
    def create(self, name):
        return {"name": name}


class AuditLog:
    def __init__(self):
        self.events = []

    def record(self, event):
        self.events = [*self.events, event]
