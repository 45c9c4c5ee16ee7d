from pkg.middleware import authenticate, compose, endpoint, log_request

app = compose(authenticate, log_request, endpoint)


def serve(request):
    return app(request)
