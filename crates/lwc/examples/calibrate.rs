//! Measures the selector's cost model on this machine and prints it in the format
//! `CostModel::from_text` reads. The built-in table (`crates/lwc/src/select/builtin_costs.txt`) is this
//! program's output on the development machine:
//!
//! ```sh
//! cargo run --release -p lwc --example calibrate > crates/lwc/src/select/builtin_costs.txt
//! ```

use std::time::Instant;

fn main() {
    let start = Instant::now();
    let mut model = lwc::calibrate::calibrate();
    let elapsed = start.elapsed();
    model.source = std::env::args().nth(1).unwrap_or(model.source);
    print!("{}", model.to_text());
    eprintln!("calibrated in {:.0} ms", elapsed.as_secs_f64() * 1e3);
}
