//! Runs the `lwc` binary: round trips through every input and output format, inspect, get, scan,
//! explain, bad inputs, and the demo at a small scale.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Date32Array, Decimal128Array, Float64Array, Int32Array, Int64Array,
    RecordBatch, StringArray, TimestampMillisecondArray,
};
use arrow::datatypes::{DataType, Field, Int64Type, Schema, TimeUnit};

use crate::common::*;

// Past one segment of the default 65,536 rows, so that every command crosses a segment boundary.
const ROWS: usize = 70_000;

/// [`ROWS`] as the command prints it.
fn rows_text() -> String {
    format!("{},{:03}", ROWS / 1000, ROWS % 1000)
}

/// A table with every kind of column, nulls in several.
fn table() -> RecordBatch {
    let n = ROWS;
    let id = Int64Array::from_iter_values(0..n as i64);
    let qty = Int32Array::from_iter((0..n).map(|i| (i % 101 != 0).then_some(((i * 7919) % 50) as i32 + 1)));
    let price = Float64Array::from_iter_values((0..n).map(|i| (i * 37 % 10_000) as f64 / 8.0));
    let name = StringArray::from_iter((0..n).map(|i| (i % 13 != 0).then(|| format!("item-{}", i % 300))));
    let day = Date32Array::from_iter_values((0..n).map(|i| 8035 + (i * 13 % 2557) as i32));
    let flag = BooleanArray::from_iter((0..n).map(|i| (i % 17 != 0).then_some(i % 3 == 0)));
    let amount = Decimal128Array::from_iter((0..n).map(|i| (i % 29 != 0).then_some((i * 7 % 100_000) as i128 - 500)))
        .with_precision_and_scale(15, 2)
        .unwrap();
    let at = TimestampMillisecondArray::from_iter_values((0..n).map(|i| 1_700_000_000_000 + i as i64 * 1000));
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("qty", DataType::Int32, true),
        Field::new("price", DataType::Float64, false),
        Field::new("name", DataType::Utf8, true),
        Field::new("day", DataType::Date32, false),
        Field::new("flag", DataType::Boolean, true),
        Field::new("amount", DataType::Decimal128(15, 2), true),
        Field::new("at", DataType::Timestamp(TimeUnit::Millisecond, None), false),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(id),
        Arc::new(qty),
        Arc::new(price),
        Arc::new(name),
        Arc::new(day),
        Arc::new(flag),
        Arc::new(amount),
        Arc::new(at),
    ];
    RecordBatch::try_new(schema, columns).unwrap()
}

struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Self {
        Fixture { dir: tempfile::tempdir().unwrap() }
    }
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

#[test]
fn every_input_format_round_trips_to_every_output_format() {
    let f = Fixture::new();
    let batch = table();
    let csv_in = f.path("in.csv");
    write_csv(&csv_in, &batch);
    // What a CSV means is what arrow-csv infers from it.
    let from_csv = read_back(&csv_in);
    let inputs = [
        (csv_in.clone(), from_csv.clone()),
        (f.path("in.parquet"), batch.clone()),
        (f.path("in.arrow"), batch.clone()),
        (f.path("in.arrows"), batch.clone()),
        // No extension: detected by magic bytes.
        (f.path("in-parquet-no-extension"), batch.clone()),
    ];
    write_parquet(&inputs[1].0, &batch);
    write_ipc_file(&inputs[2].0, &batch);
    write_ipc_stream(&inputs[3].0, &batch);
    write_parquet(&inputs[4].0, &batch);
    for (k, (input, want)) in inputs.iter().enumerate() {
        let lwc_path = f.path(&format!("t{k}.lwc"));
        let summary = ok(&["compress", p(input), "-o", p(&lwc_path), "--quiet"]);
        assert!(summary.contains("total") && summary.contains(&rows_text()), "{summary}");
        for ext in ["parquet", "arrow"] {
            let out = f.path(&format!("t{k}.{ext}"));
            ok(&["decompress", p(&lwc_path), "-o", p(&out), "--quiet"]);
            assert_same(&read_back(&out), want, &format!("{} → .lwc → {ext}", input.display()));
        }
        // CSV out: exactly the text arrow's CSV writer makes of the same table.
        let out = f.path(&format!("t{k}.csv"));
        ok(&["decompress", p(&lwc_path), "-o", p(&out), "--quiet"]);
        let expected = f.path(&format!("t{k}-expected.csv"));
        write_csv(&expected, want);
        assert!(std::fs::read(&out).unwrap() == std::fs::read(&expected).unwrap(), "{} → csv differs", input.display());
    }
    // Forced encodings, segment sizes and objectives give the same values.
    let forced = f.path("forced.lwc");
    let parquet_in = p(&inputs[1].0);
    ok(&["compress", parquet_in, "-o", p(&forced), "--encoding", "for", "--segment-rows", "10000", "--threads", "1"]);
    let back = f.path("forced.arrow");
    ok(&["decompress", p(&forced), "-o", p(&back)]);
    assert_same(&read_back(&back), &batch, "forced for");
    let random = f.path("random.lwc");
    ok(&["compress", parquet_in, "-o", p(&random), "--objective", "scan=0.2,get=0.8"]);
    ok(&["decompress", p(&random), "-o", p(&back)]);
    assert_same(&read_back(&back), &batch, "objective scan=0.2,get=0.8");
    // Segments that each choose, or keep the choice before them, give the same values.
    for keep in ["0", "3"] {
        let kept = f.path(&format!("keep{keep}.lwc"));
        ok(&["compress", parquet_in, "-o", p(&kept), "--keep-choice", keep, "--segment-rows", "700", "--quiet"]);
        ok(&["decompress", p(&kept), "-o", p(&back)]);
        assert_same(&read_back(&back), &batch, &format!("--keep-choice {keep}"));
    }
    let err = fails(&["compress", parquet_in, "-o", p(&forced), "--keep-choice", "some"]);
    assert!(err.contains("--keep-choice"), "{err}");
}

