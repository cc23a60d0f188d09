//! threads: how decode, scan, sum and encode scale from one thread to all (seed 002, Fig. 7), next to the
//! copy and sum bandwidth on as many threads.
//!
//! Two parts. Segments: seed 002's D1 as `u32` cut into segments of 65,536 values that rayon spreads over
//! a pool of 1, 2, … threads; lwc's segments encode, decode, filter and sum independently, and the peers
//! that can (BP128, zstd) get the same chunks. Tables: TPC-H lineitem written, read, scanned and summed
//! through lwc-file on a pool of each size, as a user of the file format sees it.

use std::hint::black_box;

use lwc::{encode_segment, Column, EncodeOptions, EncodedColumn, Predicate};
use lwc_file::{Filter, LwcFile, WriteOptions};
use rayon::prelude::*;

use super::Config;
use crate::measure::{race, Candidate};
use crate::peers;
use crate::report::{Progress, Record, Report, Table};
use crate::tpch::Tpch;

/// 2^24 values at scale 1 (64 MiB as `u32`: larger than the caches, as seed 002's Fig. 7).
const FULL: usize = 1 << 24;
/// The TPC-H scale factor of the tables part by default.
const DEFAULT_TPCH_SCALE: f64 = 0.1;
const SEGMENT: usize = lwc::column::DEFAULT_SEGMENT_ROWS;

pub fn run(cfg: &Config) -> Report {
    let progress = Progress::new("threads");
    let counts: Vec<usize> = (1..=cfg.threads.max(1)).collect();
    let mut report = Report::default();
    progress.say("segments: generating seed 002's D1");
    let n = cfg.scaled(FULL, 1.0, SEGMENT);
    let (set, values) = crate::data::seed002(n, cfg.seed).into_iter().next().expect("D1");
    report.tables.push(segments(cfg, &progress, set, &values, &counts, &mut report.records));
    let scale = cfg.scale.unwrap_or(DEFAULT_TPCH_SCALE);
    progress.say(format!("tables: generating TPC-H lineitem at SF {scale}"));
    report.tables.push(tables(cfg, &progress, scale, &counts, &mut report.records));
    progress.done();
    report
}

/// One operation's median times, one per thread count.
struct Scaling {
    name: String,
    ns: Vec<f64>,
}

/// The table of `rows`: items per second (as `unit`, `items / ns * scale`) on each thread count, and the
/// speed-up of the last count over one thread.
fn scaling_table(title: String, unit: &str, items: f64, scale: f64, counts: &[usize], rows: &[Scaling]) -> Table {
    let mut header: Vec<String> = vec!["operation".into()];
    header.extend(counts.iter().map(|t| format!("{t} thread{}", if *t == 1 { "" } else { "s" })));
    header.push(format!("{} / 1 thread", counts.last().copied().unwrap_or(1)));
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut table = Table::new(title, &header);
    for r in rows {
        let mut cells = vec![r.name.clone()];
        cells.extend(r.ns.iter().map(|ns| three_digits(items / ns * scale)));
        cells.push(format!("{:.2}x", r.ns[0] / r.ns[r.ns.len() - 1]));
        table.row(cells);
    }
    table.note(format!("Cells are {unit}; the last column is the speed-up on all threads (the time on one divided by the time on all)."));
    table
}

/// One record per operation and thread count: `items` per median time, in millions a second.
fn to_records<'a>(
    data: &'a str,
    prefix: &'a str,
    unit: &'static str,
    items: f64,
    counts: &'a [usize],
    rows: &'a [Scaling],
) -> impl Iterator<Item = Record> + 'a {
    rows.iter().flat_map(move |r| {
        counts.iter().zip(&r.ns).map(move |(t, ns)| Record {
            experiment: "threads",
            data: data.to_string(),
            codec: format!("{prefix}{}", r.name),
            measure: format!("{t} threads"),
            value: items / ns * 1e3,
            unit,
            ratio_to_plain: None,
        })
    })
}

