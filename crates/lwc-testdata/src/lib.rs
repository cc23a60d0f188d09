//! # lwc-testdata: the tables users bring, generated
//!
//! Seeded generators (the same seed gives the same table on every machine) for the shapes real tables
//! have and property tests tend to miss: nullable clock times with missing values in runs, negative
//! delays, ids with gaps, flags, dates, timestamps as text and as timestamps, prices as decimals and as
//! floats, free text with empty, quoted and very long strings, NaN and infinities, all-null and constant
//! columns, one-row and empty tables, and columns of 2^16 − 1, 2^16 and 2^16 + 1 rows around lwc's segment
//! size. Every integer type appears. Used by the tests of `lwc-file` and `lwc-cli` (which push each table
//! through the `lwc` command as CSV, Parquet and Arrow IPC) and by the corruption campaigns.
//!
//! ```
//! let tables = lwc_testdata::corpus();
//! assert!(tables.iter().any(|t| t.name == "flights"));
//! let flights = lwc_testdata::flights(1_000, 1);
//! assert_eq!(flights.num_rows(), 1_000);
//! assert!(flights.column_by_name("dep_time").unwrap().null_count() > 0);
//! ```

pub mod exercise;
pub mod mutate;
pub mod panics;
pub mod shapes;
pub mod timing;

use std::sync::Arc;

use arrow_array::types::Float16Type;
use arrow_array::*;
use arrow_schema::{Field, Schema};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The integer cascades the corruption campaigns and the fuzz targets encode: every registered encoding at
/// its default parameter, from lwc's registry (so a new encoding is covered without being named here),
/// `auto`, other parameters that change the layout, and nested cascades such as the selector writes.
///
/// ```
/// let cascades = lwc_testdata::cascades();
/// assert!(cascades.iter().any(|c| c == "radix") && cascades.iter().any(|c| c == "rle(delta(dict), delta)"));
/// assert!(cascades.iter().all(|c| c.parse::<lwc::Cascade>().is_ok()));
/// ```
pub fn cascades() -> Vec<String> {
    let mut all: Vec<String> = lwc::EncodingId::ALL.iter().map(|id| id.name().to_string()).collect();
    all.extend(
        [
            "auto",
            "for_n:16",
            "delta:16",
            "delta2:4",
            "delta2:8",
            "dict(for_n:16)",
            "dict(rle)",
            "gcd(pfor)",
            "gcd(pfor(plain, varint))",
            "delta:16(dict, delta:16)",
            "rle(sequence, sequence)",
            "rle(delta(dict), delta)",
            "pfor(for, bitpack)",
            "alp(for, plain, plain)",
        ]
        .map(String::from),
    );
    all
}

/// A named table of the corpus.
pub struct Table {
    /// A short name, usable as a file stem.
    pub name: &'static str,
    /// The rows.
    pub batch: RecordBatch,
}

/// Every table of the corpus, at sizes that keep a debug-build test run short: the realistic tables at a
/// few thousand rows, one-row and empty tables, and three tables around the 2^16-row segment boundary.
pub fn corpus() -> Vec<Table> {
    vec![
        Table { name: "flights", batch: flights(3_000, 1) },
        Table { name: "orders", batch: orders(2_000, 2) },
        Table { name: "sensors", batch: sensors(2_500, 3) },
        Table { name: "one_row", batch: orders(1, 4) },
        Table { name: "empty", batch: orders(0, 5) },
        Table { name: "rows_65535", batch: boundary((1 << 16) - 1, 6) },
        Table { name: "rows_65536", batch: boundary(1 << 16, 7) },
        Table { name: "rows_65537", batch: boundary((1 << 16) + 1, 8) },
    ]
}

/// Builds a batch from named columns, each nullable.
fn table(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
    let fields: Vec<Field> = columns.iter().map(|(name, a)| Field::new(*name, a.data_type().clone(), true)).collect();
    let arrays = columns.into_iter().map(|(_, a)| a).collect();
    let options = RecordBatchOptions::new().with_row_count(None);
    RecordBatch::try_new_with_options(Arc::new(Schema::new(fields)), arrays, &options).expect("columns of one length")
}

/// Missing values the way real tables have them: mostly scattered, some in runs (a day of cancelled
/// flights), at the given rate.
fn missing(rows: usize, rate: f64, rng: &mut StdRng) -> Vec<bool> {
    let mut out = vec![false; rows];
    let mut i = 0;
    while i < rows {
        if rng.gen_bool(rate) {
            let run = if rng.gen_bool(0.1) { rng.gen_range(2..40) } else { 1 };
            for m in out.iter_mut().skip(i).take(run) {
                *m = true;
            }
            i += run;
        } else {
            i += 1;
        }
    }
    out
}

