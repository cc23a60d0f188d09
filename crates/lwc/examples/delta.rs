//! Measurements behind the choices in `src/encodings/delta.rs`, on TPC-H-like keys:
//!
//! - `layouts`: the loops of seed 001's header, reload and inline layouts over deltas already decoded
//!   (full decode, ranges, match vectors), for strides 16 to 65,536;
//! - `sizes`: compression factors (4 · rows / bytes) of o_orderkey and l_orderkey at scale factor 1, and
//!   of timestamps about a second apart, in 65,536-row segments, per stride, with the default children
//!   and with cascades;
//! - `take`: unsorted take by reading each position against sorting a copy and walking once.
//!
//! Run: `cargo run --release -p lwc --example delta -- layouts|sizes|take`.

use std::hint::black_box;
use std::time::Instant;

use lwc::{encode_segment, Cascade, EncodeOptions, EncodedColumn, Encoding, Segment};

use lwc_testdata::shapes;

use shapes::{l_orderkey, o_orderkey};

/// Best time of 7 rounds of `reps` calls, per call, in seconds.
fn time(reps: usize, mut f: impl FnMut()) -> f64 {
    f();
    (0..7)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..reps {
                f();
            }
            t.elapsed().as_secs_f64() / reps as f64
        })
        .fold(f64::MAX, f64::min)
}

fn random(k: usize, below: usize, seed: u64) -> Vec<u32> {
    let mut x = seed | 1;
    (0..k)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % below as u64) as u32
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------------------
// Layouts: the decode loops alone, over plain `u32` deltas.

/// Header: every row has its delta; data points are entry points only.
fn header_decode(points: &[u32], d: &[u32], shift: u32, start: usize, out: &mut [u32]) {
    let s = start >> shift;
    let mut acc = points[s];
    for &x in &d[(s << shift) + 1..start + 1] {
        acc = acc.wrapping_add(x);
    }
    out[0] = acc;
    for (o, &x) in out[1..].iter_mut().zip(&d[start + 1..]) {
        acc = acc.wrapping_add(x);
        *o = acc;
    }
}

/// Reload: deltas of rows that are not data points only; row `r`'s delta at `r - (r >> shift) - 1`.
fn reload_decode(points: &[u32], d: &[u32], shift: u32, start: usize, out: &mut [u32]) {
    let (mut row, mut k, end) = (start, 0, start + out.len());
    while row < end {
        let s = row >> shift;
        let base = s << shift;
        let mut acc = points[s];
        for &x in &d[base - s..row - s] {
            acc = acc.wrapping_add(x);
        }
        out[k] = acc;
        k += 1;
        let stop = (base + (1 << shift)).min(end);
        for (o, &x) in out[k..k + stop - row - 1].iter_mut().zip(&d[row - s..stop - s - 1]) {
            acc = acc.wrapping_add(x);
            *o = acc;
        }
        k += stop - row - 1;
        row = stop;
    }
}

/// Inline: each data point in place of its delta.
fn inline_decode(stream: &[u32], shift: u32, start: usize, out: &mut [u32]) {
    let (mut row, mut k, end) = (start, 0, start + out.len());
    while row < end {
        let base = row >> shift << shift;
        let mut acc = stream[base];
        for &x in &stream[base + 1..row + 1] {
            acc = acc.wrapping_add(x);
        }
        out[k] = acc;
        k += 1;
        let stop = (base + (1 << shift)).min(end);
        for (o, &x) in out[k..k + stop - row - 1].iter_mut().zip(&stream[row + 1..stop]) {
            acc = acc.wrapping_add(x);
            *o = acc;
        }
        k += stop - row - 1;
        row = stop;
    }
}

/// Match vectors: from the data point when the next match lies in a later stride, else onwards.
/// `start(s)` is the value at stride `s`'s first row, `delta(r)` row `r`'s delta.
fn walk_matches(
    shift: u32,
    positions: &[u32],
    out: &mut [u32],
    start: impl Fn(usize) -> u32,
    deltas: impl Fn(usize, usize) -> u32,
) {
    let (mut cur, mut acc) = (usize::MAX, 0u32);
    for (o, &p) in out.iter_mut().zip(positions) {
        let p = p as usize;
        if cur == usize::MAX || p >> shift != cur >> shift {
            cur = p >> shift << shift;
            acc = start(p >> shift);
        }
        acc = acc.wrapping_add(deltas(cur + 1, p + 1));
        cur = p;
        *o = acc;
    }
}

