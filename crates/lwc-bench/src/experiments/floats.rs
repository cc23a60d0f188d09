//! floats: `alp` and `alp_rd` against plain arrays, pco and zstd (issue 14's float goals).
//!
//! Data: TPC-H's `l_extendedprice`, `l_discount`, `l_tax` and `o_totalprice` as `f64` and as `f32` (each value
//! the float nearest to its decimal, as parsing the text gives), uniformly random full-mantissa doubles in
//! `[0, 1000)`, and a sensor-like random walk with 3 decimals. Measured in one run: sizes (bytes, bits per value)
//! of lwc's `balanced` and `size` objectives, lwc's `alp` and `alp_rd` forced, pco, zstd and, for data of
//! decimal origin, the same values as scaled integers through lwc; full-decode speed on one thread against a
//! plain copy; a range filter + sum on the encoded form against decoding first and against a plain array; and
//! the goals, met or not, computed from the figures above.

use std::cell::RefCell;
use std::hint::black_box;

use lwc::{Column, EncodeOptions, EncodedColumn, Encoding, Objective, Predicate, Value};
use rand::{rngs::StdRng, Rng, SeedableRng};

use super::Config;
use crate::codecs;
use crate::measure::{race, Candidate, Timing};
use crate::peers::{self, FloatPeers, Peer, PeerEncoded};
use crate::report::{ratio, time, Progress, Record, Report, Table};
use crate::tpch::Tpch;

/// The TPC-H scale factor by default: about a minute on 2 cores.
const DEFAULT_SCALE: f64 = 0.1;
/// Values of the synthetic data sets at scale 1: lineitem's rows at TPC-H scale factor 1.
const FULL: usize = 6_000_000;

/// Goal: doubles of 2-digit decimal origin take at most this many times their bytes as scaled integers.
const SCALED_INTEGER_GOAL: f64 = 1.1;
/// Goal: uniformly random full-mantissa doubles take at most this fraction of plain.
const RANDOM_GOAL: f64 = 0.9;
/// Goal: `alp` decodes at least this many values per second on one core.
const DECODE_GOAL: f64 = 2e9;

/// Values decoded at a time for the in-cache decode figure (128 KiB of doubles: within L2).
const CACHED_CHUNK: usize = 16_384;

/// The share of rows the range filter selects (about; the bounds are quantiles of the data).
const SELECTIVITY: f64 = 0.1;

/// lwc's candidates, in table order: the default objective, the smallest, and the two float encodings forced.
fn lwc_options() -> [(&'static str, EncodeOptions); 4] {
    [
        ("lwc balanced", EncodeOptions::default()),
        ("lwc size", EncodeOptions::with_objective(Objective::Size)),
        ("lwc alp", EncodeOptions::with_encoding(Encoding::Alp)),
        ("lwc alp_rd", EncodeOptions::with_encoding(Encoding::AlpRd)),
    ]
}
/// Where `lwc balanced` and `lwc alp` are in [`lwc_options`].
const BALANCED: usize = 0;
const ALP: usize = 2;

/// `f32` and `f64`, as this experiment uses them.
trait Float: Value<Sum = f64> + FloatPeers + Into<f64> + PartialOrd {
    /// The float nearest to the decimal `scaled / 10^decimals`: what parsing its text gives.
    fn from_decimal(scaled: i64, decimals: u32) -> Self;
}

impl Float for f64 {
    fn from_decimal(scaled: i64, decimals: u32) -> Self {
        // Exact below 2^53, and IEEE division rounds correctly: the double nearest to the decimal.
        scaled as f64 / 10f64.powi(decimals as i32)
    }
}

impl Float for f32 {
    fn from_decimal(scaled: i64, decimals: u32) -> Self {
        // Through `f64` the value would be rounded twice (to `f64`, then `f32`), which can miss the nearest `f32`.
        decimal_text(scaled, decimals).parse().expect("a decimal parses")
    }
}

/// `scaled / 10^decimals` written out (`-12.05` for `(-1205, 2)`).
fn decimal_text(scaled: i64, decimals: u32) -> String {
    let (sign, abs, unit) = (if scaled < 0 { "-" } else { "" }, scaled.unsigned_abs(), 10u64.pow(decimals));
    format!("{sign}{}.{:0width$}", abs / unit, abs % unit, width = decimals as usize)
}

/// What the goals read of a data set.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// TPC-H's decimals (2 digits after the point).
    Tpch,
    /// Uniformly random full-mantissa doubles.
    Random,
    /// Decimal origin, 3 digits, slowly changing.
    Sensor,
    /// Random `f32`s widened to `f64` (what `narrow` stores in four bytes).
    Widened,
}

