//! cascades: lightweight vs middleweight vs heavyweight codecs on seed 002's data sets D1-D4.
//!
//! Compression rate and speed of every codec, decompression on one thread and (lwc, by segment) on
//! all threads, the sum over compressed data against plain, and the scans `x > c` and `x = c` on
//! compressed data at bit widths 1, 15 and 31.

use std::hint::black_box;

use lwc::{Column, EncodeOptions, EncodedColumn, Encoding, Predicate};
use rand::{rngs::StdRng, Rng, SeedableRng};
use rayon::prelude::*;

use super::Config;
use crate::codecs;
use crate::data;
use crate::measure::{race, time_one, Candidate};
use crate::peers::{self, Peer};
use crate::report::{ratio, Progress, Record, Report, Table};

/// Values per data set at scale 1 (seed 002 used 100 M).
const FULL: usize = 100_000_000;
/// The default scale: 1 M values a data set.
const DEFAULT_SCALE: f64 = 0.01;

pub fn run(cfg: &Config) -> Report {
    let progress = Progress::new("cascades");
    let n = cfg.scaled(FULL, DEFAULT_SCALE, 1 << 10);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(cfg.threads).build().expect("thread pool");
    let mut codecs: Vec<Box<dyn Peer>> =
        codecs::all().into_iter().chain(codecs::cascades()).map(|c| Box::new(c) as Box<dyn Peer>).collect();
    codecs.extend(peers::all());
    let sets = data::seed002(n, cfg.seed);
    let mut report = Report::default();
    let names: Vec<&str> = sets.iter().map(|(d, _)| *d).collect();
    let header = |first: &'static str| {
        let mut h = vec![first];
        h.extend(names.iter().copied());
        h
    };
    let mut rates = Table::new(
        format!("cascades: compression rate (encoded / 4 bytes per value), {n} u32 per data set"),
        &header("codec"),
    );
    let mut speeds = Table::new(
        "cascades: million integers per second, compress / decompress on 1 thread (decompress as a ratio to a plain copy)",
        &header("codec"),
    );
    let mut cells: Vec<(Vec<String>, Vec<String>)> =
        codecs.iter().map(|c| (vec![c.name().to_string()], vec![c.name().to_string()])).collect();
    let mut parallel = Table::new(
        format!("cascades: lwc decompression by segment on {} threads, million integers per second", cfg.threads),
        &header("codec"),
    );
    let mut sums =
        Table::new("cascades: sum over compressed data, time as a ratio to summing a plain Vec<u32>", &header("codec"));
    let mut parallel_rows: Vec<Vec<String>> = vec![];
    let mut sum_rows: Vec<Vec<String>> = vec![];
    for (set, values) in &sets {
        progress.say(format!("{set}: compress and decompress"));
        let mut out = vec![0u32; n];
        let copy = time_one(cfg.settings, || out.copy_from_slice(black_box(values))).median_ns;
        for (codec, (rate_cells, speed_cells)) in codecs.iter().zip(cells.iter_mut()) {
            let encode = time_one(cfg.settings, || {
                black_box(codec.encode(black_box(values)));
            });
            let Some(e) = codec.encode(values) else {
                rate_cells.push("-".into());
                speed_cells.push("-".into());
                continue;
            };
            let decode = time_one(cfg.settings, || e.decode_into(black_box(&mut out)));
            assert!(out == *values, "{} decoded wrong values", codec.name());
            let rate = e.bytes() as f64 / (4 * n) as f64;
            let mips = |ns: f64| n as f64 / ns * 1e3;
            rate_cells.push(format!("{rate:.3}"));
            speed_cells.push(format!(
                "{:.0} / {:.0} ({})",
                mips(encode.median_ns),
                mips(decode.median_ns),
                ratio(decode.median_ns / copy)
            ));
            let record = |measure: &str, value: f64, unit: &'static str, r: Option<f64>| Record {
                experiment: "cascades",
                data: set.to_string(),
                codec: codec.name().into(),
                measure: measure.into(),
                value,
                unit,
                ratio_to_plain: r,
            };
            report.records.push(record("compression rate", rate, "ratio", None));
            report.records.push(record("compress, 1 thread", mips(encode.median_ns), "M int/s", None));
            report.records.push(record(
                "decompress, 1 thread",
                mips(decode.median_ns),
                "M int/s",
                Some(decode.median_ns / copy),
            ));
        }
        progress.say(format!("{set}: parallel decode and sums"));
        for (k, (name, encoding)) in
            [("lwc bitpack", Encoding::Bitpack), ("lwc for", Encoding::For), ("lwc auto", Encoding::Auto)]
                .into_iter()
                .enumerate()
        {
            let encoded = EncodedColumn::encode(values, None, EncodeOptions::with_encoding(encoding)).expect("encodes");
            let column: Column<u32> = encoded.open().expect("opens");
            let rows = lwc::column::DEFAULT_SEGMENT_ROWS;
            let decode_all = pool.install(|| {
                time_one(cfg.settings, || {
                    out.par_chunks_mut(rows)
                        .zip(column.segments().par_iter())
                        .for_each(|(o, s)| s.decode_into(0, o).expect("in range"))
                })
            });
            let mut c = [
                Candidate::new(|| {
                    black_box(values.iter().map(|&v| v as u64).sum::<u64>());
                }),
                Candidate::new(|| {
                    black_box(column.aggregate(None).expect("sums").sum);
                }),
            ];
            let t = race(cfg.settings, &mut c);
            if parallel_rows.len() <= k {
                parallel_rows.push(vec![name.into()]);
                sum_rows.push(vec![name.into()]);
            }
            parallel_rows[k].push(format!("{:.0}", n as f64 / decode_all.median_ns * 1e3));
            sum_rows[k].push(ratio(t[1].ratio));
            report.records.push(Record {
                experiment: "cascades",
                data: set.to_string(),
                codec: name.into(),
                measure: "sum".into(),
                value: t[1].median_ns,
                unit: "ns",
                ratio_to_plain: Some(t[1].ratio),
            });
        }
    }
    for (r, s) in cells {
        rates.row(r);
        speeds.row(s);
    }
    for r in parallel_rows {
        parallel.row(r);
    }
    for r in sum_rows {
        sums.row(r);
    }
    rates.note(
        "lwc rows with parentheses are forced cascades: the encodings of the child streams in order (see `Cascade`).",
    );
    speeds.note("Peers decompress on one thread; lwc's segments decode independently, so the next table spreads them over threads.");
    sums.note("lwc sums without decoding where the encoding allows (for: n·reference + Σ residuals, packed residuals summed a block at a time).");
    report.tables.extend([rates, speeds, parallel, sums]);
    progress.say("selection scans");
    report.tables.push(scans(cfg, n, &mut report.records));
    progress.done();
    report
}

