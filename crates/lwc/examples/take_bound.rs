//! A segment's take against issue 16's bound, in one loop: each round times a plain gather of the list,
//! the segment's take, and the segment's full decode, so the take reads as a ratio to the plain gather
//! and to decode-all-then-gather measured on the same machine at the same moment. What `lwc-bench
//! access` marks with `!`, small enough to profile.
//!
//! Run: `cargo run --release -p lwc --example take_bound -- [CASCADE ...]` (default `plain bitpack delta
//! rle lz4`). `DATA` picks 65,535 `u32`: `walk` (a random walk, the default), `uniform`, `years`
//! (1900-2100) or `step5` (ascending by 5); `K` the list length (default 10^6). `PROFILE=1` repeats the
//! first cascade's unsorted take for five seconds, for a profiler, and exits.

use std::hint::black_box;
use std::time::Instant;

use lwc::{encode_segment, Cascade, EncodeOptions, Segment};

const ROWS: usize = 65_535;
const ROUNDS: usize = 31;

/// A fixed-seed LCG, so runs compare.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
}

fn values(data: &str, rng: &mut Lcg) -> Vec<u32> {
    let mut v = 1_000_000u32;
    (0..ROWS)
        .map(|_| match data {
            "uniform" => rng.next() ^ (rng.next() << 16),
            "years" => 1900 + rng.next() % 201,
            "step5" => {
                v += 5;
                v
            }
            _ => {
                v = (v + rng.next() % 64).wrapping_sub(31);
                v
            }
        })
        .collect()
}

fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn main() -> Result<(), lwc::Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cascades =
        if args.is_empty() { ["plain", "bitpack", "delta", "rle", "lz4"].map(String::from).to_vec() } else { args };
    let data = std::env::var("DATA").unwrap_or_else(|_| "walk".into());
    let k = std::env::var("K").ok().and_then(|s| s.parse().ok()).unwrap_or(1_000_000);
    let mut rng = Lcg(1);
    let values = values(&data, &mut rng);
    let random: Vec<u32> = (0..k).map(|_| rng.next() % ROWS as u32).collect();
    let mut sorted = random.clone();
    sorted.sort_unstable();
    println!("{data}, {k} positions: take as a ratio to a plain gather, and to decode-all plus that gather");
    for cascade in &cascades {
        let encoded = encode_segment(&values, None, EncodeOptions::with_encoding(cascade.parse::<Cascade>()?))?;
        let segment = Segment::<u32>::open(encoded.as_bytes())?;
        let (mut out, mut gathered, mut decoded) = (vec![0u32; k], vec![0u32; k], vec![0u32; ROWS]);
        if std::env::var("PROFILE").is_ok() {
            let start = Instant::now();
            while start.elapsed().as_secs() < 5 {
                segment.take_into(black_box(&random), &mut out)?;
            }
            return Ok(());
        }
        for (order, positions) in [("random", &random), ("sorted", &sorted)] {
            let (mut plain, mut take, mut decode) = (vec![], vec![], vec![]);
            for _ in 0..ROUNDS {
                let t = Instant::now();
                for (o, &p) in gathered.iter_mut().zip(black_box(positions.as_slice())) {
                    *o = values[p as usize];
                }
                black_box(&gathered);
                plain.push(t.elapsed().as_secs_f64());
                let t = Instant::now();
                segment.take_into(black_box(positions), &mut out)?;
                black_box(&out);
                take.push(t.elapsed().as_secs_f64());
                let t = Instant::now();
                segment.decode_into(0, &mut decoded)?;
                black_box(&decoded);
                decode.push(t.elapsed().as_secs_f64());
            }
            assert_eq!(out, gathered, "{cascade}");
            let (plain, take, decode) = (median(plain), median(take), median(decode));
            println!(
                "{cascade:<10} {order}: {:.2}x a plain gather, {:.2}x decode-all plus gather ({:.0} µs; decode {:.0} µs)",
                take / plain,
                take / (plain + decode),
                take * 1e6,
                decode * 1e6
            );
        }
    }
    Ok(())
}