/// The sum of the columns' encoded bytes, from `lwc inspect --json`.
fn encoded_bytes(file: &Path) -> u64 {
    let doc: serde_json::Value = serde_json::from_str(&ok(&["inspect", p(file), "--json"])).unwrap();
    doc["columns"].as_array().unwrap().iter().map(|c| c["encoded_bytes"].as_u64().unwrap()).sum()
}

#[test]
fn memory_budget_is_kept_and_the_plan_printed() {
    let f = Fixture::new();
    let batch = table();
    let input = f.path("t.parquet");
    write_parquet(&input, &batch);
    let (small, fast) = (f.path("small.lwc"), f.path("fast.lwc"));
    ok(&["compress", p(&input), "-o", p(&small), "--objective", "size", "--quiet"]);
    let smallest = encoded_bytes(&small);
    // Lookups only, with room for 20 % more than the smallest: the columns stay within it.
    let budget = (smallest * 6 / 5).to_string();
    let out = ok(&["compress", p(&input), "-o", p(&fast), "--objective", "random", "--memory-budget", &budget]);
    assert!(out.contains("memory budget") && out.contains("scan=0,get=1"), "{out}");
    let used = encoded_bytes(&fast);
    assert!(used <= smallest * 6 / 5, "{used} bytes over the budget\n{out}");
    let back = f.path("fast.arrow");
    ok(&["decompress", p(&fast), "-o", p(&back)]);
    assert_same(&read_back(&back), &batch, "written within a budget");
    // Too small, or meaningless, budgets are refused with a reason.
    let err = fails(&["compress", p(&input), "-o", p(&fast), "--objective", "random", "--memory-budget", "1KB"]);
    assert!(err.contains("below the smallest"), "{err}");
    let err = fails(&["compress", p(&input), "-o", p(&fast), "--objective", "size", "--memory-budget", "1GB"]);
    assert!(err.contains("access mix"), "{err}");
    let err = fails(&["compress", p(&input), "-o", p(&fast), "--encoding", "for", "--memory-budget", "1GB"]);
    assert!(err.contains("--encoding"), "{err}");
}

/// A compressed copy of [`table`] in a fresh directory.
fn compressed() -> (Fixture, PathBuf, RecordBatch) {
    let f = Fixture::new();
    let batch = table();
    let input = f.path("t.parquet");
    write_parquet(&input, &batch);
    let out = f.path("t.lwc");
    ok(&["compress", p(&input), "-o", p(&out), "--quiet"]);
    (f, out, batch)
}

