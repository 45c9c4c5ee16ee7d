from pkg.ids import CacheBackend, SessionKey, UserId
from pkg.stores import DefaultStore

store = DefaultStore()


def session_key(user_id: UserId) -> SessionKey:
    return SessionKey(f"session:{user_id}")


def remember(user_id: int, token: str) -> None:
    store.set(session_key(UserId(user_id)), token)


def recall(user_id: int):
    return store.get(session_key(UserId(user_id)))


def local_cache() -> CacheBackend:
    cache = CacheBackend()
    cache.set("warm", True)
    return cache
