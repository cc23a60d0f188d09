//! access: random access vs sequential decoding (seed 000, §4.1, Table 2).
//!
//! 65,535 `u32` (one Hyrise chunk) in five distributions; every codec decodes the whole vector and
//! gathers position lists of 1 … 10^6 uniform random positions, unsorted and sorted. Peers without
//! random access decode everything and then gather, as the paper measured them.

use super::{bound_factor, cliff_note, confirm_note, confirmed_bound, race_bound_alone, worst_over_bound, Config};
use crate::codecs;
use crate::data;
use crate::measure::{geomean, race_codecs};
use crate::peers::{self, Peer, PeerEncoded};
use crate::report::{ratio, Figure, Progress, Record, Report, Table};

/// Values per vector at scale 1.
const FULL: usize = 65_535;

/// A measured operation: decode everything, or take a position list.
#[derive(Clone, Copy)]
enum Op {
    Decode,
    Take { k: usize, sorted: bool },
}

impl Op {
    fn label(self) -> String {
        match self {
            Op::Decode => "decode all".into(),
            Op::Take { k, sorted } => format!("take {}{}", count(k), if sorted { " sorted" } else { "" }),
        }
    }
}

/// `10^3` style for powers of ten, digits otherwise.
fn count(k: usize) -> String {
    let e = (k as f64).log10().round() as u32;
    if k > 10 && 10usize.pow(e) == k {
        format!("10^{e}")
    } else {
        k.to_string()
    }
}

/// Measurements of one codec, one entry per distribution (`NaN` where it does not apply).
struct Row {
    name: &'static str,
    random_access: bool,
    rate: Vec<f64>,
    ratio: Vec<Vec<f64>>,
    median_ns: Vec<Vec<f64>>,
    /// Each take's [`bound_factor`]: from its first race, or the lowest of the races that confirm a cell
    /// over issue 16's bound, each set against the plain gather and the decode raced with it.
    bound: Vec<Vec<f64>>,
}

pub fn run(cfg: &Config) -> Report {
    let progress = Progress::new("access");
    let n = cfg.scaled(FULL, 1.0, 64);
    let scale = cfg.scale.unwrap_or(1.0).min(1.0);
    let list = |k: usize| ((k as f64 * scale).round() as usize).max(1);
    let mut ops = vec![Op::Decode];
    ops.extend([1, 1_000, 10_000, 1_000_000].map(|k| Op::Take { k: list(k), sorted: false }));
    ops.extend([1_000, 10_000, 1_000_000].map(|k| Op::Take { k: list(k), sorted: true }));

    let mut codecs: Vec<Box<dyn Peer>> = codecs::all().into_iter().map(|c| Box::new(c) as Box<dyn Peer>).collect();
    codecs.extend(peers::all());
    let distributions = data::seed000(n, cfg.seed);
    let mut rows: Vec<Row> = std::iter::once(("plain Vec<u32>", true))
        .chain(codecs.iter().map(|c| (c.name(), c.random_access())))
        .map(|(name, random_access)| Row {
            name,
            random_access,
            rate: vec![],
            ratio: vec![vec![]; ops.len()],
            median_ns: vec![vec![]; ops.len()],
            bound: vec![vec![]; ops.len()],
        })
        .collect();
    let mut report = Report::default();

    for (d, (dist, values)) in distributions.iter().enumerate() {
        progress.say(format!("{dist}: encoding"));
        let encoded: Vec<Option<Box<dyn PeerEncoded>>> =
            codecs.iter().map(|c| c.encode(values).filter(|e| peers::decodes_back(e.as_ref(), values))).collect();
        rows[0].rate.push(1.0);
        for (row, e) in rows[1..].iter_mut().zip(&encoded) {
            row.rate.push(e.as_ref().map_or(f64::NAN, |e| e.bytes() as f64 / (4 * n) as f64));
        }
        for (o, &op) in ops.iter().enumerate() {
            progress.say(format!(
                "{dist}: {} ({}/{})",
                op.label(),
                d * ops.len() + o + 1,
                distributions.len() * ops.len()
            ));
            let times = time_op(cfg, op, values, &encoded, d as u64);
            for (row, t) in rows.iter_mut().zip(times) {
                let (median, r) = t.map_or((f64::NAN, f64::NAN), |t| (t.median_ns, t.ratio));
                row.median_ns[o].push(median);
                row.ratio[o].push(r);
                if median.is_finite() {
                    report.records.push(Record {
                        experiment: "access",
                        data: dist.to_string(),
                        codec: row.name.into(),
                        measure: op.label(),
                        value: median,
                        unit: "ns",
                        ratio_to_plain: Some(r),
                    });
                }
            }
        }
        confirm_cliffs(cfg, &ops, values, &encoded, d, &mut rows, &progress);
        for row in &rows {
            let rate = row.rate[d];
            if rate.is_finite() {
                let measure = "compression rate (encoded / 4 bytes per value)".into();
                report.records.push(Record {
                    experiment: "access",
                    data: dist.to_string(),
                    codec: row.name.into(),
                    measure,
                    value: rate,
                    unit: "ratio",
                    ratio_to_plain: None,
                });
            }
        }
    }
    progress.done();
    let names: Vec<&str> = distributions.iter().map(|(d, _)| *d).collect();
    tables(&mut report, &rows, &ops, &names, n);
    report
}

