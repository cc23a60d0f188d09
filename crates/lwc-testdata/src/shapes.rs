//! Integer columns shaped like the ones the source documents measure (TPC-H keys, seed 002's data sets),
//! generated without I/O and always the same, so every size bound, test and measurement sees the same
//! values.

use rand::{rngs::StdRng, Rng, SeedableRng};

/// TPC-H `o_orderkey`: sorted distinct keys, 8 of every 32 (as dbgen makes them).
pub fn o_orderkey(rows: usize) -> Vec<u32> {
    (0..rows as u32).map(|i| (i / 8) * 32 + i % 8 + 1).collect()
}

/// TPC-H `l_orderkey`: every order key of [`o_orderkey`] repeated for its 1 to 7 line items.
pub fn l_orderkey(rows: usize) -> Vec<u32> {
    let mut x = 7u64;
    let mut out = Vec::with_capacity(rows + 7);
    for key in o_orderkey(rows) {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        out.extend(std::iter::repeat_n(key, 1 + (x >> 33) as usize % 7));
        if out.len() >= rows {
            break;
        }
    }
    out.truncate(rows);
    out
}

/// TPC-H `ps_partkey`: part keys from 1, each four times, sorted (800,000 rows at scale factor 1).
pub fn ps_partkey(rows: usize) -> Vec<u32> {
    (0..rows as u32).map(|i| i / 4 + 1).collect()
}

/// Seed 002's D4: 90 % normal(2^5, σ 20), 10 % normal(2^25, σ 20), rounded and clamped at 0. (Its one
/// small value past 127 makes `for` under `pfor`'s exceptions 26 bits wide.)
pub fn d4(n: usize) -> Vec<u32> {
    let mut rng = StdRng::seed_from_u64(4);
    let mut normal = move |mean: f64| {
        let (u, v): (f64, f64) = (rng.gen(), rng.gen());
        let z = (-2.0 * (1.0 - u).ln()).sqrt() * (std::f64::consts::TAU * v).cos();
        (mean + 20.0 * z).round().max(0.0) as u32
    };
    let mut pick = StdRng::seed_from_u64(5);
    (0..n).map(|_| normal(if pick.gen_bool(0.9) { 32.0 } else { (1u32 << 25) as f64 })).collect()
}
