//! The realistic-table corpus (`lwc-testdata`) through the `lwc` command, as users run it: every table is
//! written as CSV, Parquet and Arrow IPC, compressed with `lwc compress`, checked with `lwc inspect
//! --verify`, decompressed and compared exactly with what the command read, and queried with `lwc get`
//! and `lwc scan`, whose answers are compared with a plain computation on the same rows.
//!
//! Every input format runs under the default objective; the Parquet input (whose types reach lwc
//! unchanged) also runs under every other objective and under `--memory-budget`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::common::*;
use arrow::array::{Array, ArrayRef, AsArray, RecordBatch, UInt64Array};
use arrow::datatypes::{
    DataType, Field, Int16Type, Int32Type, Int64Type, Int8Type, Schema, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};

/// The objectives a user can name (the default, balanced, runs for every input format).
const OBJECTIVES: [&str; 4] = ["size", "scan", "random", "scan=1,get=0.1"];

/// Writes `batch` in every input format the command reads; returns each file with what the command will
/// see in it (CSV loses types: its schema is inferred as the command infers it).
fn inputs(dir: &Path, name: &str, batch: &RecordBatch) -> Vec<(PathBuf, RecordBatch)> {
    let csv = dir.join(format!("{name}.csv"));
    let parquet = dir.join(format!("{name}.parquet"));
    let ipc = dir.join(format!("{name}.arrow"));
    write_csv(&csv, batch);
    write_parquet(&parquet, batch);
    write_ipc_file(&ipc, batch);
    let seen = |path: &Path| read_back(path);
    vec![(csv.clone(), seen(&csv)), (parquet.clone(), seen(&parquet)), (ipc, batch.clone())]
}

/// `lwc get --csv` for `rows`, and what it must print: the same rows taken from `want` by Arrow and written
/// by Arrow's CSV writer.
fn check_get(file: &Path, want: &RecordBatch, rows: &[u64], what: &str) {
    let list: Vec<String> = rows.iter().map(u64::to_string).collect();
    let printed = ok(&["get", p(file), "--rows", &list.join(","), "--csv"]);
    let indices = UInt64Array::from(rows.to_vec());
    let mut fields = vec![Field::new("row", DataType::UInt64, false)];
    let mut columns: Vec<ArrayRef> = vec![Arc::new(indices.clone())];
    for (field, column) in want.schema().fields().iter().zip(want.columns()) {
        fields.push(field.as_ref().clone());
        columns.push(arrow::compute::take(column.as_ref(), &indices, None).unwrap());
    }
    let expected = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap();
    let mut text = Vec::new();
    arrow::csv::WriterBuilder::new().with_header(true).build(&mut text).write(&expected).unwrap();
    assert_eq!(printed, String::from_utf8(text).unwrap(), "{what}: lwc get --rows {}", list.join(","));
}

/// A column's values as `i128` (`None` for nulls), for the integer types `lwc scan` reads as plain numbers.
fn integers(column: &ArrayRef) -> Option<Vec<Option<i128>>> {
    macro_rules! ints {
        ($t:ty) => {
            column.as_primitive::<$t>().iter().map(|v| v.map(|v| v as i128)).collect()
        };
    }
    Some(match column.data_type() {
        DataType::Int8 => ints!(Int8Type),
        DataType::Int16 => ints!(Int16Type),
        DataType::Int32 => ints!(Int32Type),
        DataType::Int64 => ints!(Int64Type),
        DataType::UInt8 => ints!(UInt8Type),
        DataType::UInt16 => ints!(UInt16Type),
        DataType::UInt32 => ints!(UInt32Type),
        DataType::UInt64 => ints!(UInt64Type),
        _ => return None,
    })
}

/// The value printed after `key: ` in `lwc scan`'s output.
fn field<'a>(output: &'a str, key: &str) -> &'a str {
    output
        .lines()
        .find_map(|l| l.strip_prefix(key).and_then(|l| l.strip_prefix(": ")))
        .unwrap_or_else(|| panic!("no '{key}' in {output}"))
}