#[test]
fn inspect_prints_a_table_and_json() {
    let (_f, file, batch) = compressed();
    let text = ok(&["inspect", p(&file)]);
    for name in ["id", "qty", "price", "name", "day", "flag", "amount", "at", "total"] {
        assert!(text.lines().any(|l| l.starts_with(name)), "no line for {name}:\n{text}");
    }
    assert!(text.contains(&format!("{} rows", rows_text())), "{text}");
    let json: serde_json::Value = serde_json::from_str(&ok(&["inspect", p(&file), "--json", "--verify"])).unwrap();
    assert_eq!(json["rows"], ROWS as u64);
    assert_eq!(json["verified"], true);
    let columns = json["columns"].as_array().unwrap();
    assert_eq!(columns.len(), batch.num_columns());
    assert_eq!(columns[1]["name"], "qty");
    assert_eq!(columns[1]["nulls"], batch.column(1).null_count() as u64);
    assert_eq!(columns[0]["type"], "Int64");
    let segments: u64 =
        columns[0]["encodings"].as_array().unwrap().iter().map(|e| e["segments"].as_u64().unwrap()).sum();
    assert_eq!(segments, columns[0]["segments"].as_u64().unwrap());
    assert!(json["file_bytes"].as_u64().unwrap() < json["plain_bytes"].as_u64().unwrap());
}

#[test]
fn get_prints_the_rows_asked_for() {
    let (_f, file, batch) = compressed();
    let rows = [5usize, 17, 99, ROWS - 1, 10, 11, 12];
    let asked = format!("5,17,99,{},10..=12", ROWS - 1);
    let csv = ok(&["get", p(&file), "--column", "id,qty", "--column", "day", "--rows", &asked, "--csv"]);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "row,id,qty,day");
    assert_eq!(lines.len(), rows.len() + 1);
    let qty = batch.column(1).as_primitive::<arrow::datatypes::Int32Type>();
    let day = batch.column(4).as_primitive::<arrow::datatypes::Date32Type>();
    for (line, &row) in lines[1..].iter().zip(&rows) {
        let q = if qty.is_null(row) { String::new() } else { qty.value(row).to_string() };
        let d = day.value_as_date(row).unwrap().format("%Y-%m-%d").to_string();
        assert_eq!(*line, format!("{row},{row},{q},{d}"));
    }
    // A null shows as NULL in the table view; all columns by default.
    let table = ok(&["get", p(&file), "--rows", "0"]);
    assert!(table.contains("| row | id | qty ") && table.contains("NULL"), "{table}");
    let range = ok(&["get", p(&file), "-c", "name", "-r", "100..103", "--csv"]);
    assert_eq!(range.lines().count(), 4);
    // Segments of 700 rows, a length whose rows are located by a multiply: the same rows, every column,
    // rows out of order and across segments.
    let (input, odd) = (file.with_extension("parquet"), file.with_extension("700.lwc"));
    ok(&["compress", p(&input), "-o", p(&odd), "--segment-rows", "700", "--quiet"]);
    let asked = format!("{asked},699,700,701,1399,1400,{},0", ROWS - 700);
    let all = |file: &Path| ok(&["get", p(file), "--rows", &asked, "--csv"]);
    assert_eq!(all(&odd), all(&file), "segments of 700 rows");
}

