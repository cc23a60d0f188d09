//! The experiments' data, generated in process from a seed so that every run sees the same values.

use rand::{rngs::StdRng, Rng, SeedableRng};
use rand_distr::{Distribution, Normal};

/// Seed 000's five distributions over `n` values (Table 2 uses `n = 65,535`, one Hyrise chunk).
pub fn seed000(n: usize, seed: u64) -> Vec<(&'static str, Vec<u32>)> {
    let mut rng = StdRng::seed_from_u64(seed);
    let uniform = (0..n).map(|_| rng.gen::<u32>()).collect();
    let sorted = (0..n as u32).map(|i| i.wrapping_mul(5)).collect();
    let years = (0..n).map(|_| rng.gen_range(1900..=2100)).collect();
    let months = (0..n).map(|_| rng.gen_range(1..=12)).collect();
    let series = (0..n as i64).map(|i| (1_000_000 + 60 * i + rng.gen_range(-5..=5)) as u32).collect();
    vec![
        ("uniform 32-bit", uniform),
        ("sorted, step 5", sorted),
        ("years 1900-2100", years),
        ("months 1-12", months),
        ("time series", series),
    ]
}

/// Seed 002's data sets D1-D4 over `n` values: normal around 2^5 and around 2^25 (σ = 20), sorted
/// uniform in [0, 10^6), and 90/10 a mix of the first two. Rounded and clamped at 0.
pub fn seed002(n: usize, seed: u64) -> Vec<(&'static str, Vec<u32>)> {
    let mut rng = StdRng::seed_from_u64(seed);
    let small = Normal::new(32.0, 20.0).expect("valid parameters");
    let large = Normal::new((1u32 << 25) as f64, 20.0).expect("valid parameters");
    let round = |x: f64| x.round().max(0.0) as u32;
    let d1 = (0..n).map(|_| round(small.sample(&mut rng))).collect();
    let d2 = (0..n).map(|_| round(large.sample(&mut rng))).collect();
    let mut d3: Vec<u32> = (0..n).map(|_| rng.gen_range(0..1_000_000)).collect();
    d3.sort_unstable();
    let d4 = (0..n)
        .map(|_| round(if rng.gen_bool(0.9) { small.sample(&mut rng) } else { large.sample(&mut rng) }))
        .collect();
    vec![("D1 normal(2^5)", d1), ("D2 normal(2^25)", d2), ("D3 sorted uniform", d3), ("D4 90/10 mix", d4)]
}

/// Strings back to back, and where each ends (Arrow's layout: a string costs its bytes and a 4-byte offset).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Strings {
    pub bytes: String,
    pub ends: Vec<u32>,
}

impl Strings {
    /// Ends the string written to `bytes` since the last end.
    pub fn end_string(&mut self) {
        self.ends.push(u32::try_from(self.bytes.len()).expect("under 4 GiB of text"));
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Bytes in the plain layout.
    pub fn plain_bytes(&self) -> usize {
        self.bytes.len() + size_of_val(self.ends.as_slice())
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(start, &end)| &self.bytes[start as usize..end as usize])
    }
}

/// Seed 003's low-cardinality strings: `Key_` followed by a uniform random digit, `n` rows.
pub fn low_cardinality_keys(n: usize, seed: u64) -> Strings {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut s = Strings { bytes: String::with_capacity(5 * n), ends: Vec::with_capacity(n) };
    for _ in 0..n {
        s.bytes.push_str("Key_");
        s.bytes.push(char::from(b'0' + rng.gen_range(0..10u8)));
        s.end_string();
    }
    s
}

/// `k` positions uniform in `[0, n)`, repeats allowed, ascending if `sorted`.
pub fn positions(k: usize, n: usize, sorted: bool, seed: u64) -> Vec<u32> {
    let mut rng = StdRng::seed_from_u64(seed ^ k as u64);
    let mut p: Vec<u32> = (0..k).map(|_| rng.gen_range(0..n as u32)).collect();
    if sorted {
        p.sort_unstable();
    }
    p
}

/// A match vector: each of the `n` rows picked with probability `selectivity`, ascending, no repeats (what
/// a scan hands on to the next column).
pub fn match_vector(n: usize, selectivity: f64, seed: u64) -> Vec<u32> {
    let mut rng = StdRng::seed_from_u64(seed ^ selectivity.to_bits());
    (0..n as u32).filter(|_| rng.gen_bool(selectivity)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_is_seeded_and_shaped() {
        let a = seed000(1000, 7);
        assert_eq!(a, seed000(1000, 7));
        assert!(a[1].1.windows(2).all(|w| w[1] == w[0] + 5));
        assert!(a[2].1.iter().all(|&y| (1900..=2100).contains(&y)));
        assert!(a[3].1.iter().all(|&m| (1..=12).contains(&m)));
        let d = seed002(1000, 7);
        assert!(d[2].1.windows(2).all(|w| w[0] <= w[1]));
        assert!(d[1].1.iter().all(|&v| v > 1 << 24));
        let keys = low_cardinality_keys(1000, 7);
        assert_eq!(keys.len(), 1000);
        assert_eq!(keys.plain_bytes(), 1000 * (5 + 4));
        assert!(keys.iter().all(|k| k.len() == 5 && k.starts_with("Key_")));
        assert!(keys.iter().collect::<std::collections::BTreeSet<_>>().len() == 10);
        let m = match_vector(10_000, 0.1, 1);
        assert!(m.windows(2).all(|w| w[0] < w[1]) && (900..1100).contains(&m.len()));
        let p = positions(500, 100, true, 1);
        assert!(p.windows(2).all(|w| w[0] <= w[1]) && p.iter().all(|&x| x < 100));
    }
}
