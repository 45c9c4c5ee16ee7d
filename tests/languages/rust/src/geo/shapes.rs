pub trait Shape {
    fn area(&self) -> f64;
}

pub struct Circle {
    r: f64,
}

impl Circle {
    pub fn new(r: f64) -> Self {
        Circle { r: r * super::unit() }
    }

    fn scale(&self) -> f64 {
        self.area() * Self::factor()
    }

    fn factor() -> f64 {
        2.0
    }
}

impl Shape for Circle {
    fn area(&self) -> f64 {
        std::f64::consts::PI * self.r * self.r
    }
}

pub struct Square {
    s: f64,
}

impl Shape for Square {
    fn area(&self) -> f64 {
        self.s * self.s
    }
}