#[test]
fn scan_answers_match_plain_computation() {
    let (_f, file, batch) = compressed();
    let field = |out: &str, key: &str| -> String {
        out.lines()
            .find_map(|l| l.strip_prefix(&format!("{key}: ")))
            .unwrap_or_else(|| panic!("no {key} in {out}"))
            .to_string()
    };
    let qty: Vec<Option<i32>> = batch.column(1).as_primitive::<arrow::datatypes::Int32Type>().iter().collect();
    let check = |condition: &str, keep: &dyn Fn(Option<i32>) -> bool| {
        let out = ok(&["scan", p(&file), "--column", "qty", "--where", condition, "--sum", "--min", "--max"]);
        let picked: Vec<Option<i32>> = qty.iter().copied().filter(|&v| keep(v)).collect();
        let values: Vec<i64> = picked.iter().flatten().map(|&v| v as i64).collect();
        assert_eq!(field(&out, "count"), picked.len().to_string(), "{condition}: {out}");
        assert_eq!(field(&out, "sum"), values.iter().sum::<i64>().to_string(), "{condition}");
        let min = values.iter().min().map_or("NULL".into(), |v| v.to_string());
        assert_eq!(field(&out, "min"), min, "{condition}");
        let max = values.iter().max().map_or("NULL".into(), |v| v.to_string());
        assert_eq!(field(&out, "max"), max, "{condition}");
        assert!(out.contains("time: "), "{out}");
    };
    check("> 40", &|v| v.is_some_and(|v| v > 40));
    check("= 5", &|v| v == Some(5));
    check("qty <> 5", &|v| v.is_some_and(|v| v != 5));
    check("between 3 and 9", &|v| v.is_some_and(|v| (3..=9).contains(&v)));
    check("in (1, 2, 3, 999)", &|v| v.is_some_and(|v| [1, 2, 3].contains(&v)));
    check("is null", &|v| v.is_none());
    check("is not null", &|v| v.is_some());
    check("> 1000", &|_| false);
    // No condition: every row; the count is the default output.
    let all = ok(&["scan", p(&file), "-c", "id"]);
    assert_eq!(field(&all, "count"), ROWS.to_string());
    // Dates take YYYY-MM-DD; decimals are read in their scale.
    let day = batch.column(4).as_primitive::<arrow::datatypes::Date32Type>();
    let lo = 8035 + 366; // 1993-01-01 (1992 is a leap year)
    let out = ok(&["scan", p(&file), "-c", "day", "-w", "between 1993-01-01 and '1993-12-31'", "--min", "--max"]);
    assert_eq!(field(&out, "count"), day.values().iter().filter(|&&d| (lo..lo + 365).contains(&d)).count().to_string());
    assert_eq!(field(&out, "min"), "1993-01-01");
    assert_eq!(field(&out, "max"), "1993-12-31");
    let amount = batch.column(6).as_primitive::<arrow::datatypes::Decimal128Type>();
    let out = ok(&["scan", p(&file), "-c", "amount", "-w", "< 2.5", "--sum"]);
    let small: Vec<i128> = amount.iter().flatten().filter(|&v| v < 250).collect();
    assert_eq!(field(&out, "count"), small.len().to_string());
    let sum: i128 = small.iter().sum();
    assert_eq!(
        field(&out, "sum"),
        format!("{}{}.{:02}", if sum < 0 { "-" } else { "" }, sum.abs() / 100, sum.abs() % 100)
    );
    let ids = batch.column(0).as_primitive::<Int64Type>();
    let last_ten = ROWS as i64 - 10;
    let out = ok(&["scan", p(&file), "-c", "id", "-w", &format!(">= {last_ten}"), "--sum"]);
    assert_eq!(field(&out, "sum"), ids.values().iter().filter(|&&v| v >= last_ten).sum::<i64>().to_string());
    // Floats: compared and summed as floats.
    let price = batch.column(2).as_primitive::<arrow::datatypes::Float64Type>();
    let out = ok(&["scan", p(&file), "-c", "price", "-w", "> 1000.5", "--sum", "--max"]);
    let big: Vec<f64> = price.values().iter().copied().filter(|&v| v > 1000.5).collect();
    assert_eq!(field(&out, "count"), big.len().to_string(), "{out}");
    let sum: f64 = field(&out, "sum").parse().unwrap();
    assert!((sum - big.iter().sum::<f64>()).abs() < 1e-6, "{out}");
    assert_eq!(field(&out, "max"), big.iter().copied().fold(f64::MIN, f64::max).to_string());
    // Text: equality, ranges and prefixes on the dictionary's codes; nulls never match.
    let names: Vec<Option<&str>> = batch.column(3).as_string::<i32>().iter().collect();
    let text_count = |keep: &dyn Fn(&str) -> bool| names.iter().flatten().filter(|n| keep(n)).count().to_string();
    let out = ok(&["scan", p(&file), "-c", "name", "-w", "= 'item-7'"]);
    assert_eq!(field(&out, "count"), text_count(&|n| n == "item-7"), "{out}");
    let out = ok(&["scan", p(&file), "-c", "name", "-w", "like 'item-29%'", "--min", "--max"]);
    assert_eq!(field(&out, "count"), text_count(&|n| n.starts_with("item-29")), "{out}");
    assert_eq!((field(&out, "min").as_str(), field(&out, "max").as_str()), ("item-29", "item-299"));
    let out = ok(&["scan", p(&file), "-c", "name", "-w", "between 'item-1' and 'item-2'"]);
    assert_eq!(field(&out, "count"), text_count(&|n| ("item-1"..="item-2").contains(&n)), "{out}");
    // A condition on another column, and two that must both hold; `--show` prints the first rows.
    let out = ok(&["scan", p(&file), "-c", "qty", "-w", "name = 'item-7'", "-w", "> 25", "--show", "2"]);
    let qty = batch.column(1).as_primitive::<arrow::datatypes::Int32Type>();
    let both = (0..ROWS).filter(|&i| names[i] == Some("item-7") && qty.is_valid(i) && qty.value(i) > 25).count();
    assert_eq!(field(&out, "count"), both.to_string(), "{out}");
    assert!(out.contains("first 2 selected rows") && out.contains("| item-7 "), "{out}");
}