/// A data set: its floats and, for data of decimal origin, the same values as scaled integers.
struct DataSet<T> {
    name: String,
    kind: Kind,
    values: Vec<T>,
    scaled: Option<Vec<i64>>,
}

impl<T: Float> DataSet<T> {
    fn decimal(name: &str, kind: Kind, scaled: Vec<i64>, decimals: u32) -> Self {
        let values = scaled.iter().map(|&s| T::from_decimal(s, decimals)).collect();
        DataSet { name: format!("{name} {}", T::TYPE.name()), kind, values, scaled: Some(scaled) }
    }
}

/// Every data set, in table order.
struct DataSets {
    /// TPC-H's prices as `f64`.
    doubles: Vec<DataSet<f64>>,
    /// The same as `f32`.
    singles: Vec<DataSet<f32>>,
    /// Random and sensor-like `f64`s.
    synthetic: Vec<DataSet<f64>>,
}

/// TPC-H's prices as `f64` and as `f32`, then the synthetic `f64` sets of `n` values.
fn data_sets(sf: f64, n: usize, seed: u64) -> DataSets {
    let prices = Tpch::new(sf).prices();
    let doubles = prices.iter().map(|(name, cents)| DataSet::decimal(name, Kind::Tpch, cents.clone(), 2)).collect();
    let singles = prices.into_iter().map(|(name, cents)| DataSet::decimal(name, Kind::Tpch, cents, 2)).collect();
    let mut rng = StdRng::seed_from_u64(seed);
    // 53 random bits scaled by 1,000: the mantissa's every bit is used.
    let random = (0..n).map(|_| rng.gen::<f64>() * 1000.0).collect();
    // A reading around 20.000 that moves by at most 0.010 a step.
    let mut milli = 20_000i64;
    let walk = (0..n)
        .map(|_| {
            milli += rng.gen_range(-10..=10);
            milli
        })
        .collect();
    // Random singles widened, one value in a thousand a full double (which no longer divides the rest).
    let widened = (0..n)
        .map(|i| if i % 1000 == 999 { rng.gen::<f64>() * 1000.0 } else { (rng.gen::<f32>() * 1000.0) as f64 })
        .collect();
    let synthetic = vec![
        DataSet { name: "uniform [0, 1000) f64".into(), kind: Kind::Random, values: random, scaled: None },
        DataSet { name: "uniform f32 widened, 0.1 % f64".into(), kind: Kind::Widened, values: widened, scaled: None },
        DataSet::decimal("sensor walk, 3 decimals", Kind::Sensor, walk, 3),
    ];
    DataSets { doubles, singles, synthetic }
}

/// The experiment's tables, filled a data set at a time.
struct Tables {
    bits: Table,
    kib: Table,
    chosen: Table,
    decode: Table,
    filter: Table,
}

/// What the goals need of one data set.
struct Outcome {
    name: String,
    kind: Kind,
    double: bool,
    plain: usize,
    balanced: Option<usize>,
    scaled: Option<usize>,
    /// `lwc alp`'s full decode into a buffer that stays in cache: values per second and its time as a
    /// ratio to a copy into it.
    alp_cached: Option<(f64, f64)>,
    /// Range filter + sum on the encoded form, as a ratio to decoding first (`lwc balanced`, `lwc alp`).
    fused: Vec<f64>,
}

