from pkg.shapes import Circle, Rectangle, Shape


def describe(shape: Shape) -> str:
    if isinstance(shape, Circle):
        return f"circle a={shape.radius_area():.2f}"
    if isinstance(shape, Rectangle):
        return f"rectangle d={shape.diagonal():.2f}"
    return f"shape a={shape.area():.2f}"


def total_area(items: list[object]) -> float:
    total = 0.0
    for item in items:
        if isinstance(item, (Circle, Rectangle)):
            total += item.area()
    return total


def outline(shape):
    if not isinstance(shape, Rectangle):
        return None
    return shape.diagonal()