/// Whether a row's value passes a condition.
type Keep = Box<dyn Fn(Option<i128>) -> bool>;

/// Whether a non-null text value passes a condition.
type KeepText<'a> = Box<dyn Fn(&str) -> bool + 'a>;

/// `lwc scan` of every integer column under conditions drawn from its values, against a plain filter, sum,
/// min and max of the same rows.
fn check_scans(file: &Path, want: &RecordBatch, what: &str) {
    for (field_def, column) in want.schema().fields().iter().zip(want.columns()) {
        let Some(values) = integers(column) else { continue };
        let name = field_def.name();
        let present: Vec<i128> = values.iter().flatten().copied().collect();
        let mut sorted = present.clone();
        sorted.sort_unstable();
        let pick = |q: usize| sorted.get(sorted.len() * q / 4).copied().unwrap_or(7);
        let (lo, mid, hi) = (pick(1), pick(2), pick(3));
        let conditions: Vec<(String, Keep)> = vec![
            ("is not null".into(), Box::new(|v: Option<i128>| v.is_some())),
            ("is null".into(), Box::new(|v: Option<i128>| v.is_none())),
            (format!("> {mid}"), Box::new(move |v: Option<i128>| v.is_some_and(|v| v > mid))),
            (format!("<= {lo}"), Box::new(move |v: Option<i128>| v.is_some_and(|v| v <= lo))),
            (format!("= {hi}"), Box::new(move |v: Option<i128>| v == Some(hi))),
            (format!("<> {mid}"), Box::new(move |v: Option<i128>| v.is_some_and(|v| v != mid))),
            (
                format!("between {lo} and {hi}"),
                Box::new(move |v: Option<i128>| v.is_some_and(|v| (lo..=hi).contains(&v))),
            ),
            (
                format!("in ({lo}, {hi}, -3)"),
                Box::new(move |v: Option<i128>| v.is_some_and(|v| [lo, hi, -3].contains(&v))),
            ),
        ];
        for (condition, keep) in conditions {
            let out = ok(&["scan", p(file), "--column", name, "--where", &condition, "--sum", "--min", "--max"]);
            let picked: Vec<Option<i128>> = values.iter().copied().filter(|&v| keep(v)).collect();
            let nums: Vec<i128> = picked.iter().flatten().copied().collect();
            let show = |v: Option<&i128>| v.map_or("NULL".to_string(), i128::to_string);
            let what = format!("{what}: lwc scan {name} --where '{condition}'");
            assert_eq!(field(&out, "count"), picked.len().to_string(), "{what}\n{out}");
            assert_eq!(field(&out, "sum"), (nums.iter().sum::<i128>()).to_string(), "{what}\n{out}");
            assert_eq!(field(&out, "min"), show(nums.iter().min()), "{what}\n{out}");
            assert_eq!(field(&out, "max"), show(nums.iter().max()), "{what}\n{out}");
        }
    }
}