pub fn run(cfg: &Config) -> Report {
    let progress = Progress::new("floats");
    let sf = cfg.scale.unwrap_or(DEFAULT_SCALE);
    let n = cfg.scaled(FULL, DEFAULT_SCALE, 1 << 10);
    progress.say(format!("generating TPC-H prices at scale factor {sf} and {n} synthetic values"));
    let DataSets { doubles, singles, synthetic } = data_sets(sf, n, cfg.seed);
    let names: Vec<&str> = lwc_options().map(|(name, _)| name).to_vec();
    let peer_names: Vec<&str> = peers::floats::<f64>().iter().map(|p| p.name()).collect();
    let mut sizes_header = vec!["data set", "values", "plain"];
    sizes_header.extend(&names);
    sizes_header.extend(&peer_names);
    sizes_header.push("scaled integers (lwc balanced, i64)");
    let mut bits_header = sizes_header.clone();
    bits_header.push("lwc balanced / scaled integers");
    let mut decode_header = vec!["data set", "plain copy"];
    decode_header.extend(&names);
    decode_header.extend(&peer_names);
    let mut tables = Tables {
        bits: Table::new(
            format!("floats: bits per value (and bytes as a ratio to plain), TPC-H SF {sf} and {n} synthetic values"),
            &bits_header,
        ),
        kib: Table::new("floats: encoded KB (1,024 bytes)", &sizes_header),
        chosen: Table::new(
            "floats: the cascades lwc wrote (explain), and on how many segments",
            &["data set", "lwc balanced", "lwc size", "lwc alp", "lwc alp_rd"],
        ),
        decode: Table::new(
            "floats: full decode on 1 thread, million values per second (time as a ratio to a plain copy)",
            &decode_header,
        ),
        filter: Table::new(
            format!(
                "floats: range filter + sum (`Between(lo, hi)`, about {:.0} % of the rows), time as a ratio to a plain array's filter + sum",
                SELECTIVITY * 100.0
            ),
            &[
                "data set",
                "selected",
                "plain filter + sum (absolute)",
                "lwc balanced: on the encoded form",
                "lwc balanced: decode, then filter + sum",
                "lwc alp: on the encoded form",
                "lwc alp: decode, then filter + sum",
            ],
        ),
    };
    let mut report = Report::default();
    let mut outcomes = Vec::new();
    let total = doubles.len() + singles.len() + synthetic.len();
    let say = |name: &str, done: usize| progress.say(format!("{name} ({}/{total})", done + 1));
    for set in &doubles {
        say(&set.name, outcomes.len());
        outcomes.push(measure(cfg, set, &mut tables, &mut report.records));
    }
    for set in &singles {
        say(&set.name, outcomes.len());
        outcomes.push(measure(cfg, set, &mut tables, &mut report.records));
    }
    for set in &synthetic {
        say(&set.name, outcomes.len());
        outcomes.push(measure(cfg, set, &mut tables, &mut report.records));
    }
    progress.done();
    notes(&mut tables);
    let goals = goals(&outcomes, &mut report.records);
    let Tables { bits, kib, chosen, decode, filter } = tables;
    report.tables.extend([bits, kib, chosen, decode, filter, goals]);
    report
}