/// A clock time `HHMM` (1 ..= 2400, as the flights data writes midnight).
fn clock(minutes: i64) -> i64 {
    let m = minutes.rem_euclid(24 * 60);
    let hhmm = (m / 60) * 100 + m % 60;
    if hhmm == 0 {
        2400
    } else {
        hhmm
    }
}

const CARRIERS: [&str; 16] =
    ["UA", "AA", "B6", "DL", "EV", "MQ", "US", "WN", "VX", "FL", "AS", "9E", "F9", "HA", "YV", "OO"];
const AIRPORTS: [&str; 12] = ["EWR", "LGA", "JFK", "IAH", "MIA", "ATL", "ORD", "LAX", "SFO", "BOS", "DEN", "SEA"];

/// A flights table shaped like the public New York flights data (336,776 rows, 19 columns) that once broke
/// `lwc compress`: clock times 1–2400 with 2.5 % missing (some in runs), negative delays, carrier and
/// airport codes, tail numbers with nulls, times as text and as timestamps. Rows come ordered by day and
/// scheduled departure, as in the original.
pub fn flights(rows: usize, seed: u64) -> RecordBatch {
    let mut rng = StdRng::seed_from_u64(seed);
    let cancelled = missing(rows, 0.025, &mut rng);
    let per_day = (rows / 365).max(1);
    let mut cols: Vec<Vec<Option<i64>>> = (0..12).map(|_| Vec::with_capacity(rows)).collect();
    let (mut carrier, mut tailnum, mut origin, mut dest, mut text_time, mut ts) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    for i in 0..rows {
        let day_of_year = (i / per_day).min(364) as i64;
        let (month, day) = month_day(day_of_year);
        let sched = 5 * 60 + ((i % per_day) as i64 * 19 * 60) / per_day as i64;
        let delay = if rng.gen_bool(0.6) { -rng.gen_range(0..25) } else { rng.gen_range(0..300) };
        let air = rng.gen_range(20..600);
        let gone = cancelled[i];
        let hour = sched / 60;
        let values = [
            Some(2013),
            Some(month),
            Some(day),
            (!gone).then(|| clock(sched + delay)),
            Some(clock(sched)),
            (!gone).then_some(delay),
            (!gone).then(|| clock(sched + delay + air)),
            Some(clock(sched + air)),
            (!gone).then(|| delay + rng.gen_range(-20..20)),
            Some(rng.gen_range(1..8_000)),
            (!gone).then_some(air),
            Some(air * 8),
        ];
        for (c, v) in cols.iter_mut().zip(values) {
            c.push(v);
        }
        carrier.push(CARRIERS[rng.gen_range(0..CARRIERS.len())]);
        tailnum.push(
            (!rng.gen_bool(0.01)).then(|| format!("N{}{}", rng.gen_range(100..1_000), ["UA", "AA", "JB"][i % 3])),
        );
        origin.push(AIRPORTS[rng.gen_range(0..3)]);
        dest.push(AIRPORTS[rng.gen_range(3..AIRPORTS.len())]);
        let epoch = 1_356_998_400 + day_of_year * 86_400 + hour * 3_600 + 5 * 3_600;
        text_time.push(format!("2013-{month:02}-{day:02}T{:02}:00:00Z", (hour + 5) % 24));
        ts.push(epoch * 1_000_000);
    }
    let int = |c: &Vec<Option<i64>>| -> ArrayRef { Arc::new(Int64Array::from(c.clone())) };
    let names =
        ["year", "month", "day", "dep_time", "sched_dep_time", "dep_delay", "arr_time", "sched_arr_time", "arr_delay"];
    let mut columns: Vec<(&str, ArrayRef)> = names.iter().zip(&cols).map(|(n, c)| (*n, int(c))).collect();
    columns.push(("carrier", Arc::new(StringArray::from(carrier))));
    columns.push(("flight", int(&cols[9])));
    columns.push(("tailnum", Arc::new(StringArray::from(tailnum))));
    columns.push(("origin", Arc::new(StringArray::from(origin))));
    columns.push(("dest", Arc::new(StringArray::from(dest))));
    columns.push(("air_time", int(&cols[10])));
    columns.push(("distance", int(&cols[11])));
    columns.push(("time_hour", Arc::new(StringArray::from(text_time))));
    columns.push(("time_hour_ts", Arc::new(TimestampMicrosecondArray::from(ts).with_timezone("UTC"))));
    table(columns)
}

