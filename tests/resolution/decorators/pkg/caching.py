def cached(func):
    results = {}

    def wrapper(key):
        if key not in results:
            results[key] = func(key)
        return results[key]

    return wrapper
