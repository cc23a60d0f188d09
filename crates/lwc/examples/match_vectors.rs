//! Seed 001's match vectors on the TPC-H keys at scale factor 1: the take of a sorted 1 % (and 10 %) match
//! vector under `for_n(64)` and delta at several strides, as a ratio to a plain gather timed in the same
//! run (median of rounds), and to issue 16's bound: the column's full decode plus that gather. What
//! `lwc-bench keys` measures, small enough to profile.
//!
//! Run: `cargo run --release -p lwc --example match_vectors [CASCADE ...]`. `SELECTIVITIES=0.5,0.1` picks
//! the selectivities (default `0.01,0.1`); `CASCADES=1` also prints the cascade each column was written
//! with; `PROFILE=l_orderkey` (a column's name) skips the other columns, repeats that column's first take
//! warm, for a profiler, prints its time and a plain gather's, and exits. `LOOKUPS=1000` takes that many
//! uniform random rows in no order instead of match vectors (lookups, as a join's probe hands them on).

use std::hint::black_box;
use std::time::Instant;

use lwc::{Cascade, EncodeOptions, EncodedColumn};
use lwc_testdata::shapes;
use lwc_testdata::timing::race;

const ROUNDS: usize = 41;

/// The fastest of 101 means over 100 runs of `f`, in seconds: a warm time, every run after the first
/// finding its data in the caches.
fn warm(mut f: impl FnMut()) -> f64 {
    let mut fastest = f64::MAX;
    for _ in 0..101 {
        let start = Instant::now();
        for _ in 0..100 {
            f();
        }
        fastest = fastest.min(start.elapsed().as_secs_f64() / 100.0);
    }
    fastest
}

/// Each row with probability `selectivity` (a fixed-seed LCG), ascending.
fn match_vector(n: usize, selectivity: f64) -> Vec<u32> {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    (0..n as u32)
        .filter(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((x >> 11) as f64 / (1u64 << 53) as f64) < selectivity
        })
        .collect()
}

/// `k` uniform random rows of `0..n`, in no order (a fixed-seed LCG).
fn lookups(n: usize, k: usize) -> Vec<u32> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    (0..k)
        .map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (((x >> 32) * n as u64) >> 32) as u32
        })
        .collect()
}

fn main() -> Result<(), lwc::Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cascades: Vec<String> =
        if args.is_empty() { ["for_n", "delta:16", "delta:64", "delta"].map(String::from).to_vec() } else { args };
    let columns = [
        ("l_orderkey", shapes::l_orderkey(6_001_215)),
        ("o_orderkey", shapes::o_orderkey(1_500_000)),
        ("ps_partkey", shapes::ps_partkey(800_000)),
    ];
    let lookups_k: Option<usize> =
        std::env::var("LOOKUPS").ok().map(|k| k.trim().parse().expect("LOOKUPS: a number of rows"));
    let selectivities: Vec<f64> = match std::env::var("SELECTIVITIES") {
        _ if lookups_k.is_some() => vec![0.0],
        Ok(list) => {
            list.split(',').map(|s| s.trim().parse().expect("SELECTIVITIES: numbers, comma-separated")).collect()
        }
        Err(_) => vec![0.01, 0.1],
    };
    for selectivity in selectivities {
        let what = match lookups_k {
            Some(k) => format!("{k} random rows in no order"),
            None => format!("a {} % match vector", selectivity * 100.0),
        };
        println!("take of {what}, time as a ratio to a plain gather [and to decode all + that gather]");
        let profiled = std::env::var("PROFILE").ok();
        for (name, values) in columns.iter().filter(|(name, _)| profiled.as_ref().is_none_or(|p| p == name)) {
            let positions = match lookups_k {
                Some(k) => lookups(values.len(), k),
                None => match_vector(values.len(), selectivity),
            };
            let (mut out, mut gathered) = (vec![0u32; positions.len()], vec![0u32; positions.len()]);
            let mut line = format!("{name:<11} {:>6} positions", positions.len());
            for cascade in &cascades {
                let options = EncodeOptions::with_encoding(cascade.parse::<Cascade>()?);
                let encoded = EncodedColumn::encode(values, None, options)?;
                let column = encoded.open::<u32>()?;
                if std::env::var("CASCADES").is_ok() {
                    eprintln!("{name} {cascade}: {}", column.cascades()[0].0);
                }
                column.take_into(&positions, &mut out)?;
                assert!(out.iter().zip(&positions).all(|(&o, &p)| o == values[p as usize]), "{cascade}");
                let plain = || {
                    for (o, &p) in gathered.iter_mut().zip(black_box(&positions)) {
                        *o = values[p as usize];
                    }
                    black_box(&gathered);
                };
                let take = || column.take_into(black_box(&positions), &mut out).expect("rows in range");
                if profiled.is_some() {
                    // Warm, as `lwc-bench keys` times it: the take again and again, the fastest of 101
                    // means over 100 takes each, after the plain gather's, timed the same way.
                    let (plain, take) = (warm(plain), warm(take));
                    println!(
                        "{name} {cascade}: {:.1} µs a take, warm (fastest mean of 100); a plain gather {:.1} µs ({:.2}x)",
                        take * 1e6,
                        plain * 1e6,
                        take / plain
                    );
                    return Ok(());
                }
                let (plain, take) = race(ROUNDS, plain, take);
                let mut all = vec![0u32; values.len()];
                let decode = || column.decode_into(0, black_box(&mut all)).expect("rows in range");
                let (decode, _) = race(ROUNDS, decode, || {});
                line += &format!(
                    " | {cascade} {:.2}x [{:.2}x] ({:.1} µs)",
                    take / plain,
                    take / (decode + plain),
                    take * 1e6
                );
            }
            println!("{line}");
        }
    }
    Ok(())
}
