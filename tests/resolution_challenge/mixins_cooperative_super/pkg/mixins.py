"""Cooperative mixins: they have no bases of their own and rely on super() reaching the next
class of the concrete view's MRO."""


class LoggingMixin:
    def __init__(self, **options):
        self.log: list[str] = []
        super().__init__(**options)

    def handle(self, request: dict) -> dict:
        self.log.append(f"-> {request.get('path')}")
        response = super().handle(request)
        self.log.append(f"<- {response['status']}")
        return response


class AuthMixin:
    def __init__(self, **options):
        self.required_role = options.pop("role", "user")
        super().__init__(**options)

    def handle(self, request: dict) -> dict:
        if self.required_role not in request.get("roles", ()):
            return self.forbidden()
        return super().handle(request)

    def forbidden(self) -> dict:
        return {"status": 403, "body": None}