#[test]
fn a_cost_table_steers_the_choice() {
    let (f, file, _) = compressed();
    // `random` picks plain for qty with the built-in table; with plain's reads a thousand times dearer it
    // must pick something else.
    let usual = ok(&["explain", p(&file), "--column", "qty", "--objective", "random"]);
    assert!(usual.contains("chose plain"), "{usual}");
    let dear: Vec<String> = lwc::CostModel::builtin()
        .to_text()
        .lines()
        .map(|line| match line.split_whitespace().collect::<Vec<_>>().as_slice() {
            ["plain", what, costs @ ..] => {
                let costs: Vec<String> = costs.iter().map(|c| (c.parse::<f64>().unwrap() * 1e3).to_string()).collect();
                format!("plain {what} {}", costs.join(" "))
            }
            _ => line.to_string(),
        })
        .collect();
    let costs = f.path("costs.txt");
    std::fs::write(&costs, dear.join("\n")).unwrap();
    let text = ok(&["explain", p(&file), "--column", "qty", "--objective", "random", "--costs", p(&costs)]);
    assert!(text.contains(" chose ") && !text.contains("chose plain"), "{text}");
    let out = f.path("plain.lwc");
    ok(&["compress", p(&file), "-o", p(&out), "--objective", "random", "--costs", p(&costs), "--quiet"]);
    std::fs::write(&costs, "not a cost table").unwrap();
    let err = fails(&["compress", p(&file), "-o", p(&out), "--costs", p(&costs)]);
    assert!(err.contains("costs.txt") && err.contains("lwc calibrate"), "{err}");
    // A calibration of no pass measures nothing: refused before it starts.
    let err = fails(&["calibrate", "--passes", "0", "-o", p(&costs)]);
    assert!(err.contains("--passes"), "{err}");
}

#[test]
fn explain_prints_the_selectors_records() {
    let (f, file, _) = compressed();
    let text = ok(&["explain", p(&file), "--column", "id"]);
    assert!(text.contains("column id") && text.contains("segment 0") && text.contains("chose"), "{text}");
    let csv = f.path("small.csv");
    std::fs::write(&csv, "k,v\n1,10\n2,10\n3,10\n4,11\n").unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&ok(&["explain", p(&csv), "--objective", "random", "--json"])).unwrap();
    assert_eq!(json["objective"], "random");
    assert_eq!(json["columns"].as_array().unwrap().len(), 2);
    assert!(json["columns"][0]["segments"][0]["chosen"].is_string());
    // Strings and floats are explained too: their own encodings among the candidates.
    let text = ok(&["explain", p(&file), "--column", "name"]);
    assert!(text.contains("column name (Utf8, stored as bytes)") && text.contains("fsst"), "{text}");
    let prices = f.path("prices.csv");
    let cents = |i: u64| 10_000 + (i * 7_919) % 1_000_000;
    let rows: String = (0..3_000).map(|i| format!("{}.{:02},item {i}\n", cents(i) / 100, cents(i) % 100)).collect();
    std::fs::write(&prices, format!("price,label\n{rows}")).unwrap();
    let text = ok(&["explain", p(&prices), "--column", "price"]);
    assert!(text.contains("stored as f64") && text.contains("chose alp"), "{text}");
    assert!(fails(&["explain", p(&file), "--column", "nope"]).contains("nope"));
    // Segments keep the choice before them, as `compress` writes them, unless --keep-choice 0.
    let alike = f.path("alike.csv");
    let rows: String = (0..4_000u64).map(|i| format!("{}\n", i * 7_919 % 1_000)).collect();
    std::fs::write(&alike, format!("x\n{rows}")).unwrap();
    let kept = ok(&["explain", p(&alike), "--segment-rows", "500"]);
    assert_eq!(kept.matches("kept the cascade").count(), 7, "{kept}");
    let fresh = ok(&["explain", p(&alike), "--segment-rows", "500", "--keep-choice", "0"]);
    assert!(!fresh.contains("kept the cascade") && fresh.matches("chose").count() >= 8, "{fresh}");
    // Strings too: ship modes with empty fields among them keep their dictionary.
    let modes = f.path("modes.csv");
    let names = ["AIR", "MAIL", "", "RAIL", "REG AIR", "SHIP", "TRUCK"];
    let rows: String = (0..4_000usize).map(|i| format!("{},{i}\n", names[i * 7_919 % 7])).collect();
    std::fs::write(&modes, format!("mode,n\n{rows}")).unwrap();
    let kept = ok(&["explain", p(&modes), "--column", "mode", "--segment-rows", "500"]);
    assert!(kept.contains("4,000 rows"), "{kept}");
    assert_eq!(kept.matches("kept the cascade chosen").count(), 7, "{kept}");
    assert!(kept.contains("on utf8 strings") && kept.contains("dict"), "{kept}");
}