/// Sizes, choices, decode speeds and the filter of one data set, each a row of its table.
fn measure<T: Float>(cfg: &Config, set: &DataSet<T>, tables: &mut Tables, records: &mut Vec<Record>) -> Outcome {
    let values = &set.values;
    let n = values.len();
    let plain = size_of_val(values.as_slice());
    let record = |codec: &str, measure: &str, value: f64, unit: &'static str, ratio_to_plain: Option<f64>| Record {
        experiment: "floats",
        data: set.name.clone(),
        codec: codec.into(),
        measure: measure.into(),
        value,
        unit,
        ratio_to_plain,
    };

    // Encode, and check every form decodes back bit for bit.
    let options = lwc_options();
    let encoded: Vec<Option<EncodedColumn>> =
        options.iter().map(|(_, o)| EncodedColumn::encode(values, None, o.clone()).ok()).collect();
    let columns: Vec<Option<Column<T>>> =
        encoded.iter().map(|e| e.as_ref().map(|e| e.open().expect("opens what it encoded"))).collect();
    let mut decoded = vec![T::default(); n];
    for ((name, _), column) in options.iter().zip(&columns) {
        if let Some(column) = column {
            column.decode_into(0, &mut decoded).expect("rows in range");
            assert!(same_bits(&decoded, values), "{name} did not decode {} bit for bit", set.name);
        }
    }
    let peers: Vec<Box<dyn Peer<T>>> = peers::floats::<T>();
    let peer_encoded: Vec<Option<Box<dyn PeerEncoded<T>>>> =
        peers.iter().map(|p| p.encode(values).filter(|e| peers::decodes_back(e.as_ref(), values))).collect();
    let scaled = set.scaled.as_ref().map(|s| {
        EncodedColumn::encode(s, None, EncodeOptions::default()).expect("auto encodes any integers").as_bytes().len()
    });

    // Sizes.
    let mut sizes: Vec<(&str, Option<usize>)> = vec![("plain", Some(plain))];
    sizes.extend(options.iter().zip(&encoded).map(|((name, _), e)| (*name, e.as_ref().map(|e| e.as_bytes().len()))));
    sizes.extend(peers.iter().zip(&peer_encoded).map(|(p, e)| (p.name(), e.as_ref().map(|e| e.bytes()))));
    sizes.push(("scaled integers", scaled));
    let bits = |bytes: usize| (8 * bytes) as f64 / n as f64;
    let mut bit_cells = vec![set.name.clone(), n.to_string()];
    let mut kib_cells = bit_cells.clone();
    for &(codec, bytes) in &sizes {
        let Some(bytes) = bytes else {
            bit_cells.push("-".into());
            kib_cells.push("-".into());
            continue;
        };
        bit_cells.push(format!("{:.2} ({:.3})", bits(bytes), bytes as f64 / plain as f64));
        kib_cells.push(format!("{:.1}", bytes as f64 / 1024.0));
        records.push(record(codec, "encoded size", bytes as f64, "bytes", None));
        records.push(record(codec, "bits per value", bits(bytes), "bits", None));
    }
    let balanced = sizes[1 + BALANCED].1;
    bit_cells.push(match (balanced, scaled) {
        (Some(b), Some(s)) => ratio(b as f64 / s as f64),
        _ => "-".into(),
    });
    tables.bits.row(bit_cells);
    tables.kib.row(kib_cells);
    let mut chosen = vec![set.name.clone()];
    chosen.extend(columns.iter().map(|c| c.as_ref().map_or("-".into(), codecs::explain)));
    tables.chosen.row(chosen);

    // Full decode, one thread, in rotation with a plain copy. Every candidate writes the same buffer: on this
    // kind of machine (a VM) where a buffer lies changes a stream's speed by up to 2x, which would otherwise
    // read as a difference between codecs.
    let out = RefCell::new(decoded);
    let out = &out;
    let mut candidates = vec![Candidate::new(|| out.borrow_mut().copy_from_slice(black_box(values)))];
    for column in columns.iter().flatten() {
        candidates.push(Candidate::new(move || {
            column.decode_into(0, black_box(&mut out.borrow_mut())).expect("rows in range")
        }));
    }
    for e in peer_encoded.iter().flatten() {
        candidates.push(Candidate::new(move || e.decode_into(black_box(&mut out.borrow_mut()))));
    }
    let mut timings = race(cfg.settings, &mut candidates).into_iter();
    let copy = timings.next().expect("the plain copy's timing");
    let present: Vec<(&str, bool)> = (options.iter().zip(&columns).map(|((name, _), c)| (*name, c.is_some())))
        .chain(peers.iter().zip(&peer_encoded).map(|(p, e)| (p.name(), e.is_some())))
        .collect();
    let timed: Vec<(&str, Option<Timing>)> =
        present.into_iter().map(|(name, encoded)| (name, encoded.then(|| timings.next()).flatten())).collect();
    let per_second = |ns: f64| n as f64 / ns * 1e9;
    let mut cells = vec![set.name.clone(), format!("{:.0}", per_second(copy.median_ns) / 1e6)];
    records.push(record("plain", "decompress, 1 thread", per_second(copy.median_ns) / 1e6, "M values/s", Some(1.0)));
    for (codec, timing) in &timed {
        let Some(t) = timing else {
            cells.push("-".into());
            continue;
        };
        cells.push(format!("{:.0} ({})", per_second(t.median_ns) / 1e6, ratio(t.ratio)));
        records.push(record(codec, "decompress, 1 thread", per_second(t.median_ns) / 1e6, "M values/s", Some(t.ratio)));
    }
    tables.decode.row(cells);

    // The same decode with the output in cache, as the ALP paper measures it: chunk after chunk into one
    // buffer of CACHED_CHUNK values, against a copy of the same chunks.
    let alp_cached = columns[ALP].as_ref().map(|column| {
        let chunk = RefCell::new(vec![T::default(); CACHED_CHUNK]);
        let chunk = &chunk;
        let mut candidates = vec![
            Candidate::new(|| {
                for part in values.chunks(CACHED_CHUNK) {
                    chunk.borrow_mut()[..part.len()].copy_from_slice(black_box(part));
                }
            }),
            Candidate::new(|| {
                for start in (0..n).step_by(CACHED_CHUNK) {
                    let len = (n - start).min(CACHED_CHUNK);
                    column.decode_into(start as u64, black_box(&mut chunk.borrow_mut()[..len])).expect("in range");
                }
            }),
        ];
        let t = race(cfg.settings, &mut candidates);
        records.push(record(
            "lwc alp",
            "decompress in cache, 1 thread",
            per_second(t[1].median_ns) / 1e6,
            "M values/s",
            Some(t[1].ratio),
        ));
        (per_second(t[1].median_ns), t[1].ratio)
    });

    // Range filter + sum.
    let (lo, hi) = bounds(values);
    let predicate = Predicate::Between(lo, hi);
    let (count, sum) = filter_sum(values, lo, hi);
    let range: std::ops::RangeInclusive<f64> = lo.into()..=hi.into();
    let magnitude: f64 = values.iter().map(|&v| v.into()).filter(|v| range.contains(v)).sum();
    let lwc: Vec<(&str, &Column<T>)> =
        [BALANCED, ALP].iter().filter_map(|&k| Some((options[k].0, columns[k].as_ref()?))).collect();
    for (name, column) in &lwc {
        let found = column.filter_aggregate(&predicate);
        let two_passes = column.aggregate(Some(&column.filter(&predicate))).expect("its own selection");
        assert_eq!((found.count, found.min, found.max), (two_passes.count, two_passes.min, two_passes.max));
        assert_eq!(found.count, count, "{name} on {}: rows in [{lo:?}, {hi:?}]", set.name);
        assert!((found.sum - sum).abs() <= 1e-9 * magnitude, "{name} on {}: {} vs {sum}", set.name, found.sum);
    }
    let mut candidates = vec![Candidate::new(|| {
        black_box(filter_sum(black_box(values), lo, hi));
    })];
    for (_, column) in &lwc {
        let predicate = &predicate;
        candidates.push(Candidate::new(move || {
            black_box(column.filter_aggregate(black_box(predicate)));
        }));
        candidates.push(Candidate::new(move || {
            let mut out = out.borrow_mut();
            column.decode_into(0, black_box(&mut out)).expect("rows in range");
            black_box(filter_sum(&out, lo, hi));
        }));
    }
    let t = race(cfg.settings, &mut candidates);
    let mut cells = vec![set.name.clone(), format!("{:.1} %", 100.0 * count as f64 / n as f64), time(t[0].median_ns)];
    records.push(record("plain", "filter + sum", t[0].median_ns, "ns", Some(1.0)));
    let mut t = t[1..].iter();
    let mut fused = Vec::new();
    for k in [BALANCED, ALP] {
        if columns[k].is_none() {
            cells.extend(["-".into(), "-".into()]);
            continue;
        }
        let mut pair = Vec::new();
        for how in ["filter + sum on the encoded form", "decode, then filter + sum"] {
            let timing = t.next().expect("a timing per candidate");
            cells.push(ratio(timing.ratio));
            records.push(record(options[k].0, how, timing.median_ns, "ns", Some(timing.ratio)));
            pair.push(timing.median_ns);
        }
        fused.push(pair[0] / pair[1]);
    }
    tables.filter.row(cells);

    Outcome {
        name: set.name.clone(),
        kind: set.kind,
        double: T::TYPE == f64::TYPE,
        plain,
        balanced,
        scaled,
        alp_cached,
        fused,
    }
}