fn sum(d: &[u32]) -> u32 {
    d.iter().fold(0, |a, &x| a.wrapping_add(x))
}

fn layouts() {
    const N: usize = 1 << 16;
    let values = l_orderkey(N);
    println!("65,536 l_orderkey-like u32, deltas decoded; header / reload / inline");
    for shift in [4u32, 6, 10, 16] {
        let stride = 1usize << shift;
        let points: Vec<u32> = values.iter().step_by(stride).copied().collect();
        let mut header = vec![0u32; N];
        for i in 1..N {
            header[i] = values[i].wrapping_sub(values[i - 1]);
        }
        let reload: Vec<u32> = (1..N).filter(|i| i % stride != 0).map(|i| header[i]).collect();
        let mut inline = header.clone();
        for (s, &v) in points.iter().enumerate() {
            inline[s * stride] = v;
        }
        let mut out = vec![0u32; N];
        header_decode(&points, &header, shift, 0, &mut out);
        assert_eq!(out, values);
        reload_decode(&points, &reload, shift, 0, &mut out);
        assert_eq!(out, values);
        inline_decode(&inline, shift, 0, &mut out);
        assert_eq!(out, values);
        let per_value = |t: f64, n: usize| t * 1e9 / n as f64;
        let full = [
            time(50, || header_decode(&points, &header, shift, 0, black_box(&mut out))),
            time(50, || reload_decode(&points, &reload, shift, 0, black_box(&mut out))),
            time(50, || inline_decode(&inline, shift, 0, black_box(&mut out))),
        ];
        let starts: Vec<usize> = random(64, N - 1000, 3).into_iter().map(|s| s as usize).collect();
        let mut range = vec![0u32; 1000];
        let ranges = [
            time(50, || starts.iter().for_each(|&s| header_decode(&points, &header, shift, s, black_box(&mut range)))),
            time(50, || starts.iter().for_each(|&s| reload_decode(&points, &reload, shift, s, black_box(&mut range)))),
            time(50, || starts.iter().for_each(|&s| inline_decode(&inline, shift, s, black_box(&mut range)))),
        ];
        print!(
            "stride {stride:>5}: full decode ns/value {:.3} / {:.3} / {:.3}; 64 ranges of 1,000 ns/value {:.3} / {:.3} / {:.3}",
            per_value(full[0], N),
            per_value(full[1], N),
            per_value(full[2], N),
            per_value(ranges[0], 64_000),
            per_value(ranges[1], 64_000),
            per_value(ranges[2], 64_000),
        );
        for percent in [1u32, 10, 50] {
            let positions: Vec<u32> = random(N, 100, percent as u64)
                .into_iter()
                .enumerate()
                .filter(|&(_, r)| r < percent)
                .map(|(i, _)| i as u32)
                .collect();
            let mut o = vec![0u32; positions.len()];
            let s = shift as usize;
            let t = [
                time(50, || walk_matches(shift, &positions, &mut o, |s| points[s], |a, b| sum(&header[a..b]))),
                time(50, || {
                    walk_matches(
                        shift,
                        &positions,
                        &mut o,
                        |s| points[s],
                        |a, b| sum(&reload[a - (a >> s)..b - (b >> s)]),
                    )
                }),
                time(50, || walk_matches(shift, &positions, &mut o, |s| inline[s << shift], |a, b| sum(&inline[a..b]))),
            ];
            assert!(positions.iter().zip(&o).all(|(&p, &v)| values[p as usize] == v));
            print!("; {percent}% matches µs {:.1} / {:.1} / {:.1}", t[0] * 1e6, t[1] * 1e6, t[2] * 1e6);
        }
        println!();
    }
}

// ---------------------------------------------------------------------------------------------------------
// Sizes.

/// Millisecond timestamps about a second apart: steps of 990 to 1,010.
fn timestamps(rows: usize) -> Vec<u32> {
    random(rows, 21, 5)
        .into_iter()
        .scan(0u32, |t, jitter| {
            *t += 990 + jitter;
            Some(*t)
        })
        .collect()
}

