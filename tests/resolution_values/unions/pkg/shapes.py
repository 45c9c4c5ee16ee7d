from __future__ import annotations

from elsewhere import Thing


class Circle:
    def area(self) -> float:
        return 3.14

    def scale(self) -> Circle:
        return Circle()


class Square:
    def area(self) -> float:
        return 1.0

    def scale(self) -> Square:
        return Square()


class Line:
    pass


def measure(shape: Circle | Square) -> float:
    return shape.area()


def grow(shape: Circle | Square) -> float:
    return shape.scale().area()


def maybe(shape: Circle | None) -> float:
    return shape.area()


def partly(shape: Circle | Line) -> float:
    return shape.area()


def unknown_part(shape: Circle | Thing) -> float:
    return shape.area()


def with_builtin(shape: Circle | int) -> float:
    return shape.area()
