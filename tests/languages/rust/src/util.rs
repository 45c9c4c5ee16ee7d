pub fn double(x: f64) -> f64 {
    helper(x) * 2.0
}

fn helper(x: f64) -> f64 {
    x.abs() * crate::geo::unit()
}
