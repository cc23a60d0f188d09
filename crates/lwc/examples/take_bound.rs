//! A column's take against issue 16's bound, in one loop: each round times a plain gather of the list,
//! the column's take, and its full decode, so the take reads as a ratio to the plain gather and to
//! decode-all-then-gather measured on the same machine at the same moment. On one segment (the default)
//! it is what `lwc-bench access` marks with `!`, small enough to profile.
//!
//! Run: `cargo run --release -p lwc --example take_bound -- [CASCADE ...]` (default `plain bitpack delta
//! rle lz4`). `DATA` picks the `u32` values: `walk` (a random walk, the default), `uniform`, `years`
//! (1900-2100), `discount` (0-10), `step5` (ascending by 5), `series` (ascending by 60 ± 5) or a TPC-H
//! key (`l_orderkey`, `o_orderkey`, `ps_partkey`); `ROWS` how many (default 65,535: one segment; more
//! make a column of 65,536-row segments, taken and decoded through the column); `K` the list length
//! (default 10^6). `WARM=1` leaves the decode out of each round, so a short list's rows stay in the
//! caches from round to round and the take's fixed costs show (the decode-all figure is then that of the
//! last round alone). `REPEAT=n` times each gather and take as `n` calls in a row, as `lwc-bench` does,
//! so a short list's rows stay in L2. `PROFILE=1` repeats the first cascade's unsorted take for five
//! seconds, for a profiler, and exits; `PROFILE=sorted` its sorted take, `PROFILE=decode` its full
//! decode. `SHOW=1` also prints each column's bytes and the cascades its segments were written with
//! (what `auto` chose).

use std::hint::black_box;
use std::time::Instant;

use lwc::{Cascade, EncodeOptions, EncodedColumn};

/// One segment's worth, short of a power of two, so the last block is partial.
const DEFAULT_ROWS: usize = 65_535;
const ROUNDS: usize = 31;

/// A fixed-seed LCG, so runs compare.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
}

fn values(data: &str, rows: usize, rng: &mut Lcg) -> Vec<u32> {
    match data {
        "l_orderkey" => return lwc_testdata::shapes::l_orderkey(rows),
        "o_orderkey" => return lwc_testdata::shapes::o_orderkey(rows),
        "ps_partkey" => return lwc_testdata::shapes::ps_partkey(rows),
        _ => {}
    }
    let mut v = 1_000_000u32;
    (0..rows)
        .map(|_| match data {
            "uniform" => rng.next() ^ (rng.next() << 16),
            "years" => 1900 + rng.next() % 201,
            // TPC-H's l_discount as cents: eleven values, which `radix` packs 18 a word.
            "discount" => rng.next() % 11,
            // `lwc-bench access`' time series: a step of 60 and noise of ±5.
            "series" => {
                v += 60;
                v + rng.next() % 11 - 5
            }
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
    let warm = std::env::var("WARM").is_ok();
    let repeat: usize = std::env::var("REPEAT").ok().and_then(|s| s.parse().ok()).unwrap_or(1).max(1);
    let rows: usize = std::env::var("ROWS").ok().and_then(|s| s.parse().ok()).unwrap_or(DEFAULT_ROWS).max(1);
    let mut rng = Lcg(1);
    let values = values(&data, rows, &mut rng);
    let random: Vec<u32> = (0..k).map(|_| rng.next() % rows as u32).collect();
    let mut sorted = random.clone();
    sorted.sort_unstable();
    println!(
        "{data}, {rows} rows, {k} positions: take as a ratio to a plain gather, and to decode-all plus that gather"
    );
    for cascade in &cascades {
        let encoded = EncodedColumn::encode(&values, None, EncodeOptions::with_encoding(cascade.parse::<Cascade>()?))?;
        let column = encoded.open::<u32>()?;
        if std::env::var("SHOW").is_ok() {
            println!("{cascade}: {} bytes", encoded.as_bytes().len());
            for (chosen, segments) in column.cascades() {
                println!("{cascade} chose {chosen} for {segments} segments");
            }
        }
        let (mut out, mut gathered, mut decoded) = (vec![0u32; k], vec![0u32; k], vec![0u32; rows]);
        if let Ok(profile) = std::env::var("PROFILE") {
            let positions = if profile == "sorted" { &sorted } else { &random };
            let start = Instant::now();
            while start.elapsed().as_secs() < 5 {
                if profile == "decode" {
                    column.decode_into(0, black_box(&mut decoded))?;
                } else {
                    column.take_into(black_box(positions), &mut out)?;
                }
            }
            return Ok(());
        }
        for (order, positions) in [("random", &random), ("sorted", &sorted)] {
            let (mut plain, mut take, mut decode) = (vec![], vec![], vec![]);
            for round in 0..ROUNDS {
                let t = Instant::now();
                for _ in 0..repeat {
                    for (o, &p) in gathered.iter_mut().zip(black_box(positions.as_slice())) {
                        *o = values[p as usize];
                    }
                    black_box(&gathered);
                }
                plain.push(t.elapsed().as_secs_f64() / repeat as f64);
                let t = Instant::now();
                for _ in 0..repeat {
                    column.take_into(black_box(positions), &mut out)?;
                    black_box(&out);
                }
                take.push(t.elapsed().as_secs_f64() / repeat as f64);
                if warm && round + 1 < ROUNDS {
                    continue;
                }
                let t = Instant::now();
                column.decode_into(0, &mut decoded)?;
                black_box(&decoded);
                decode.push(t.elapsed().as_secs_f64());
            }
            assert_eq!(out, gathered, "{cascade}");
            let (plain, take, decode) = (median(plain), median(take), median(decode));
            println!(
                "{cascade:<10} {order}: {:.2}x a plain gather, {:.2}x decode-all plus gather ({:.1} µs; decode {:.0} µs)",
                take / plain,
                take / (plain + decode),
                take * 1e6,
                decode * 1e6
            );
        }
    }
    Ok(())
}
