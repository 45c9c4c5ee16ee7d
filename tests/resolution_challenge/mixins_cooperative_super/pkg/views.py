from pkg.base import Handler
from pkg.mixins import AuthMixin, LoggingMixin


class AdminView(LoggingMixin, AuthMixin, Handler):
    """MRO: AdminView, LoggingMixin, AuthMixin, Handler, object."""

    def __init__(self, **options):
        super().__init__(role="admin", **options)

    def handle(self, request: dict) -> dict:
        response = super().handle(request)
        response["view"] = "admin"
        return response


def serve(request: dict) -> dict:
    view = AdminView(debug=True)
    return view.handle(request)
