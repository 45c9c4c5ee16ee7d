from typing import NewType

from pkg.stores import MemoryStore

UserId = NewType("UserId", int)
SessionKey = NewType("SessionKey", str)
CacheBackend = MemoryStore