/// Times `op` for plain and the encoded codecs in rotation; `None` for codecs that did not encode.
fn time_op(
    cfg: &Config,
    op: Op,
    values: &[u32],
    encoded: &[Option<Box<dyn PeerEncoded>>],
    d: u64,
) -> Vec<Option<crate::measure::Timing>> {
    let positions = match op {
        Op::Decode => None,
        Op::Take { k, sorted } => Some(take_positions(cfg, k, sorted, values.len(), d)),
    };
    race_codecs(cfg.settings, values, positions.as_deref(), encoded)
}

/// The `k` positions (of `n`) a take on distribution `d` reads.
fn take_positions(cfg: &Config, k: usize, sorted: bool, n: usize, d: u64) -> Vec<u32> {
    data::positions(k, n, sorted, cfg.seed ^ d)
}

/// Each take's [`bound_factor`] on distribution `d`, from the first races, and [`confirmed_bound`] where
/// that is over the bound.
fn confirm_cliffs(
    cfg: &Config,
    ops: &[Op],
    values: &[u32],
    encoded: &[Option<Box<dyn PeerEncoded>>],
    d: usize,
    rows: &mut [Row],
    progress: &Progress,
) {
    for c in 1..rows.len() {
        for (o, &op) in ops.iter().enumerate() {
            let first = bound_factor(rows[c].median_ns[o][d], rows[c].median_ns[0][d], rows[0].median_ns[o][d]);
            let factor = match op {
                Op::Decode => first,
                Op::Take { k, sorted } => confirmed_bound(first, || {
                    progress.say(format!("{}: {} over the bound, raced again", rows[c].name, op.label()));
                    let positions = take_positions(cfg, k, sorted, values.len(), d as u64);
                    race_bound_alone(cfg.settings, values, &positions, encoded, c - 1)
                }),
            };
            rows[c].bound[o].push(factor);
        }
    }
}

fn tables(report: &mut Report, rows: &[Row], ops: &[Op], distributions: &[&str], n: usize) {
    let mut header = vec!["codec", "random access", "rate"];
    let labels: Vec<String> = ops.iter().map(|op| op.label()).collect();
    header.extend(labels.iter().map(String::as_str));
    let mut ratios = Table::new(
        format!(
            "access: time as a ratio to plain Vec<u32>, same run ({n} u32; geometric mean over the five distributions)"
        ),
        &header,
    );
    let mut absolute = Table::new("access: median time in µs (mean over the five distributions)".to_string(), &header);
    let mut rates = Table::new("access: compression rate (encoded bytes / 4 bytes per value)", &{
        let mut h = vec!["codec"];
        h.extend(distributions);
        h.push("mean");
        h
    });
    let mut decode_fig = Figure {
        name: "access-decode".into(),
        title: "access: compression rate vs full decode (ratio to plain)".into(),
        x_label: "compression rate (lower is smaller)".into(),
        y_label: "decode all, time / plain".into(),
        points: vec![],
    };
    let mut take_fig = Figure {
        name: "access-take".into(),
        title: "access: compression rate vs take of 10^3 random positions".into(),
        x_label: "compression rate (lower is smaller)".into(),
        y_label: "take 10^3, time / plain".into(),
        points: vec![],
    };
    let mut unused = Vec::new();
    let mut cliffs = Vec::new();
    for row in rows {
        let applies: Vec<f64> = row.rate.iter().copied().filter(|r| r.is_finite()).collect();
        if applies.is_empty() {
            unused.push(row.name);
            continue;
        }
        let mean_rate = applies.iter().sum::<f64>() / applies.len() as f64;
        let partial = if applies.len() < row.rate.len() { " (where it applies)" } else { "" };
        let access = if row.random_access { "yes" } else { "no: decodes all, then gathers" };
        let mut r = vec![format!("{}{partial}", row.name), access.into(), format!("{mean_rate:.3}")];
        let mut a = r.clone();
        for o in 0..ops.len() {
            let finite: Vec<f64> = row.ratio[o].iter().copied().filter(|x| x.is_finite()).collect();
            let g = if finite.is_empty() { f64::NAN } else { geomean(&finite) };
            let take = matches!(ops[o], Op::Take { .. });
            match worst_over_bound(&row.bound[o]).filter(|_| take) {
                Some((d, factor)) => {
                    r.push(format!("{} !", ratio(g)));
                    cliffs.push(format!("{} {}, {factor:.1}x on {}", row.name, labels[o], distributions[d]));
                }
                None => r.push(ratio(g)),
            }
            let m: Vec<f64> = row.median_ns[o].iter().copied().filter(|x| x.is_finite()).collect();
            a.push(if m.is_empty() {
                "-".into()
            } else {
                format!("{:.3}", m.iter().sum::<f64>() / m.len() as f64 / 1e3)
            });
            if o == 0 {
                decode_fig.points.push((row.name.into(), mean_rate, g));
            }
            if o == 2 {
                // ops[2] is the unsorted list of 10^3 positions.
                take_fig.points.push((row.name.into(), mean_rate, g));
            }
        }
        ratios.row(r);
        absolute.row(a);
        let mut t = vec![row.name.to_string()];
        t.extend(row.rate.iter().map(|x| if x.is_finite() { format!("{x:.3}") } else { "-".into() }));
        t.push(format!("{mean_rate:.3}"));
        rates.row(t);
    }
    ratios.note("Lower is faster; 1.00x is a plain array. Peers marked \"no\" have no random access: their take decodes the whole vector, then gathers (seed 000 measured them so).");
    ratios.note(cliff_note(&cliffs));
    ratios.note(confirm_note());
    if !unused.is_empty() {
        ratios.note(format!("Not applicable to any distribution (left out): {}.", unused.join(", ")));
    }
    report.tables.extend([ratios, absolute, rates]);
    report.figures.extend([decode_fig, take_fig]);
}