/// Whether `a` and `b` hold the same floats bit for bit (`-0.0` is not `0.0`).
fn same_bits<T: Value>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_latent() == y.to_latent())
}

/// Bounds `[lo, hi]` around the median that hold about [`SELECTIVITY`] of the values: the quantiles that far
/// apart, or the median alone where that is closer (data of few distinct values, such as TPC-H's discounts).
fn bounds<T: Float>(values: &[T]) -> (T, T) {
    let mut sorted = values.to_vec();
    sorted.sort_unstable_by(|&a, &b| Into::<f64>::into(a).total_cmp(&b.into()));
    let at = |q: f64| sorted[((q * sorted.len() as f64) as usize).min(sorted.len() - 1)];
    let quantiles = (at(0.5 - SELECTIVITY / 2.0), at(0.5 + SELECTIVITY / 2.0));
    let median = (at(0.5), at(0.5));
    let miss = |(lo, hi): (T, T)| {
        let share = filter_sum(&sorted, lo, hi).0 as f64 / sorted.len() as f64;
        (share - SELECTIVITY).abs()
    };
    if miss(median) < miss(quantiles) {
        median
    } else {
        quantiles
    }
}

/// How many of `values` lie in `[lo, hi]`, and their sum: a plain loop over eight lanes, so the compiler keeps
/// several sums in flight and compares without branches.
fn filter_sum<T: Float>(values: &[T], lo: T, hi: T) -> (u64, f64) {
    const LANES: usize = 8;
    let (lo, hi): (f64, f64) = (lo.into(), hi.into());
    let (mut counts, mut sums) = ([0u64; LANES], [0.0f64; LANES]);
    let chunks = values.chunks_exact(LANES);
    let rest = chunks.remainder();
    for chunk in chunks {
        for k in 0..LANES {
            let v: f64 = chunk[k].into();
            let keep = (lo <= v) & (v <= hi);
            counts[k] += keep as u64;
            sums[k] += masked(v, keep);
        }
    }
    for (k, &v) in rest.iter().enumerate() {
        let v: f64 = v.into();
        let keep = (lo <= v) & (v <= hi);
        counts[k] += keep as u64;
        sums[k] += masked(v, keep);
    }
    (counts.iter().sum(), sums.iter().sum())
}