/// `lwc scan` of every text and float column under conditions drawn from its values, against the same
/// conditions computed on the plain values: counts, and for text the smallest and largest value selected.
fn check_text_and_float_scans(file: &Path, want: &RecordBatch, what: &str) {
    for (field_def, column) in want.schema().fields().iter().zip(want.columns()) {
        let name = field_def.name();
        let scan = |condition: &str| ok(&["scan", p(file), "--column", name, "--where", condition, "--min", "--max"]);
        match column.data_type() {
            DataType::Utf8 => {
                let values: Vec<Option<&str>> = column.as_string::<i32>().iter().collect();
                let mut present: Vec<&str> = values.iter().flatten().copied().collect();
                present.sort_unstable();
                let Some(&mid) = present.get(present.len() / 2) else { continue };
                let quoted = |v: &str| format!("'{}'", v.replace('\'', "''"));
                let prefix: String = mid.chars().take(2).collect();
                let conditions: Vec<(String, KeepText<'_>)> = vec![
                    (format!("= {}", quoted(mid)), Box::new(move |v| v == mid)),
                    (format!(">= {}", quoted(mid)), Box::new(move |v| v >= mid)),
                    (format!("< {}", quoted(mid)), Box::new(move |v| v < mid)),
                    (
                        format!("like {}", quoted(&format!("{prefix}%"))),
                        Box::new(move |v| v.starts_with(prefix.as_str())),
                    ),
                ];
                for (condition, keep) in conditions {
                    let out = scan(&condition);
                    let what = format!("{what}: lwc scan {name} --where \"{condition}\"");
                    let picked: Vec<&str> = present.iter().copied().filter(|v| keep(v)).collect();
                    assert_eq!(field(&out, "count"), picked.len().to_string(), "{what}\n{out}");
                    if let (Some(lo), Some(hi)) = (picked.first(), picked.last()) {
                        assert_eq!(field(&out, "min"), *lo, "{what}\n{out}");
                        assert_eq!(field(&out, "max"), *hi, "{what}\n{out}");
                    }
                }
                let nulls = values.iter().filter(|v| v.is_none()).count();
                assert_eq!(field(&scan("is null"), "count"), nulls.to_string(), "{what}: {name} is null");
            }
            DataType::Float64 => {
                let values = column.as_primitive::<arrow::datatypes::Float64Type>();
                let mut present: Vec<f64> = values.iter().flatten().filter(|v| !v.is_nan()).collect();
                present.sort_unstable_by(f64::total_cmp);
                let Some(&mid) = present.get(present.len() / 2) else { continue };
                // Arrow's order, which lwc follows: NaN above every number, -0 below +0.
                let cmp = move |v: f64| v.total_cmp(&mid);
                for (condition, keep) in [
                    (format!("> {mid}"), Box::new(move |v: f64| cmp(v).is_gt()) as Box<dyn Fn(f64) -> bool>),
                    (format!("<= {mid}"), Box::new(move |v: f64| cmp(v).is_le())),
                    (format!("= {mid}"), Box::new(move |v: f64| cmp(v).is_eq())),
                    ("= NaN".to_string(), Box::new(|v: f64| v.is_nan())),
                ] {
                    let out = scan(&condition);
                    let count = values.iter().flatten().filter(|&v| keep(v)).count();
                    assert_eq!(field(&out, "count"), count.to_string(), "{what}: {name} {condition}\n{out}");
                }
            }
            _ => {}
        }
    }
}

/// Compresses `input` with `flags`, verifies, decompresses and compares with `want`; returns the file.
fn round_trip(dir: &Path, input: &Path, want: &RecordBatch, flags: &[&str], what: &str) -> PathBuf {
    let tag: String = flags.join("_").chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    let stem = input.file_name().unwrap().to_string_lossy().replace('.', "_");
    let lwc_file = dir.join(format!("{stem}{tag}.lwc"));
    let back = dir.join(format!("{stem}{tag}_back.arrow"));
    let mut args = vec!["compress", p(input), "-o", p(&lwc_file), "--quiet"];
    args.extend_from_slice(flags);
    ok(&args);
    let inspect = ok(&["inspect", p(&lwc_file), "--verify"]);
    assert!(inspect.contains("total"), "{what}: {inspect}");
    ok(&["decompress", p(&lwc_file), "-o", p(&back), "--quiet"]);
    assert_same(&read_back(&back), want, what);
    lwc_file
}

/// Rows to look up: both ends, the middle, around 2^16, and a spread.
fn lookups(rows: u64) -> Vec<u64> {
    let mut picks: Vec<u64> = [0, rows / 2, rows.saturating_sub(1), 65_535, 65_536, 1_234]
        .into_iter()
        .chain((0..7).map(|k| k * rows / 7))
        .filter(|&r| r < rows)
        .collect();
    picks.dedup();
    picks
}

#[test]
fn every_table_of_the_corpus_round_trips_through_the_command() {
    let dir = tempfile::tempdir().unwrap();
    // One thread a table: each waits on the commands it runs, so the tables share the cores.
    std::thread::scope(|threads| {
        for table in lwc_testdata::corpus() {
            let dir = dir.path();
            threads.spawn(move || table_round_trips(dir, &table));
        }
    });
}

