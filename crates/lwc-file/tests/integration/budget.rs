//! Fitting a table to a memory budget: the plan keeps its promise when the file is written.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray, UInt32Array};
use arrow_schema::{Field, Schema};
use lwc::{AccessMix, Cascade, EncodeOptions, Encoding, Objective};
use lwc_file::{plan_budget, write_to_bytes, BudgetPlan, LwcFile, WriteOptions};

const ROWS: usize = 100_000;

/// Columns whose smallest encodings are slow to look up in (runs, few distinct values) next to ones
/// with nothing to trade (sorted ids, floats), and strings.
fn table() -> RecordBatch {
    let mut state = 7u64;
    let mut next = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) as u32
    };
    let runs: Vec<i64> = (0..ROWS).map(|i| ((i / 37) as i64 * 7_919) % 1_000_003).collect();
    let few: Vec<u32> = (0..ROWS).map(|_| [3u32, 1_000_000, 77_777_777][next() as usize % 3]).collect();
    let noisy: Vec<i32> = (0..ROWS).map(|i| (i as i32 / 3) + (next() % 50) as i32).collect();
    let ids: Vec<i64> = (0..ROWS as i64).collect();
    let names = StringArray::from_iter_values((0..ROWS).map(|i| ["ant", "bee", "cat"][i % 3]));
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("runs", Arc::new(Int64Array::from(runs))),
        ("few", Arc::new(UInt32Array::from(few))),
        ("noisy", Arc::new(Int32Array::from(noisy))),
        ("id", Arc::new(Int64Array::from(ids))),
        ("name", Arc::new(names)),
        ("price", Arc::new(Float64Array::from_iter_values((0..ROWS).map(|i| i as f64 / 4.0)))),
    ];
    let schema =
        Schema::new(columns.iter().map(|(n, a)| Field::new(*n, a.data_type().clone(), false)).collect::<Vec<_>>());
    RecordBatch::try_new(Arc::new(schema), columns.into_iter().map(|(_, a)| a).collect()).unwrap()
}

fn options() -> WriteOptions {
    WriteOptions {
        encode: EncodeOptions { segment_rows: 16_384, ..EncodeOptions::default() },
        ..WriteOptions::default()
    }
}

const LOOKUPS: AccessMix = AccessMix { scan: 0.0, get: 1.0 };

fn plan(batch: &RecordBatch, budget: u64) -> BudgetPlan {
    plan_budget(batch.schema(), std::slice::from_ref(batch), budget, LOOKUPS, &options()).unwrap()
}

/// The least and the most bytes a plan can spend.
fn extremes(plan: &BudgetPlan) -> (u64, u64) {
    let least = plan.columns.iter().map(|c| c.options.iter().map(|o| o.bytes).min().unwrap()).sum();
    let most = plan.columns.iter().map(|c| c.options.iter().map(|o| o.bytes).max().unwrap()).sum();
    (least, most)
}

/// Writes the table as planned and returns the columns' encoded bytes. The plan writes the segments it
/// measured; they are the very bytes the writer makes when given the plan's objectives.
fn written_bytes(batch: &RecordBatch, plan: &BudgetPlan) -> u64 {
    let opts = WriteOptions { column_objectives: plan.column_objectives(), ..options() };
    let encoded_again = write_to_bytes(batch.schema(), std::slice::from_ref(batch), opts).unwrap();
    let bytes = plan.clone().write_to_bytes().unwrap();
    assert!(bytes[..] == encoded_again[..], "the planned file differs from the file its objectives make\n{plan}");
    let file = LwcFile::from_bytes(bytes).unwrap();
    assert_eq!(file.read_batch().unwrap(), *batch);
    file.columns().iter().map(|c| c.encoded_bytes).sum()
}

#[test]
fn every_budget_is_kept_and_more_room_never_reads_slower() {
    let batch = table();
    let (least, most) = extremes(&plan(&batch, u64::MAX));
    assert!(least < most, "the table offers no trade between bytes and speed");
    let mut last_ns = f64::INFINITY;
    for share in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let budget = least + ((most - least) as f64 * share) as u64;
        let p = plan(&batch, budget);
        assert!(p.bytes() <= budget, "{p}");
        assert_eq!(written_bytes(&batch, &p), p.bytes(), "the file differs from the plan\n{p}");
        assert!(p.read_ns() <= last_ns, "a larger budget reads slower\n{p}");
        last_ns = p.read_ns();
    }
    // With room for everything every column is read the fastest way it has.
    let p = plan(&batch, most);
    for c in &p.columns {
        let fastest = c.options.iter().map(|o| o.read_ns).fold(f64::INFINITY, f64::min);
        assert_eq!(c.pick().read_ns, fastest, "{p}");
    }
    // With the least room every column takes its smallest.
    let p = plan(&batch, least);
    assert_eq!(p.bytes(), least, "{p}");
}

#[test]
fn floats_are_planned_like_integers_and_the_plan_prints() {
    let p = plan(&table(), u64::MAX);
    let price = p.columns.iter().find(|c| c.name == "price").unwrap();
    assert!(!price.options.is_empty());
    assert!(price.options.iter().all(|o| o.bytes > 0));
    let text = p.to_string();
    assert!(text.contains("memory budget") && text.contains("runs"), "{text}");
}

#[test]
fn impossible_budgets_and_fixed_cascades_are_errors() {
    let batch = table();
    let (least, _) = extremes(&plan(&batch, u64::MAX));
    let err = plan_budget(batch.schema(), std::slice::from_ref(&batch), least - 1, LOOKUPS, &options()).unwrap_err();
    assert!(err.to_string().contains("below the smallest"), "{err}");
    let fixed = WriteOptions {
        encode: EncodeOptions { cascade: Cascade::new(Encoding::Bitpack), ..EncodeOptions::default() },
        ..WriteOptions::default()
    };
    let err = plan_budget(batch.schema(), std::slice::from_ref(&batch), u64::MAX, LOOKUPS, &fixed).unwrap_err();
    assert!(err.to_string().contains("fixed"), "{err}");
}

#[test]
fn an_empty_table_fits_any_budget() {
    let batch = table();
    let p = plan_budget(batch.schema(), &[], 0, LOOKUPS, &options()).unwrap();
    assert_eq!((p.bytes(), p.columns.len()), (0, batch.num_columns()));
    let file = LwcFile::from_bytes(p.write_to_bytes().unwrap()).unwrap();
    assert_eq!((file.num_rows(), file.schema()), (0, batch.schema()));
}

#[test]
fn column_objectives_must_name_columns() {
    let batch = table();
    let opts = WriteOptions { column_objectives: BTreeMap::from([("nope".to_string(), Objective::Size)]), ..options() };
    let err = write_to_bytes(batch.schema(), std::slice::from_ref(&batch), opts).unwrap_err();
    assert!(err.to_string().contains("'nope'"), "{err}");
}

#[test]
#[ignore = "prints the plan for a look"]
fn show_plan() {
    println!("{}", plan(&table(), u64::MAX));
}
