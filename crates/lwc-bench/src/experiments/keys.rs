//! keys: frame of reference per block vs delta on TPC-H keys (seed 001, Spindler et al.).
//!
//! `l_orderkey`, `o_orderkey` and `ps_partkey` as `u32`: the compression factor of `for`, `for_n` at several
//! block sizes, delta at data-point strides 16 … 65,536 and the peers; then, as ratios to a plain `Vec<u32>` in
//! the same run, the full-scan sum on compressed data, the full decode, and the decode of a match vector (sorted
//! row ids, as a scan hands them on) at 50 %, 10 % and 1 % selectivity, and a take of random rows (lookups).

use std::hint::black_box;

use lwc::{Cascade, Column, EncodeOptions, EncodedColumn};

use super::{bound_factor, cliff_note, confirm_note, confirmed_bound, race_bound_alone, worst_over_bound, Config};
use crate::codecs;
use crate::data;
use crate::measure::{geomean, race, race_codecs, Candidate, Timing};
use crate::peers::{self, Peer, PeerEncoded};
use crate::report::{ratio, time, Figure, Progress, Record, Report, Table};
use crate::tpch::Tpch;

/// The TPC-H scale factor by default: seed 001's, and generated in seconds.
const DEFAULT_SCALE: f64 = 1.0;

/// Match-vector selectivities.
const SELECTIVITIES: [f64; 3] = [0.5, 0.1, 0.01];

/// Rows of the lookup take: few enough that each is read where it lies, over every segment of the column.
const LOOKUP_ROWS: usize = 1_000;

/// The share of the rows a dense unsorted take reads (a join's probe side handing on many rows in its
/// own order): many rows a segment, in no order.
const SCATTERED_SHARE: f64 = 0.1;

/// lwc's candidates in table order (name, cascade): frame of reference per segment and per block, delta at
/// the strides seed 001 measured, the dictionary and the automatic choice; then the forced cascades.
const LWC: [(&str, &str); 14] = [
    ("lwc for", "for"),
    ("lwc for_n(16)", "for_n:16"),
    ("lwc for_n(64)", "for_n"),
    ("lwc for_n(256)", "for_n:256"),
    ("lwc for_n(1024)", "for_n:1024"),
    ("lwc delta(16)", "delta:16"),
    ("lwc delta(64)", "delta:64"),
    ("lwc delta(256)", "delta:256"),
    ("lwc delta(1024)", "delta"),
    ("lwc delta(4096)", "delta:4096"),
    ("lwc delta(16384)", "delta:16384"),
    ("lwc delta(65536)", "delta:65536"),
    ("lwc dict", "dict"),
    ("lwc auto", "auto"),
];

/// A measured operation.
#[derive(Clone, Copy)]
enum Op {
    /// Column::aggregate over all rows (lwc only).
    Sum,
    Decode,
    /// Take of a match vector of this selectivity.
    Take(f64),
    /// Take of this many uniform random rows, in no order (lookups, as a join's probe hands them on).
    Lookup(usize),
    /// Take of this share of the rows, uniform random, in no order.
    Scattered(f64),
}

impl Op {
    fn label(self) -> String {
        match self {
            Op::Sum => "sum".into(),
            Op::Decode => "decode all".into(),
            Op::Take(s) => format!("take {} %", (s * 100.0).round()),
            Op::Lookup(k) => format!("take {k} random"),
            Op::Scattered(s) => format!("take {} % random", (s * 100.0).round()),
        }
    }
}

/// One codec's figures: per key column, and per operation and key column (`NaN` where it does not apply).
struct Row {
    name: &'static str,
    codec: Option<Box<dyn Peer>>,
    /// lwc's cascade, for the sum (which needs the column itself).
    cascade: Option<Cascade>,
    factor: Vec<f64>,
    ratio: Vec<Vec<f64>>,
    median_ns: Vec<Vec<f64>>,
    /// Each take's [`confirmed_bound`], per operation and key column (`NaN` for the other operations).
    bound: Vec<Vec<f64>>,
}

