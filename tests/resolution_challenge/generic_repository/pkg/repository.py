from typing import Generic, TypeVar

T = TypeVar("T")


class Repository(Generic[T]):
    def __init__(self) -> None:
        self._items: dict[int, T] = {}

    def add(self, key: int, item: T) -> None:
        self._items[key] = item

    def get(self, key: int) -> T:
        return self._items[key]

    def all(self) -> list[T]:
        return list(self._items.values())