fn month_day(day_of_year: i64) -> (i64, i64) {
    const DAYS: [i64; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let mut d = day_of_year;
    for (m, &len) in DAYS.iter().enumerate() {
        if d < len {
            return (m as i64 + 1, d + 1);
        }
        d -= len;
    }
    (12, 31)
}

/// Words for free text.
const WORDS: [&str; 24] = [
    "furiously",
    "regular",
    "deposits",
    "sleep",
    "quickly",
    "ironic",
    "packages",
    "boost",
    "carefully",
    "final",
    "accounts",
    "haggle",
    "blithely",
    "express",
    "requests",
    "cajole",
    "pending",
    "theodolites",
    "según",
    "naïve",
    "日本",
    "slyly",
    "\"quoted\"",
    "a,b",
];

/// Free text: a few words, sometimes empty, rarely very long (up to 20 KB), with quotes, commas, a newline
/// now and then, and non-ASCII letters.
fn comment(rng: &mut StdRng) -> String {
    match rng.gen_range(0..100) {
        0..=4 => String::new(),
        5 => {
            (0..rng.gen_range(1_000..3_000)).map(|_| WORDS[rng.gen_range(0..WORDS.len())]).collect::<Vec<_>>().join(" ")
        }
        6 => "line one\nline two".to_string(),
        _ => (0..rng.gen_range(2..12)).map(|_| WORDS[rng.gen_range(0..WORDS.len())]).collect::<Vec<_>>().join(" "),
    }
}

/// An orders table: ids with gaps, customer keys, status flags with nulls, dates, prices as decimals and as
/// floats, discounts as `f32`, a nullable boolean, free text, and a column that is entirely null.
pub fn orders(rows: usize, seed: u64) -> RecordBatch {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut id = 0i64;
    let ids: Vec<i64> = (0..rows)
        .map(|_| {
            id += if rng.gen_bool(0.9) { 1 } else { rng.gen_range(2..50) };
            id
        })
        .collect();
    let cents: Vec<i64> = (0..rows).map(|_| rng.gen_range(90_000..50_000_000)).collect();
    let status: Vec<Option<&str>> =
        (0..rows).map(|_| (!rng.gen_bool(0.03)).then(|| ["O", "F", "P"][rng.gen_range(0..3)])).collect();
    let dates: Vec<i32> = (0..rows).map(|_| rng.gen_range(8_035..10_591)).collect(); // 1992-01-01 .. 1998-12-31
    table(vec![
        ("o_id", Arc::new(Int64Array::from(ids))),
        ("o_custkey", Arc::new(UInt32Array::from_iter_values((0..rows).map(|_| rng.gen_range(1..150_000))))),
        ("o_status", Arc::new(StringArray::from(status))),
        ("o_date", Arc::new(Date32Array::from(dates))),
        (
            "o_price",
            Arc::new(
                Decimal128Array::from_iter_values(cents.iter().map(|&c| c as i128))
                    .with_precision_and_scale(12, 2)
                    .expect("valid precision"),
            ),
        ),
        ("o_price_f64", Arc::new(Float64Array::from_iter_values(cents.iter().map(|&c| c as f64 / 100.0)))),
        (
            "o_discount",
            Arc::new(Float32Array::from_iter_values((0..rows).map(|_| rng.gen_range(0..=10) as f32 / 100.0))),
        ),
        ("o_urgent", Arc::new(BooleanArray::from_iter((0..rows).map(|i| (i % 17 != 3).then(|| rng.gen_bool(0.2)))))),
        ("o_comment", Arc::new(StringArray::from_iter_values((0..rows).map(|_| comment(&mut rng))))),
        ("o_unused", Arc::new(Int32Array::from(vec![None; rows]))),
    ])
}

/// Sensor readings: timestamps with a time zone and jitter, small device ids, doubles with NaN, ±0.0,
/// ±inf and subnormals, `f32` and `f16` readings, every integer width signed and unsigned with their
/// extremes, a constant column and a column with a single non-null value.
pub fn sensors(rows: usize, seed: u64) -> RecordBatch {
    let mut rng = StdRng::seed_from_u64(seed);
    let specials = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 0.0, f64::MIN_POSITIVE / 4.0, f64::MAX];
    let temps: Vec<Option<f64>> = (0..rows)
        .map(|i| match i % 97 {
            0 => None,
            k if k < specials.len() + 1 => Some(specials[k - 1]),
            _ => Some((rng.gen_range(-400..400) as f64) / 10.0),
        })
        .collect();
    table(vec![
        (
            "ts",
            Arc::new(
                TimestampMillisecondArray::from_iter_values(
                    (0..rows as i64).map(|i| 1_700_000_000_000 + i * 1_000 + rng.gen_range(-3..=3)),
                )
                .with_timezone("Europe/Oslo"),
            ),
        ),
        ("device", Arc::new(UInt16Array::from_iter_values((0..rows).map(|_| rng.gen_range(1..20))))),
        ("temp", Arc::new(Float64Array::from(temps))),
        (
            "humidity",
            Arc::new(Float32Array::from_iter(
                (0..rows).map(|i| (i % 50 != 1).then(|| rng.gen_range(0..1_000) as f32 / 10.0)),
            )),
        ),
        (
            "f16",
            Arc::new(PrimitiveArray::<Float16Type>::from_iter_values(
                (0..rows).map(|i| half::f16::from_f32((i % 64) as f32 * 0.5)),
            )),
        ),
        ("level", Arc::new(Int8Array::from_iter_values((0..rows).map(|i| [i8::MIN, -1, 0, 7, i8::MAX][i % 5])))),
        ("code", Arc::new(Int16Array::from_iter((0..rows).map(|i| (i % 13 != 0).then(|| rng.gen_range(-300..300)))))),
        ("delta", Arc::new(Int32Array::from_iter_values((0..rows).map(|_| rng.gen_range(-1_000_000..1_000_000))))),
        ("flag", Arc::new(UInt8Array::from_iter_values((0..rows).map(|i| u8::from(i % 9 == 0))))),
        (
            "counter",
            Arc::new(UInt64Array::from_iter_values((0..rows as u64).map(|i| u64::MAX - 1_000 * (rows as u64 - i)))),
        ),
        (
            "extremes",
            Arc::new(Int64Array::from_iter((0..rows).map(|i| match i % 4 {
                0 => Some(i64::MIN),
                1 => Some(i64::MAX),
                2 => None,
                _ => Some(0),
            }))),
        ),
        ("small_u32", Arc::new(UInt32Array::from_iter_values((0..rows).map(|i| (i % 3) as u32)))),
        ("constant", Arc::new(Int64Array::from_iter_values((0..rows).map(|_| 42)))),
        ("lonely", Arc::new(Int64Array::from_iter((0..rows).map(|i| (i == rows / 2).then_some(-7))))),
    ])
}

