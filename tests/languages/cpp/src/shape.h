#pragma once

namespace geo {

class Shape {
 public:
  virtual ~Shape();
  virtual double area() const = 0;
  double twice() const;
};

class Circle : public Shape {
 public:
  explicit Circle(double r);
  double area() const override;

 private:
  double r_;
};

}  // namespace geo