pub fn run(cfg: &Config) -> Report {
    let progress = Progress::new("keys");
    let sf = cfg.scale.unwrap_or(DEFAULT_SCALE);
    progress.say(format!("generating TPC-H keys at scale factor {sf}"));
    let columns = Tpch::new(sf).keys();
    let mut ops = vec![Op::Sum, Op::Decode];
    ops.extend(SELECTIVITIES.map(Op::Take));
    ops.extend([Op::Lookup(LOOKUP_ROWS), Op::Scattered(SCATTERED_SHARE)]);

    let row = |name, codec: Option<Box<dyn Peer>>, cascade| Row {
        name,
        codec,
        cascade,
        factor: vec![],
        ratio: vec![vec![]; ops.len()],
        median_ns: vec![vec![]; ops.len()],
        bound: vec![vec![]; ops.len()],
    };
    let mut rows = vec![row("plain Vec<u32>", None, None)];
    for lwc in LWC.iter().map(|&(name, cascade)| codecs::Lwc::new(name, cascade)).chain(codecs::cascades()) {
        let (name, cascade) = (lwc.name, lwc.cascade.clone());
        rows.push(row(name, Some(Box::new(lwc)), Some(cascade)));
    }
    rows.extend(peers::all().into_iter().map(|p| row(p.name(), Some(p), None)));

    let mut report = Report::default();
    for (c, (column, values)) in columns.iter().enumerate() {
        progress.say(format!("{column}: encoding {} values", values.len()));
        let encoded: Vec<Option<Box<dyn PeerEncoded>>> = rows[1..]
            .iter()
            .map(|r| r.codec.as_ref()?.encode(values).filter(|e| peers::decodes_back(e.as_ref(), values)))
            .collect();
        rows[0].factor.push(1.0);
        for (r, e) in rows[1..].iter_mut().zip(&encoded) {
            r.factor.push(e.as_ref().map_or(f64::NAN, |e| (4 * values.len()) as f64 / e.bytes() as f64));
        }
        for (o, &op) in ops.iter().enumerate() {
            progress.say(format!("{column}: {} ({}/{})", op.label(), c * ops.len() + o + 1, columns.len() * ops.len()));
            let times = match op {
                Op::Sum => time_sums(cfg, values, &rows),
                Op::Decode => race_codecs(cfg.settings, values, None, &encoded),
                Op::Take(_) | Op::Lookup(_) | Op::Scattered(_) => {
                    race_codecs(cfg.settings, values, positions(cfg, values, op).as_deref(), &encoded)
                }
            };
            for (r, t) in rows.iter_mut().zip(times) {
                let (median, ratio) = t.map_or((f64::NAN, f64::NAN), |t| (t.median_ns, t.ratio));
                r.median_ns[o].push(median);
                r.ratio[o].push(ratio);
                if median.is_finite() {
                    report.records.push(record(column, r.name, op.label(), median, "ns", Some(ratio)));
                }
            }
        }
        confirm_cliffs(cfg, &ops, values, &encoded, &mut rows, &progress);
        for r in &rows[1..] {
            if r.factor[c].is_finite() {
                let measure = "compression factor (4-byte raw / encoded)".into();
                report.records.push(record(column, r.name, measure, r.factor[c], "ratio", None));
            }
        }
    }
    progress.done();
    let names: Vec<&str> = columns.iter().map(|(c, _)| *c).collect();
    let chosen: Vec<String> = columns.iter().map(|(c, values)| format!("{c}: {}", auto_choice(values))).collect();
    tables(&mut report, &rows, &ops, &names, &chosen, sf);
    report
}

/// What `auto` chooses for `values`, in its explain record's words: a change of choice moves every `auto`
/// figure, where sizes alone may not show it (o_orderkey's deltas went from `dict(bitpack)` to
/// `gcd(bitpack)` at the same size, and its random takes from 42 µs to 164-217 µs).
fn auto_choice(values: &[u32]) -> String {
    let encoded = EncodedColumn::encode(values, None, EncodeOptions::default()).expect("auto encodes any keys");
    let column = encoded.open::<u32>().expect("a column just encoded opens");
    codecs::explain(&column)
}

