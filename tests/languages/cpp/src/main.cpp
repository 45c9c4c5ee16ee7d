#include "shape.h"

int main() {
  geo::Circle c(2.0);
  auto* p = new geo::Circle(1.0);
  return static_cast<int>(p->area() + c.twice());
}