#[test]
fn bad_inputs_fail_with_a_clear_message() {
    let (f, file, _) = compressed();
    let missing = f.path("missing.csv");
    assert!(fails(&["compress", p(&missing), "-o", p(&f.path("x.lwc"))]).contains("missing.csv"));
    assert!(fails(&["inspect", p(&f.path("missing.lwc"))]).contains("does not exist"));
    let bad_csv = f.path("bad.csv");
    std::fs::write(&bad_csv, "a,b\n1,2\n3\n4,5,6\n").unwrap();
    fails(&["compress", p(&bad_csv), "-o", p(&f.path("bad.lwc"))]);
    assert!(!f.path("bad.lwc").exists(), "a failed compress leaves no output");
    let unknown = fails(&["get", p(&file), "--column", "nope", "--rows", "1"]);
    assert!(unknown.contains("nope") && unknown.contains("qty"), "{unknown}");
    fails(&["scan", p(&file), "--column", "nope"]);
    assert!(fails(&["get", p(&file), "--rows", &ROWS.to_string()]).contains("out of range"));
    fails(&["get", p(&file), "--rows", "5..3"]);
    fails(&["scan", p(&file), "--column", "qty", "--where", "like 5"]);
    fails(&["scan", p(&file), "--column", "qty", "--where", "> abc"]);
    fails(&["scan", p(&file), "--column", "name", "--where", "between 'a'"]);
    assert!(fails(&["scan", p(&file), "--column", "qty", "--where", "like 'a%'"]).contains("qty"));
    assert!(fails(&["scan", p(&file), "--column", "flag", "--where", "= maybe"]).contains("maybe"));
    fails(&["decompress", p(&file), "-o", p(&f.path("out.xyz"))]);
    // Corrupt files: a flipped byte in the data, and a truncated file.
    let bytes = std::fs::read(&file).unwrap();
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 3] ^= 0x5a;
    let corrupt = f.path("corrupt.lwc");
    std::fs::write(&corrupt, &flipped).unwrap();
    let out = lwc(&["decompress", p(&corrupt), "-o", p(&f.path("c.arrow"))]);
    let verify = lwc(&["inspect", p(&corrupt), "--verify"]);
    assert!(!out.status.success() || !verify.status.success(), "a flipped byte goes unnoticed");
    for o in [out, verify] {
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    let truncated = f.path("truncated.lwc");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    assert!(fails(&["inspect", p(&truncated)]).contains("truncated.lwc"));
    std::fs::write(&truncated, b"").unwrap();
    fails(&["inspect", p(&truncated)]);
    // Flags are checked by the parser.
    let out = lwc(&["compress", p(&bad_csv), "-o", "x.lwc", "--memory-budget", "12 parsecs"]);
    assert_eq!(out.status.code(), Some(2));
    let out = lwc(&["compress", p(&bad_csv), "-o", "x.lwc", "--objective", "fast"]);
    assert_eq!(out.status.code(), Some(2));
}

/// The value of `key: value` in a scan's output.
fn scanned<'a>(output: &'a str, key: &str) -> &'a str {
    output.lines().find_map(|l| l.strip_prefix(key)?.strip_prefix(": ")).unwrap_or_else(|| panic!("no {key}: {output}"))
}