/// The rows a take reads from `values`: a match vector, or random rows; `None` for the other operations.
fn positions(cfg: &Config, values: &[u32], op: Op) -> Option<Vec<u32>> {
    match op {
        Op::Take(s) => Some(data::match_vector(values.len(), s, cfg.seed)),
        Op::Lookup(k) => Some(data::positions(k, values.len(), false, cfg.seed)),
        Op::Scattered(s) => Some(data::positions((s * values.len() as f64) as usize, values.len(), false, cfg.seed)),
        Op::Sum | Op::Decode => None,
    }
}

/// Each take's [`bound_factor`] on the column just measured (the last figure of each row), and
/// [`confirmed_bound`] where that is over the bound.
fn confirm_cliffs(
    cfg: &Config,
    ops: &[Op],
    values: &[u32],
    encoded: &[Option<Box<dyn PeerEncoded>>],
    rows: &mut [Row],
    progress: &Progress,
) {
    let last = |v: &[f64]| v.last().copied().unwrap_or(f64::NAN);
    let gathers: Vec<f64> = rows[0].median_ns.iter().map(|m| last(m)).collect();
    for (c, row) in rows.iter_mut().enumerate().skip(1) {
        for (o, &op) in ops.iter().enumerate() {
            let factor = match op {
                Op::Take(_) | Op::Lookup(_) | Op::Scattered(_) => {
                    // ops[1] is the full decode.
                    let first = bound_factor(last(&row.median_ns[o]), last(&row.median_ns[1]), gathers[o]);
                    // The rows are made again only for a take raced again.
                    confirmed_bound(first, || {
                        progress.say(format!("{}: {} over the bound, raced again", row.name, op.label()));
                        let positions = positions(cfg, values, op).expect("a take reads rows");
                        race_bound_alone(cfg.settings, values, &positions, encoded, c - 1)
                    })
                }
                Op::Sum | Op::Decode => f64::NAN,
            };
            row.bound[o].push(factor);
        }
    }
}

fn record(column: &str, codec: &str, measure: String, value: f64, unit: &'static str, r: Option<f64>) -> Record {
    Record {
        experiment: "keys",
        data: column.to_string(),
        codec: codec.into(),
        measure,
        value,
        unit,
        ratio_to_plain: r,
    }
}

/// Times `Column::aggregate` for every lwc row against summing the plain values, in rotation; `None` for
/// rows without a sum (peers, cascades that do not apply).
fn time_sums(cfg: &Config, values: &[u32], rows: &[Row]) -> Vec<Option<Timing>> {
    let plain: u64 = values.iter().map(|&v| v as u64).sum();
    let lwc: Vec<Option<EncodedColumn>> = rows
        .iter()
        .map(|r| EncodedColumn::encode(values, None, EncodeOptions::with_encoding(r.cascade.clone()?)).ok())
        .collect();
    let opened: Vec<Column<u32>> = lwc.iter().flatten().map(|e| e.open().expect("opens what it encoded")).collect();
    for column in &opened {
        assert_eq!(column.aggregate(None).expect("sums").sum, plain as i128, "lwc summed wrong");
    }
    let mut candidates = vec![Candidate::new(|| {
        black_box(black_box(values).iter().map(|&v| v as u64).sum::<u64>());
    })];
    for column in &opened {
        candidates.push(Candidate::new(|| {
            black_box(column.aggregate(None).expect("sums").sum);
        }));
    }
    let mut timings = race(cfg.settings, &mut candidates).into_iter();
    let plain = timings.next();
    std::iter::once(plain).chain(lwc[1..].iter().map(|e| e.as_ref().and_then(|_| timings.next()))).collect()
}

/// The three key columns' figures in one cell: `a / b / c`, or `-` when none applies.
fn cell(values: &[f64], show: impl Fn(f64) -> String) -> String {
    if values.iter().all(|v| !v.is_finite()) {
        return "-".into();
    }
    values.iter().map(|&v| if v.is_finite() { show(v) } else { "-".into() }).collect::<Vec<_>>().join(" / ")
}

