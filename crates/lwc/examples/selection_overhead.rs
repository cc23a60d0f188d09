//! Time spent choosing encodings against time spent encoding, per data shape: the selector's overhead,
//! with segments keeping the choice before them (the default) and choosing every segment.
//!
//! Run: `cargo run --release -p lwc --example selection_overhead [objective]`.

use lwc::{EncodeOptions, EncodedColumn, LwcInt, Objective};
use lwc_testdata::shapes;

const ROWS: usize = 4_000_000;

/// A deterministic pseudo-random sequence.
fn noise(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        state >> 17
    }
}

fn measure<T: LwcInt>(name: &str, values: &[T], objective: Objective, keep_choice: usize) -> (u64, u64) {
    let options = EncodeOptions { keep_choice, ..EncodeOptions::with_objective(objective).explained() };
    let encoded = EncodedColumn::encode(values, None, options).expect("encodes");
    let explains = encoded.explains();
    let choose: u64 = explains.iter().map(|e| e.choose_ns).sum();
    let encode: u64 = explains.iter().map(|e| e.encode_ns).sum();
    println!(
        "{name:<14} {:>9} B  choose {:>7.1} ms of {:>7.1} ms ({:>5.1} %)  {}",
        encoded.as_bytes().len(),
        choose as f64 / 1e6,
        encode as f64 / 1e6,
        100.0 * choose as f64 / encode.max(1) as f64,
        explains[0].chosen
    );
    (choose, encode)
}

fn main() {
    let objective: Objective = std::env::args().nth(1).map_or(Objective::Balanced, |o| o.parse().expect("objective"));
    let mut r = noise(42);
    let columns: Vec<(&str, Vec<i64>)> = vec![
        ("l_orderkey", shapes::l_orderkey(ROWS).into_iter().map(i64::from).collect()),
        ("sequence", (0..ROWS as i64).collect()),
        ("quantity", (0..ROWS).map(|_| 1 + (r() % 50) as i64).collect()),
        ("price", (0..ROWS).map(|_| 90_000 + (r() % 10_000_000) as i64).collect()),
        ("random32", (0..ROWS).map(|_| (r() as u32) as i64).collect()),
        ("dates", (0..ROWS).map(|i| 8_000 + (i / 2_000) as i64 + (r() % 120) as i64).collect()),
        ("flags", (0..ROWS).map(|_| (r() % 3) as i64).collect()),
        ("partkey", (0..ROWS).map(|_| 1 + (r() % 200_000) as i64).collect()),
    ];
    let only = std::env::var("ONLY").ok();
    for (keep_choice, how) in [(lwc::DEFAULT_KEEP_CHOICE, "keeping choices"), (0, "choosing every segment")] {
        println!("{how} (keep_choice {keep_choice}):");
        let (mut choose, mut encode) = (0u64, 0u64);
        for (name, values) in columns.iter().filter(|(n, _)| only.as_deref().is_none_or(|o| o == *n)) {
            let (c, e) = measure(name, values, objective, keep_choice);
            (choose, encode) = (choose + c, encode + e);
        }
        println!(
            "total: choose {:.1} ms of {:.1} ms ({:.1} %), objective {objective}\n",
            choose as f64 / 1e6,
            encode as f64 / 1e6,
            100.0 * choose as f64 / encode as f64
        );
    }
}
