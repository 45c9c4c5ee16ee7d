def authenticate(request):
    request["user"] = "alice"
    return request


def log_request(request):
    request.setdefault("log", []).append("seen")
    return request


def gzip(request):
    return request


def compose(*middlewares):
    def handler(request):
        for middleware in middlewares:
            request = middleware(request)
        return request

    return handler


def endpoint(request):
    return {"status": 200, "request": request}