fn tables(report: &mut Report, rows: &[Row], ops: &[Op], columns: &[&str], chosen: &[String], sf: f64) {
    let per_column = columns.join(" / ");
    let mut factors = Table::new(format!("keys: compression factor (4-byte raw / encoded), TPC-H SF {sf}"), &{
        let mut h = vec!["codec"];
        h.extend(columns);
        h
    });
    let labels: Vec<String> = ops.iter().map(|op| op.label()).collect();
    let mut header = vec!["codec", "random access"];
    header.extend(labels.iter().map(String::as_str));
    let mut ratios =
        Table::new(format!("keys: time as a ratio to plain Vec<u32>, same run (each cell: {per_column})"), &header);
    let mut absolute = Table::new(format!("keys: median time (each cell: {per_column})"), &header);
    let mut figure = Figure {
        name: "keys-take".into(),
        title: "keys: compression vs match-vector decode at 10 % (geometric mean over the key columns)".into(),
        x_label: "compression rate (encoded / raw, lower is smaller)".into(),
        y_label: "take 10 %, time / plain".into(),
        points: vec![],
    };
    let mut cliffs = Vec::new();
    for (k, row) in rows.iter().enumerate() {
        if k > 0 {
            let mut r = vec![row.name.to_string()];
            r.extend(row.factor.iter().map(|f| if f.is_finite() { format!("{f:.2}") } else { "-".into() }));
            factors.row(r);
        }
        let access = match &row.codec {
            _ if row.factor.iter().all(|f| !f.is_finite()) => "-",
            Some(c) if !c.random_access() => "no: decodes all, then gathers",
            _ => "yes",
        };
        let mut r = vec![row.name.to_string(), access.to_string()];
        let mut a = r.clone();
        for (o, label) in labels.iter().enumerate() {
            match worst_over_bound(&row.bound[o]) {
                Some((c, factor)) => {
                    r.push(format!("{} !", cell(&row.ratio[o], ratio)));
                    cliffs.push(format!("{} {label}, {factor:.1}x on {}", row.name, columns[c]));
                }
                None => r.push(cell(&row.ratio[o], ratio)),
            }
            a.push(cell(&row.median_ns[o], time));
        }
        ratios.row(r);
        absolute.row(a);
        let finite = |v: &[f64]| v.iter().copied().filter(|x| x.is_finite()).collect::<Vec<_>>();
        let (take, factor) = (finite(&row.ratio[3]), finite(&row.factor));
        if k > 0 && !take.is_empty() && !factor.is_empty() {
            // ops[3] is the 10 % match vector.
            figure.points.push((row.name.into(), 1.0 / geomean(&factor), geomean(&take)));
        }
    }
    factors.note("Published (seed 001, Table 1, raw / encoded: no delta / delta / xz): o_orderkey 1.00 / 3.70 / 14.3, l_orderkey 1.61 / 3.70 / 25.0, ps_partkey 2.00 / 3.70 / 50.0; delta and FOR64 about 4x, 2x better than FOR.");
    factors.note("lwc delta(stride): a data point every `stride` values (deltas and data points `for`, their defaults). Rows with child encodings in parentheses are forced cascades; `-` where a cascade does not apply to a column.");
    factors.note(format!("lwc auto chose {}.", chosen.join("; ")));
    ratios.note(format!("Lower is faster; 1.00x is a plain Vec<u32>: summing it, copying it, or gathering the match vector or rows from it. A match vector holds each row with the given probability, ascending; a random take, {LOOKUP_ROWS} uniform random rows in no order (a few in each of the column's 65,536-row segments, read where they lie). Sum is lwc's Column::aggregate, which sums without decoding where the encoding allows; peers have no sum."));
    ratios.note(cliff_note(&cliffs));
    ratios.note(confirm_note());
    ratios.note("Published (seed 001): FOR64 full decode 23 % faster than FOR; FOR64 match-vector decode 12-47 % faster than uncompressed and 3-7 % faster than FOR and dictionary; delta 2.3-4.2x slower than FOR64 in selective scans.");
    report.tables.extend([factors, ratios, absolute]);
    report.figures.push(figure);
}
