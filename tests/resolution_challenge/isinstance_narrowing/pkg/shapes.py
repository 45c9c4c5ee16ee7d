import math


class Shape:
    def area(self) -> float:
        raise NotImplementedError


class Circle(Shape):
    def __init__(self, radius: float):
        self.radius = radius

    def area(self) -> float:
        return self.radius_area()

    def radius_area(self) -> float:
        return math.pi * self.radius**2


class Rectangle(Shape):
    def __init__(self, width: float, height: float):
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)