fn sizes() {
    let columns = [
        ("o_orderkey", o_orderkey(1_500_000)),
        ("l_orderkey", l_orderkey(6_001_215)),
        ("timestamps", timestamps(1_500_000)),
    ];
    let strides = [16u32, 64, 256, 1024, 4096, 65_536];
    let children = ["", "(bitpack)", "(dict)", "(for_n:16)", "(auto)", "(auto, auto)"];
    for (name, values) in &columns {
        println!("{name}, {} rows: compression factor 4 · rows / bytes (bytes)", values.len());
        for stride in strides {
            let mut line = format!("  stride {stride:>5}:");
            for child in children {
                let cascade: Cascade = format!("delta:{stride}{child}").parse().unwrap();
                let column =
                    EncodedColumn::encode(values, None, EncodeOptions::with_encoding(cascade.clone())).unwrap();
                let bytes = column.as_bytes().len();
                line += &format!(" {cascade} {:.1} ({bytes})", 4.0 * values.len() as f64 / bytes as f64);
                if child.contains("auto") {
                    // What `auto` chose, segment by segment.
                    let written = column.open::<u32>().unwrap().cascades();
                    let written: Vec<String> = written.iter().map(|(c, k)| format!("{c} x{k}")).collect();
                    line += &format!(" [{}]", written.join(", "));
                }
            }
            println!("{line}");
        }
        for encoding in [Encoding::For, Encoding::FOR64, Encoding::Dict, Encoding::Auto] {
            let bytes =
                EncodedColumn::encode(values, None, EncodeOptions::with_encoding(encoding)).unwrap().as_bytes().len();
            println!("  {encoding}: {:.1} ({bytes})", 4.0 * values.len() as f64 / bytes as f64);
        }
    }
}

// ---------------------------------------------------------------------------------------------------------
// Unsorted take.

fn take() {
    const N: usize = 1 << 16;
    let values = l_orderkey(N);
    println!("unsorted take from 65,536 l_orderkey-like u32, ns/position: get each / sort a copy and walk");
    for stride in [16u32, 64, 128, 256, 1024, 65_536] {
        let bytes = encode_segment(&values, None, Encoding::Delta { stride }).unwrap();
        let segment = Segment::<u32>::open(&bytes).unwrap();
        let mut line = format!("stride {stride:>5}:");
        for k in [5usize, 8, 16, 32, 64, 256, 1024, 4096] {
            let positions = random(k, N, k as u64);
            let mut out = vec![0u32; k];
            let reps = (20_000 / k).max(5);
            let each = time(reps, || {
                for (o, &p) in out.iter_mut().zip(black_box(&positions)) {
                    *o = segment.get(p as usize).unwrap().unwrap();
                }
            });
            let mut sorted_out = vec![0u32; k];
            let walk = time(reps, || {
                let mut order: Vec<u64> =
                    black_box(&positions).iter().enumerate().map(|(i, &p)| (p as u64) << 32 | i as u64).collect();
                order.sort_unstable();
                let sorted: Vec<u32> = order.iter().map(|&o| (o >> 32) as u32).collect();
                segment.take_into(&sorted, &mut sorted_out).unwrap();
                for (&o, &v) in order.iter().zip(&sorted_out) {
                    out[o as u32 as usize] = v;
                }
            });
            line += &format!(" k={k} {:.0}/{:.0}", each * 1e9 / k as f64, walk * 1e9 / k as f64);
        }
        println!("{line}");
    }
    println!("sorted take, ns/position, at average gaps between positions");
    for stride in [16u32, 1024, 65_536] {
        let bytes = encode_segment(&values, None, Encoding::Delta { stride }).unwrap();
        let segment = Segment::<u32>::open(&bytes).unwrap();
        let mut line = format!("stride {stride:>5}:");
        for gap in [4usize, 16, 32, 64, 128, 256] {
            let mut positions = random(N / gap, N, gap as u64);
            positions.sort_unstable();
            let mut out = vec![0u32; positions.len()];
            let t = time(20, || segment.take_into(black_box(&positions), &mut out).unwrap());
            line += &format!(" gap {gap} {:.1}", t * 1e9 / positions.len() as f64);
        }
        println!("{line}");
    }
}

fn main() {
    match std::env::args().nth(1).as_deref() {
        Some("layouts") => layouts(),
        Some("sizes") => sizes(),
        Some("take") => take(),
        _ => eprintln!("usage: delta layouts|sizes|take"),
    }
}