/// `v` where `keep`, else `+0.0`, by masking the bits: no branch for the compiler to keep.
#[inline(always)]
fn masked(v: f64, keep: bool) -> f64 {
    f64::from_bits(v.to_bits() & (keep as u64).wrapping_neg())
}

/// What each table measures.
fn notes(tables: &mut Tables) {
    tables.bits.note("Plain: the floats as an array (8 bytes a double, 4 a single). Sizes count everything a column needs: lwc's whole `EncodedColumn` (header, segment table, segments of 65,536 rows), pco's standalone file, zstd's blocks and their offsets. Scaled integers: the same decimals as `i64` hundredths (TPC-H) or thousandths (sensor), encoded with lwc's default objective; `-` where the data has no decimal origin or the codec did not encode.");
    tables.bits.note(
        "lwc balanced is the default objective (the smallest candidate unless one within 5 % reads much faster, or \
         one within 10 % at least 4x faster); lwc size always takes the smallest estimate; lwc alp and lwc alp_rd \
         force the float encoding on every segment, their child streams chosen by the selector.",
    );
    tables.kib.note("pco: `standalone::simple_compress` with its default configuration (level 8). zstd: level 3 over the values' little-endian bytes, in independent blocks of 64 KiB (the bench's zstd peer).");
    tables.decode.note("One thread, every candidate writing the same preallocated buffer (where a buffer lies in memory moves a decode's speed by up to 2x on this VM). lwc: `Column::decode_into`; pco: `simple_decompress_into`; zstd: its blocks into the buffer; plain: `copy_from_slice`. Ratios are medians of per-round ratios against the plain copy in the same rotation (2.00x: twice the copy's time). Every form was checked to decode bit for bit first.");
    tables.filter.note("Plain: a branch-free loop over the array with eight sums in flight, counting and summing the rows in `[lo, hi]`. On the encoded form: `Column::filter_aggregate(&Predicate::Between(lo, hi))` (count, sum, min and max in one pass: each block of 1,024 values is decoded into L1, tested and the matching values summed there; the answer is checked equal to `Column::filter` then `Column::aggregate`). Decode, then: `Column::decode_into` a preallocated buffer (the same for every candidate), then the plain loop. lo and hi are the data's 45th and 55th percentiles (or both the median, where that selects closer to 10 %); counts and sums were checked against the plain loop first.");
}