/// Text and floats at their edges through the command: bytes that are not UTF-8 in a text column, NaN
/// and infinities in filters, a string of megabytes (under `size`, compressed blocks it spans many of),
/// a header with no rows.
#[test]
fn text_and_float_edges_give_answers_or_clear_errors() {
    let f = Fixture::new();
    let not_utf8 = f.path("not_utf8.csv");
    std::fs::write(&not_utf8, b"id,name\n1,caf\xe9\n").unwrap();
    assert!(fails(&["compress", p(&not_utf8), "-o", p(&f.path("x.lwc"))]).contains("UTF-8"));
    assert!(!f.path("x.lwc").exists());

    let floats = f.path("floats.csv");
    std::fs::write(&floats, "price\n1.5\nNaN\n-0.0\ninf\n1000.75\n-inf\n").unwrap();
    let file = f.path("floats.lwc");
    ok(&["compress", p(&floats), "-o", p(&file), "--quiet"]);
    let scan = |filter: &str| ok(&["scan", p(&file), "--column", "price", "--where", filter]);
    // Floats compare by IEEE 754's total order, as Arrow's kernels do: NaN above every number, -0.0 below 0.0.
    assert_eq!(scanned(&scan("= NaN"), "count"), "1");
    assert_eq!(scanned(&scan("> 1000.5"), "count"), "3");
    assert_eq!(scanned(&scan("> NaN"), "count"), "0");
    assert_eq!(scanned(&scan("<= inf"), "count"), "5");
    assert_eq!(scanned(&scan("= 0"), "count"), "0");
    assert_eq!(scanned(&scan("= -0.0"), "count"), "1");
    assert!(fails(&["scan", p(&file), "--column", "price", "--where", "= 'x'"]).contains("Float64"));

    let long = f.path("long.csv");
    let text = format!("id,text\n1,{}\n2,short\n3,PROMO BRUSHED\n", "abc".repeat(1 << 20));
    std::fs::write(&long, &text).unwrap();
    let file = f.path("long.lwc");
    ok(&["compress", p(&long), "-o", p(&file), "--quiet", "--objective", "size"]);
    assert!(ok(&["inspect", p(&file)]).contains("zstd"), "a repetitive 3 MiB string goes to zstd under size");
    let got = ok(&["get", p(&file), "--column", "text", "--rows", "1..3"]);
    assert!(got.contains("short") && got.contains("PROMO BRUSHED"), "{got}");
    let like =
        |filter: &str| scanned(&ok(&["scan", p(&file), "--column", "text", "--where", filter]), "count").to_owned();
    assert_eq!(like("like 'abcabc%'"), "1");
    assert_eq!(like("like 'PROMO%'"), "1");
    assert_eq!(like("= 'short'"), "1");
    let back = f.path("long_back.csv");
    ok(&["decompress", p(&file), "-o", p(&back), "--quiet"]);
    assert_eq!(std::fs::read_to_string(&back).unwrap(), text);

    let empty = f.path("empty.csv");
    std::fs::write(&empty, "id,name\n").unwrap();
    let file = f.path("empty.lwc");
    ok(&["compress", p(&empty), "-o", p(&file), "--quiet"]);
    assert_eq!(scanned(&ok(&["scan", p(&file), "--column", "id", "--where", "> 3", "--sum"]), "count"), "0");
}

#[test]
fn demo_runs_at_a_small_scale() {
    let f = Fixture::new();
    let out = ok(&["demo", "--scale", "0.01", "--runs", "1", "--out", p(f.dir.path())]);
    for table in ["lineitem", "orders", "partsupp", "part", "customer", "supplier", "nation", "region", "total"] {
        assert!(out.lines().any(|l| l.starts_with(table)), "no row for {table}:\n{out}");
    }
    assert!(out.contains("l_orderkey") && out.contains("ps_partkey"), "{out}");
    assert!(out.contains("l_quantity < 3") && out.contains("sum(l_extendedprice)"), "{out}");
    // The files it wrote open.
    let lineitem = f.path("lineitem.lwc");
    assert!(f.path("lineitem.parquet").exists());
    let info: serde_json::Value = serde_json::from_str(&ok(&["inspect", p(&lineitem), "--json"])).unwrap();
    assert_eq!(info["columns"].as_array().unwrap().len(), 16);
}

#[test]
fn help_explains_every_command() {
    let help = ok(&["--help"]);
    for command in ["compress", "inspect", "explain", "decompress", "get", "scan", "demo"] {
        assert!(help.contains(command), "{help}");
        let long = ok(&[command, "--help"]);
        assert!(long.contains("Examples:"), "{command} --help has no examples");
    }
}