fn table_round_trips(dir: &Path, table: &lwc_testdata::Table) {
    for (input, want) in inputs(dir, table.name, &table.batch) {
        let what = format!("{} from {}", table.name, input.display());
        let file = round_trip(dir, &input, &want, &[], &what);
        if want.num_rows() > 0 {
            check_get(&file, &want, &lookups(want.num_rows() as u64), &what);
        }
        check_scans(&file, &want, &what);
        check_text_and_float_scans(&file, &want, &what);
        if input.extension().is_some_and(|e| e == "parquet") {
            for objective in OBJECTIVES {
                let what = format!("{what} --objective {objective}");
                let file = round_trip(dir, &input, &want, &["--objective", objective], &what);
                if want.num_rows() > 0 {
                    let picks = lookups(want.num_rows() as u64);
                    check_get(&file, &want, &picks[..picks.len().min(3)], &what);
                }
            }
            // A budget the smallest encodings fit in with room to spare, under two access mixes.
            let budget = (std::fs::metadata(&file).unwrap().len() * 2 + 4_096).to_string();
            for objective in ["random", "scan"] {
                let what = format!("{what} --memory-budget {budget} --objective {objective}");
                let flags = ["--memory-budget", budget.as_str(), "--objective", objective];
                let file = round_trip(dir, &input, &want, &flags, &what);
                check_scans(&file, &want, &what);
            }
        }
    }
}

/// The public flights data's failure, as reported: a two-column CSV of ids and nullable clock times under the
/// default options, and `lwc explain` on it.
#[test]
fn nullable_clock_times_compress_under_the_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let flights = lwc_testdata::flights(336_776 / 4, 13);
    let dep = flights.column_by_name("dep_time").unwrap().clone();
    let ids: ArrayRef = Arc::new(arrow::array::Int64Array::from_iter_values(0..dep.len() as i64));
    let schema =
        Schema::new(vec![Field::new("id", DataType::Int64, false), Field::new("dep_time", DataType::Int64, true)]);
    let batch = RecordBatch::try_new(Arc::new(schema), vec![ids, dep]).unwrap();
    let csv = dir.path().join("dep.csv");
    write_csv(&csv, &batch);
    round_trip(dir.path(), &csv, &read_back(&csv), &[], "id,dep_time");
    let explain = ok(&["explain", p(&csv), "--column", "dep_time"]);
    assert!(explain.contains("chose"), "{explain}");
}

/// A damaged file: every command that reads the damaged segment says which file, column and segment, and
/// the rest of the file still reads.
#[test]
fn errors_name_the_file_the_column_and_the_segment() {
    let dir = tempfile::tempdir().unwrap();
    let parquet = dir.path().join("boundary.parquet");
    write_parquet(&parquet, &lwc_testdata::boundary(70_000, 3));
    let good = dir.path().join("good.lwc");
    ok(&["compress", p(&parquet), "-o", p(&good), "--quiet"]);
    let file = lwc_file::LwcFile::open(&good).unwrap();
    let segment = &file.columns()[file.column_index("value").unwrap()].segments[1];
    let (offset, len) = (segment.offset, segment.len);
    let mut bytes = std::fs::read(&good).unwrap();
    bytes[(offset + len / 2) as usize] ^= 0x20;
    let bad = dir.path().join("bad.lwc");
    std::fs::write(&bad, bytes).unwrap();
    let named = |stderr: &str| {
        assert!(stderr.contains(p(&bad)), "no file name: {stderr}");
        assert!(stderr.contains("column 'value', segment 1"), "no column and segment: {stderr}");
    };
    named(&fails(&["get", p(&bad), "--rows", "69000"]));
    named(&fails(&["scan", p(&bad), "--column", "value", "--sum"]));
    named(&fails(&["decompress", p(&bad), "-o", p(&dir.path().join("out.csv"))]));
    named(&fails(&["inspect", p(&bad), "--verify"]));
    ok(&["get", p(&bad), "--rows", "5", "--column", "value"]);
    ok(&["scan", p(&bad), "--column", "id", "--sum"]);
    assert!(fails(&["get", p(&bad), "--rows", "70000"]).contains(p(&bad)));
}