/// The goals, each computed from this run's figures.
fn goals(outcomes: &[Outcome], records: &mut Vec<Record>) -> Table {
    let mut table = Table::new("floats: the goals of issue 14, as measured in this run", &["goal", "measured", "met"]);
    let mut goal = |name: &str, measured: String, value: f64, unit: &'static str, met: bool| {
        table.row(vec![name.into(), measured, if met { "met" } else { "not met" }.into()]);
        records.push(Record {
            experiment: "floats",
            data: "goals".into(),
            codec: "lwc".into(),
            measure: name.into(),
            value,
            unit,
            ratio_to_plain: None,
        });
    };

    // Doubles of 2-digit decimal origin: lwc's default bytes over the scaled integers'.
    let prices: Vec<(&str, f64)> = outcomes
        .iter()
        .filter(|o| o.kind == Kind::Tpch && o.double)
        .map(|o| match (o.balanced, o.scaled) {
            (Some(b), Some(s)) => (o.name.as_str(), b as f64 / s as f64),
            _ => (o.name.as_str(), f64::NAN),
        })
        .collect();
    // A data set lwc did not encode (NaN) counts as the worst.
    let worst = prices.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap_or(("-", f64::NAN));
    let each: Vec<String> = prices.iter().map(|(name, r)| format!("{name} {r:.3}x")).collect();
    goal(
        &format!("doubles of 2-digit decimal origin within {SCALED_INTEGER_GOAL}x the bytes of scaled integers (lwc balanced)"),
        format!("worst {:.3}x ({}; {})", worst.1, worst.0, each.join(", ")),
        worst.1,
        "ratio",
        !prices.is_empty() && prices.iter().all(|p| p.1 <= SCALED_INTEGER_GOAL),
    );

    // Uniformly random doubles: lwc's default bytes over plain.
    let random: Vec<(&str, f64)> = outcomes
        .iter()
        .filter(|o| o.kind == Kind::Random)
        .map(|o| (o.name.as_str(), o.balanced.map_or(f64::NAN, |b| b as f64 / o.plain as f64)))
        .collect();
    let worst = random.iter().map(|r| r.1).max_by(f64::total_cmp).unwrap_or(f64::NAN);
    goal(
        &format!("uniformly random full-mantissa doubles at most {RANDOM_GOAL}x plain (lwc balanced)"),
        random.iter().map(|(name, r)| format!("{r:.3}x ({name})")).collect::<Vec<_>>().join(", "),
        worst,
        "ratio",
        !random.is_empty() && random.iter().all(|r| r.1 <= RANDOM_GOAL),
    );

    // `alp` decode speed on the doubles of decimal origin, one core: the slowest data set.
    let decodes: Vec<(&str, f64, f64)> = outcomes
        .iter()
        .filter(|o| o.double && matches!(o.kind, Kind::Tpch | Kind::Sensor))
        .map(|o| {
            let (rate, r) = o.alp_cached.unwrap_or((f64::NAN, f64::NAN));
            (o.name.as_str(), rate, r)
        })
        .collect();
    // A data set alp did not encode (NaN) counts as the slowest.
    let slowest = decodes
        .iter()
        .copied()
        .min_by(|a, b| {
            let key = |rate: f64| if rate.is_nan() { f64::NEG_INFINITY } else { rate };
            key(a.1).total_cmp(&key(b.1))
        })
        .unwrap_or(("-", f64::NAN, f64::NAN));
    let each: Vec<String> = decodes.iter().map(|(name, rate, _)| format!("{name} {:.2}", rate / 1e9)).collect();
    goal(
        &format!(
            "alp decodes at least {:.0} billion values/s per core (forced alp, doubles of decimal origin, output in cache)",
            DECODE_GOAL / 1e9
        ),
        format!(
            "slowest {:.2} billion/s, {} the time of a copy in cache ({}; all: {})",
            slowest.1 / 1e9,
            ratio(slowest.2),
            slowest.0,
            each.join(", ")
        ),
        slowest.1,
        "values/s",
        !decodes.is_empty() && decodes.iter().all(|d| d.1 >= DECODE_GOAL),
    );
    // Filter + sum on the encoded form against decoding first: every data set, both lwc columns.
    let fused: Vec<(&str, f64)> =
        outcomes.iter().map(|o| (o.name.as_str(), o.fused.iter().copied().fold(f64::NAN, f64::max))).collect();
    let worst = fused.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap_or(("-", f64::NAN));
    goal(
        "range filter + sum on the encoded form faster than decoding first (lwc balanced and lwc alp, every data set)",
        format!("worst {:.2}x the time of decoding first ({})", worst.1, worst.0),
        worst.1,
        "ratio",
        !fused.is_empty() && fused.iter().all(|f| f.1 < 1.0),
    );
    table.note("Computed from this run: the first two from the sizes (lwc's default objective, `balanced`); the third from forced `alp` on one thread decoding chunk after chunk of 16,384 values into one buffer that stays in cache (as the ALP paper measures decoding), over every `f64` data set of decimal origin, the slowest counting (the decode table above writes a buffer in memory instead, where no decoder can outrun the copy); the fourth from the filter table. Absolute speeds depend on the machine (see its line at the top); the ratio to a plain copy travels better.");
    table
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::measure::Settings;

    #[test]
    fn decimals_are_the_nearest_floats() {
        assert_eq!(decimal_text(-1205, 2), "-12.05");
        assert_eq!(decimal_text(7, 3), "0.007");
        for scaled in (0..200_000i64).step_by(7).chain([9_999_999_999, -1, 10_494_950]) {
            let text = decimal_text(scaled, 2);
            assert_eq!(f64::from_decimal(scaled, 2), text.parse::<f64>().unwrap(), "{text}");
            assert_eq!(f32::from_decimal(scaled, 2), text.parse::<f32>().unwrap(), "{text}");
        }
    }

    #[test]
    fn filter_sum_counts_the_range() {
        let values: Vec<f64> = (0..1001).map(|v| v as f64 / 4.0).collect();
        assert_eq!(filter_sum(&values, 1.0, 2.0), (5, 7.5));
        let (lo, hi) = bounds(&values);
        let (count, _) = filter_sum(&values, lo, hi);
        assert!((95..=110).contains(&count), "{count} in [{lo}, {hi}]");
    }

    #[test]
    fn a_tiny_run_has_every_row_and_goal() {
        let cfg = Config {
            scale: Some(0.001),
            settings: Settings { rounds: 1, min_batch: Duration::from_micros(10) },
            explicit_rounds: None,
            threads: 1,
            seed: 7,
        };
        // `run` asserts that every form decodes bit for bit and that filters agree with the plain loop.
        let report = run(&cfg);
        assert_eq!(report.tables.len(), 6);
        let text: Vec<String> = report.tables.iter().map(Table::render).collect();
        for set in ["l_extendedprice f64", "l_discount f64", "l_tax f64", "o_totalprice f64", "o_totalprice f32"] {
            assert!(text[..5].iter().all(|t| t.contains(&format!("| {set} |"))), "{set}");
        }
        for set in ["uniform [0, 1000) f64", "sensor walk, 3 decimals f64"] {
            assert!(text[..5].iter().all(|t| t.contains(&format!("| {set} |"))), "{set}");
        }
        let verdicts = text[5].lines().filter(|l| !l.starts_with("| goal |") && l.ends_with(" met |")).count();
        assert_eq!(verdicts, 4, "{}", text[5]);
        // Forced alp writes alp on every segment, its digits through the integer encodings.
        assert!(text[2].contains("alp("), "{}", text[2]);
        let goal_records = report.records.iter().filter(|r| r.data == "goals").count();
        assert_eq!(goal_records, 4);
        assert!(report.records.iter().any(|r| r.codec == "pco" && r.measure == "encoded size"));
    }
}
