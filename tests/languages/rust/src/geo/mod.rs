pub mod shapes;

pub fn unit() -> f64 {
    1.0
}