/// `x` to three significant digits (at least none after the point).
fn three_digits(x: f64) -> String {
    let decimals = if x >= 100.0 {
        0
    } else if x >= 10.0 {
        1
    } else {
        2
    };
    format!("{x:.decimals$}")
}

/// Runs `measure` on a pool of each thread count, gathering each operation's median per count.
fn sweep(
    counts: &[usize],
    progress: &Progress,
    mut measure: impl FnMut(usize) -> Vec<(String, f64)> + Send,
) -> Vec<Scaling> {
    let mut rows: Vec<Scaling> = Vec::new();
    for &threads in counts {
        progress.say(format!("{threads} thread(s)"));
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool");
        let timed = pool.install(|| measure(threads));
        for (k, (name, ns)) in timed.into_iter().enumerate() {
            if rows.len() <= k {
                rows.push(Scaling { name, ns: Vec::new() });
            }
            rows[k].ns.push(ns);
        }
    }
    rows
}

fn segments(
    cfg: &Config,
    progress: &Progress,
    set: &str,
    values: &[u32],
    counts: &[usize],
    records: &mut Vec<Record>,
) -> Table {
    let n = values.len();
    let encoded = EncodedColumn::encode(values, None, EncodeOptions::default()).expect("encodes");
    let column: Column<u32> = encoded.open().expect("opens");
    let chunks: Vec<&[u32]> = values.chunks(SEGMENT).collect();
    let peers: Vec<_> = peers::all().into_iter().filter(|p| matches!(p.name(), "bitpacking BP128" | "zstd")).collect();
    let peer_chunks: Vec<Vec<_>> =
        peers.iter().map(|p| chunks.par_iter().map(|c| p.encode(c).expect("encodes u32")).collect()).collect();
    let median = {
        let mut copy = values.to_vec();
        *copy.select_nth_unstable(n / 2).1
    };
    let mut out = vec![0u32; n];
    let mut out_plain = vec![0u32; n];
    let mut peer_outs = vec![vec![0u32; n]; peers.len()];
    let rows = sweep(counts, progress, |_| {
        let mut names = vec![
            "plain copy".to_string(),
            "plain sum".into(),
            "lwc decode".into(),
            "lwc sum (encoded)".into(),
            "lwc filter x < median (encoded)".into(),
            "lwc encode (default objective)".into(),
        ];
        let mut c = vec![
            Candidate::new(|| {
                out_plain
                    .par_chunks_mut(SEGMENT)
                    .zip(values.par_chunks(SEGMENT))
                    .for_each(|(d, s)| d.copy_from_slice(s))
            }),
            Candidate::new(|| {
                black_box(values.par_chunks(SEGMENT).map(|c| c.iter().map(|&v| v as u64).sum::<u64>()).sum::<u64>());
            }),
        ];
        let segments = column.segments();
        c.push(Candidate::new(|| {
            out.par_chunks_mut(SEGMENT)
                .zip(segments.par_iter())
                .for_each(|(o, s)| s.decode_into(0, o).expect("in range"))
        }));
        c.push(Candidate::new(|| {
            black_box(segments.par_iter().map(|s| s.aggregate(None).expect("sums").sum).sum::<i128>());
        }));
        c.push(Candidate::new(|| {
            black_box(segments.par_iter().map(|s| s.filter(&Predicate::Lt(median)).count()).sum::<usize>());
        }));
        c.push(Candidate::new(|| {
            black_box(
                chunks.par_iter().map(|c| encode_segment(c, None, EncodeOptions::default()).expect("encodes")).count(),
            );
        }));
        for ((p, encoded), out) in peers.iter().zip(&peer_chunks).zip(peer_outs.iter_mut()) {
            names.push(format!("{} decode", p.name()));
            c.push(Candidate::new(|| {
                out.par_chunks_mut(SEGMENT).zip(encoded.par_iter()).for_each(|(o, e)| e.decode_into(o))
            }));
            names.push(format!("{} encode", p.name()));
            c.push(Candidate::new(|| {
                black_box(chunks.par_iter().map(|c| p.encode(c).expect("encodes")).count());
            }));
        }
        let timed = race(cfg.settings, &mut c);
        names.into_iter().zip(timed).map(|(name, t)| (name, t.median_ns)).collect()
    });
    records.extend(to_records(set, "", "M values/s", n as f64, counts, &rows));
    let mut table = scaling_table(
        format!("threads: {set}, {n} u32 in segments of {SEGMENT}, million values per second"),
        "million values per second",
        n as f64,
        1e3,
        counts,
        &rows,
    );
    table.note(format!(
        "Every operation runs segment by segment (peers: on the same chunks of {SEGMENT} values) on a rayon pool of the given size; lwc's column chose {}. The plain copy and sum are the bandwidth bound on as many threads.",
        crate::codecs::explain(&column)
    ));
    table
}

