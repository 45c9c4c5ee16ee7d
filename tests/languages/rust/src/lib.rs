mod geo;
mod util;

use crate::util::double as twice;
use geo::shapes::Circle;

/// Sums the areas.
pub fn area_sum(items: &[Circle]) -> f64 {
    let c = Circle::new(1.0);
    let total = util::double(c.area());
    twice(total);
    serde_json::to_string(&total).ok();
    total + items.len() as f64
}
