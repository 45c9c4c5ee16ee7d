class Handler:
    def __init__(self, **options):
        self.options = options

    def handle(self, request: dict) -> dict:
        return {"status": 200, "body": request.get("body")}
