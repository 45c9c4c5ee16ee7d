#include "shape.h"

#include <cmath>

namespace geo {

Shape::~Shape() {}

double Shape::twice() const { return area() * 2; }

Circle::Circle(double r) : r_(r) {}

double Circle::area() const { return std::acos(-1.0) * r_ * r_; }

}  // namespace geo