/// A table of exactly `rows` rows (meant for 2^16 − 1, 2^16 and 2^16 + 1): a sequence, a value with nulls at
/// the first and last row of every segment and around 2^16, a category, and text.
pub fn boundary(rows: usize, seed: u64) -> RecordBatch {
    let mut rng = StdRng::seed_from_u64(seed);
    let at_edge = |i: usize| i == 0 || i + 1 == rows || (65_534..=65_537).contains(&i);
    table(vec![
        ("id", Arc::new(Int64Array::from_iter_values(0..rows as i64))),
        ("value", Arc::new(Int32Array::from_iter((0..rows).map(|i| (!at_edge(i)).then(|| rng.gen_range(-50..50)))))),
        ("category", Arc::new(StringArray::from_iter((0..rows).map(|i| (!at_edge(i)).then(|| AIRPORTS[i % 5]))))),
        ("minute", Arc::new(UInt8Array::from_iter_values((0..rows).map(|i| (i % 60) as u8)))),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_the_same_for_the_same_seed() {
        assert_eq!(flights(500, 9), flights(500, 9));
        assert_eq!(orders(500, 9), orders(500, 9));
        assert_ne!(sensors(500, 9), sensors(500, 10));
    }

    #[test]
    fn the_corpus_has_the_shapes_it_promises() {
        let tables = corpus();
        let rows: Vec<usize> = tables.iter().map(|t| t.batch.num_rows()).collect();
        assert!(rows.contains(&0) && rows.contains(&1) && rows.contains(&65_535) && rows.contains(&65_537));
        let f = flights(3_000, 1);
        let dep = f.column_by_name("dep_time").unwrap();
        let share = dep.null_count() as f64 / f.num_rows() as f64;
        assert!((0.01..0.06).contains(&share), "{share}");
        let o = orders(2_000, 2);
        assert_eq!(o.column_by_name("o_unused").unwrap().null_count(), 2_000);
        let text = o.column_by_name("o_comment").unwrap().as_any().downcast_ref::<StringArray>().unwrap().clone();
        assert!(text.iter().any(|t| t == Some("")) && text.iter().any(|t| t.is_some_and(|t| t.len() > 5_000)));
    }
}