fn tables(cfg: &Config, progress: &Progress, scale: f64, counts: &[usize], records: &mut Vec<Record>) -> Table {
    let lineitem = Tpch::new(scale).lineitem();
    let rows = lineitem.rows;
    let (schema, columns) = super::end_to_end::to_arrow(&lineitem);
    let batches = super::end_to_end::batches(&schema, &columns, rows);
    let file = LwcFile::from_bytes(
        lwc_file::write_to_bytes(schema.clone(), &batches, WriteOptions::default()).expect("writes"),
    )
    .expect("opens");
    let quantity = file.column_index("l_quantity").expect("l_quantity");
    let price = file.column_index("l_extendedprice").expect("l_extendedprice");
    let filter = Filter::parse("l_quantity", "< 24").expect("a filter");
    let timed = sweep(counts, progress, |threads| {
        let names = [
            "write (encode every column)",
            "read every column",
            "count where l_quantity < 24 (encoded)",
            "sum(l_extendedprice) (encoded)",
        ];
        let options = WriteOptions { threads: Some(threads), ..WriteOptions::default() };
        let mut c = [
            Candidate::new(|| {
                black_box(lwc_file::write_to_bytes(schema.clone(), &batches, options.clone()).expect("writes"));
            }),
            Candidate::new(|| {
                black_box(file.read_batch().expect("reads"));
            }),
            Candidate::new(|| {
                black_box(file.aggregate(quantity, Some(&filter)).expect("counts").count);
            }),
            Candidate::new(|| {
                black_box(file.aggregate(price, None).expect("sums").sum);
            }),
        ];
        let timed = race(cfg.settings, &mut c);
        names.iter().zip(timed).map(|(name, t)| (name.to_string(), t.median_ns)).collect()
    });
    records.extend(to_records(&format!("lineitem SF {scale}"), "lwc-file ", "M rows/s", rows as f64, counts, &timed));
    let mut table = scaling_table(
        format!(
            "threads: TPC-H lineitem at SF {scale} ({rows} rows, 16 columns) through lwc-file, million rows per second"
        ),
        "million rows per second",
        rows as f64,
        1e3,
        counts,
        &timed,
    );
    table.note("Write: `write_to_bytes` with `WriteOptions::threads` set (default objective); read: `read_batch` into Arrow; the count and the sum run on the encoded segments (`LwcFile::aggregate`), each on a rayon pool of the given size.");
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::Settings;

    #[test]
    fn every_operation_is_measured_on_every_thread_count() {
        let settings = Settings { rounds: 1, min_batch: std::time::Duration::ZERO };
        let cfg = Config { scale: Some(0.001), settings, explicit_rounds: None, threads: 2, seed: 1 };
        let report = run(&cfg);
        assert_eq!(report.tables.len(), 2);
        // Ten operations on segments (lwc, plain and two peers) and four on the table, on 1 and 2 threads.
        assert_eq!(report.records.len(), (10 + 4) * 2);
        assert!(report.records.iter().all(|r| r.value.is_finite() && r.value > 0.0));
        assert!(report.tables[1].render().contains("| 2 / 1 thread |"));
    }

    #[test]
    fn speeds_keep_three_digits() {
        assert_eq!(three_digits(1234.4), "1234");
        assert_eq!(three_digits(19.24), "19.2");
        assert_eq!(three_digits(1.613), "1.61");
    }
}
