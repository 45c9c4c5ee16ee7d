def retry(times):
    def decorate(func):
        def wrapper(*args, **kwargs):
            for _ in range(times - 1):
                try:
                    return func(*args, **kwargs)
                except ConnectionError:
                    pass
            return func(*args, **kwargs)

        return wrapper

    return decorate