/// `x > c` and `x = c` on bit-packed data at widths 1, 15 and 31, against a plain compare loop.
fn scans(cfg: &Config, n: usize, records: &mut Vec<Record>) -> Table {
    let mut table = Table::new(
        "cascades: selection scans on compressed data (result as a bitmap), time as a ratio to a plain compare loop (built for baseline x86-64, as a default build is)",
        &["bit width", "predicate", "lwc bitpack", "lwc for", "plain compare (absolute)"],
    );
    let mut rng = StdRng::seed_from_u64(cfg.seed);
    for w in [1u32, 15, 31] {
        let values: Vec<u32> = (0..n).map(|_| rng.gen_range(0..1u32 << w)).collect();
        let columns: Vec<EncodedColumn> = [Encoding::Bitpack, Encoding::For]
            .into_iter()
            .map(|e| EncodedColumn::encode(&values, None, EncodeOptions::with_encoding(e)).expect("encodes"))
            .collect();
        let opened: Vec<Column<u32>> = columns.iter().map(|e| e.open().expect("opens")).collect();
        // About half the rows pass `x > c`; `x = c` picks one value of 2^w.
        let (gt, eq) = ((1u32 << (w - 1)) - 1, 1u32 << (w - 1));
        for (label, predicate) in [("x > c", Predicate::Gt(gt)), ("x = c", Predicate::Eq(eq))] {
            let mut bits = vec![0u64; n.div_ceil(64)];
            // The baseline is a compare loop the compiler vectorizes, one per operator.
            let plain: Box<dyn FnMut()> = match predicate {
                Predicate::Gt(_) => Box::new(|| compare_into(black_box(&values), &mut bits, |v| v > gt)),
                _ => Box::new(|| compare_into(black_box(&values), &mut bits, |v| v == eq)),
            };
            let mut candidates = vec![Candidate::new(plain)];
            for column in &opened {
                candidates.push(Candidate::new(|| {
                    black_box(column.filter(black_box(&predicate)));
                }));
            }
            let t = race(cfg.settings, &mut candidates);
            table.row(vec![
                w.to_string(),
                label.into(),
                ratio(t[1].ratio),
                ratio(t[2].ratio),
                crate::report::time(t[0].median_ns),
            ]);
            for (codec, timing) in ["lwc bitpack", "lwc for"].iter().zip(&t[1..]) {
                records.push(Record {
                    experiment: "cascades",
                    data: format!("uniform {w}-bit"),
                    codec: codec.to_string(),
                    measure: format!("filter {label}"),
                    value: timing.median_ns,
                    unit: "ns",
                    ratio_to_plain: Some(timing.ratio),
                });
            }
        }
    }
    table
}

/// Bit `i` of `bits` says whether `test(values[i])`.
fn compare_into(values: &[u32], bits: &mut [u64], test: impl Fn(u32) -> bool) {
    for (word, chunk) in bits.iter_mut().zip(values.chunks(64)) {
        *word = chunk.iter().enumerate().fold(0, |acc, (k, &v)| acc | (test(v) as u64) << k);
    }
}