#[test]
fn sql_answers_in_every_format_and_fails_cleanly() {
    let (f, file, batch) = compressed();
    let qty = batch.column(1).as_primitive::<arrow::datatypes::Int32Type>();
    let want = qty.iter().flatten().filter(|&q| q < 3).count();
    // CSV: a header row, then the answer.
    let csv = ok(&["sql", p(&file), "-e", "SELECT count(*) AS n FROM t WHERE qty < 3", "--format", "csv"]);
    assert_eq!(csv, format!("n\n{want}\n"));
    // JSON: an array of objects; a table: the value in an aligned grid. Several statements run in turn.
    let json =
        ok(&["sql", p(&file), "-e", "SELECT count(*) AS n FROM t WHERE name LIKE 'item-1%'", "--format", "json"]);
    let rows: serde_json::Value = serde_json::from_str(&json).unwrap();
    let names = batch.column(3).as_string::<i32>();
    assert_eq!(rows[0]["n"], names.iter().flatten().filter(|n| n.starts_with("item-1")).count() as u64);
    let table = ok(&["sql", p(&file), "-e", "SELECT max(id) FROM t; SELECT min(day) FROM t WHERE flag"]);
    assert!(table.contains(&format!("| {} ", ROWS - 1)) && table.matches('+').count() >= 8, "{table}");
    // A directory is a set of tables, each named by its file's stem; -f reads statements from a file.
    let dir = f.path("tables");
    std::fs::create_dir(&dir).unwrap();
    std::fs::copy(&file, dir.join("a.lwc")).unwrap();
    std::fs::copy(&file, dir.join("b.lwc")).unwrap();
    let script = f.path("join.sql");
    std::fs::write(&script, "SELECT count(*) FROM a JOIN b ON a.id = b.id WHERE a.amount > 900;\n").unwrap();
    let joined = ok(&["sql", p(&dir), "-f", p(&script), "--format", "csv"]);
    let amounts = batch.column(6).as_primitive::<arrow::datatypes::Decimal128Type>();
    assert_eq!(joined.lines().nth(1).unwrap(), amounts.iter().flatten().filter(|&a| a > 90_000).count().to_string());
    // A subdirectory of files is one table, named by the subdirectory: here twice the rows of t.
    let parts = dir.join("both");
    std::fs::create_dir(&parts).unwrap();
    std::fs::copy(&file, parts.join("1.lwc")).unwrap();
    std::fs::copy(&file, parts.join("2.lwc")).unwrap();
    let both =
        ok(&["sql", p(&dir), "-e", "SELECT count(*) AS n, count(DISTINCT id) AS ids FROM both", "--format", "csv"]);
    assert_eq!(both, format!("n,ids\n{},{}\n", 2 * ROWS, ROWS));
    // Aggregates of a filtered table are answered on the encoded form, with the rows' answers.
    let small: Vec<i64> = qty.iter().flatten().filter(|&q| q < 3).map(i64::from).collect();
    let (sum, min) = (small.iter().sum::<i64>(), small.iter().min().unwrap());
    let query = "SELECT count(qty) AS n, sum(qty) AS s, min(qty) AS lo FROM both WHERE qty < 3";
    let sums = ok(&["sql", p(&dir), "-e", query, "--format", "csv"]);
    assert_eq!(sums, format!("n,s,lo\n{},{},{min}\n", 2 * small.len(), 2 * sum));
    let plan = ok(&["sql", p(&dir), "-e", &format!("EXPLAIN {query}"), "--format", "csv"]);
    assert!(plan.contains("LwcAggregateExec"), "{plan}");
    // Errors: unknown tables and columns, bad SQL, missing and corrupt files, duplicate table names.
    for (args, says) in [
        (vec!["sql", p(&file), "-e", "SELECT nope FROM t"], "nope"),
        (vec!["sql", p(&file), "-e", "SELECT * FROM missing"], "missing"),
        (vec!["sql", p(&file), "-e", "SELEC 1"], "SELEC"),
        (vec!["sql", p(&file), "-e", "SELECT * FROM t WHERE name > 3 +"], "error"),
        (vec!["sql", "/nonexistent/x.lwc", "-e", "SELECT 1"], "x.lwc"),
        (vec!["sql", p(&file), p(&dir.join("a.lwc")), p(&dir.join("a.lwc")), "-e", "SELECT 1"], "two tables named a"),
    ] {
        let err = fails(&args);
        assert!(err.contains(says), "{args:?}: {err}");
    }
    let corrupt = f.path("corrupt.lwc");
    let mut bytes = std::fs::read(&file).unwrap();
    let n = bytes.len();
    bytes.truncate(n / 2);
    std::fs::write(&corrupt, &bytes).unwrap();
    fails(&["sql", p(&corrupt), "-e", "SELECT count(*) FROM corrupt"]);
}
