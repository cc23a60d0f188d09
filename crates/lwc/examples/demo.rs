//! The main job on built-in data: seed 000's standalone benchmark data (65,535 `u32`, five
//! distributions) encoded with every encoding, with compression rate and the cost of each access pattern
//! as a ratio to a plain `Vec<u32>` measured in the same run.
//!
//! Run: `cargo run --release -p lwc --example demo`. Times are medians of repeated runs; ratios hold
//! across machines better than absolute times.

use std::hint::black_box;
use std::time::Instant;

use lwc::{encode_segment, Cascade, Predicate, Segment};

const N: usize = 65_535;

/// A small deterministic generator (SplitMix64), so every run sees the same data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn distributions() -> Vec<(&'static str, Vec<u32>)> {
    let mut r = Rng(42);
    vec![
        ("uniform 32-bit", (0..N).map(|_| r.next() as u32).collect()),
        ("sorted, step 5", (0..N as u32).map(|i| i * 5).collect()),
        ("years 1900-2100", (0..N).map(|_| 1900 + r.below(201) as u32).collect()),
        ("months 1-12", (0..N).map(|_| 1 + r.below(12) as u32).collect()),
        ("time series", (0..N as u64).map(|i| (1_000_000 + 60 * i + r.below(11) - 5) as u32).collect()),
    ]
}

/// Median nanoseconds of `f` over enough repetitions to be stable.
fn median_ns(mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..31)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_nanos() as f64
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn main() -> lwc::Result<()> {
    let mut r = Rng(7);
    let positions: Vec<u32> = (0..1_000).map(|_| r.below(N as u64) as u32).collect();
    // Encodings that apply only to some data (`sequence`, `gcd`, `constant`) are left out where they do not.
    let encodings = [
        "bitpack", "bytepack", "for", "for_n", "pfor", "delta", "delta2", "sequence", "dict", "rle", "varint", "gcd",
        "zstd", "auto",
    ];
    println!("# lwc demo: {N} u32 per distribution (seed 000, Table 2 data)\n");
    println!(
        "Rate = encoded bytes / (4 x rows). Times are ratios to a plain Vec<u32> in the same run (lower is faster).\n"
    );
    println!("| data | encoding | rate | decode all | take 1,000 | get 1,000 | filter x > median | sum |");
    println!("|---|---|---|---|---|---|---|---|");
    for (name, values) in distributions() {
        let mut sorted = values.clone();
        sorted.sort_unstable();
        let c = sorted[N / 2];
        let mut out = vec![0u32; N];
        let mut picked = vec![0u32; positions.len()];
        let plain_decode = median_ns(|| out.copy_from_slice(black_box(&values)));
        let plain_take = median_ns(|| {
            for (o, &p) in picked.iter_mut().zip(black_box(&positions)) {
                *o = values[p as usize];
            }
        });
        let plain_filter = median_ns(|| {
            black_box(black_box(&values).iter().filter(|&&v| v > c).count());
        });
        let plain_sum = median_ns(|| {
            black_box(black_box(&values).iter().map(|&v| v as u64).sum::<u64>());
        });
        for enc in encodings {
            let cascade: Cascade = enc.parse()?;
            let bytes = match encode_segment(&values, None, cascade) {
                Err(lwc::Error::NotApplicable { .. }) => continue,
                encoded => encoded?,
            };
            let seg = Segment::<u32>::open(&bytes)?;
            let decode = median_ns(|| seg.decode_into(0, black_box(&mut out)).unwrap());
            let take = median_ns(|| seg.take_into(black_box(&positions), &mut picked).unwrap());
            let get = median_ns(|| {
                for (o, &p) in picked.iter_mut().zip(black_box(&positions)) {
                    *o = seg.get(p as usize).unwrap().unwrap_or(0);
                }
            });
            let filter = median_ns(|| {
                black_box(seg.filter(&Predicate::Gt(c)));
            });
            let sum = median_ns(|| {
                black_box(seg.aggregate(None).unwrap());
            });
            let label = if enc == "auto" { format!("auto → {}", seg.cascade()) } else { seg.cascade().to_string() };
            println!(
                "| {name} | {label} | {:.3} | {:.2}x | {:.2}x | {:.2}x | {:.2}x | {:.2}x |",
                bytes.len() as f64 / (4 * N) as f64,
                decode / plain_decode,
                take / plain_take,
                get / plain_take,
                filter / plain_filter,
                sum / plain_sum,
            );
        }
    }
    Ok(())
}
