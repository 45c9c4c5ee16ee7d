from typing import Generic, TypeVar

T = TypeVar("T")


class ConfigAttribute(Generic[T]):
    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj, owner=None) -> T:
        return obj.config[self.name]

    def describe(self) -> str:
        return self.name


class Registry:
    def __class_getitem__(cls, key):
        return make_registry(key)

    def lookup(self, name):
        return name


def make_registry(key):
    return {key: Registry()}
