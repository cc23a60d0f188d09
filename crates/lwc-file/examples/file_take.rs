//! `LwcFile::take` (what `lwc get` and Python's `take` call) against Arrow's `take` on the same column
//! held plain, timed in turns in one run: TPC-H's l_orderkey (6,001,215 rows), a nullable quantity (1-50,
//! a null in every run of 7 rows at random), and the test corpus's order comments, statuses (with nulls)
//! and prices as doubles, written with the default options; random and sorted row lists of several
//! lengths.
//!
//! Run: `cargo run --release -p lwc-file --example file_take`. `ROWS=800000` shortens the table, `COLUMN=o_comment`
//! times one column, `TAKES=100,1000` some lengths of row list, and `PROFILE=1` runs the first column's first
//! random take alone, over and over for 5 seconds, for a profiler.

use std::hint::black_box;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Int32Array, RecordBatch, UInt64Array};
use arrow_schema::{Field, Schema};
use lwc_file::{write_to_bytes, LwcFile, WriteOptions};
use lwc_testdata::timing::race;

const ROUNDS: usize = 21;
const PROFILE_SECONDS: u64 = 5;

/// A fixed-seed stream of 64-bit numbers (an LCG's high bits).
fn random(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed;
    move || {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        x >> 16
    }
}

fn main() -> Result<(), lwc_file::Error> {
    let rows: usize = std::env::var("ROWS").ok().and_then(|r| r.parse().ok()).unwrap_or(6_001_215);
    let orderkey: Vec<i32> = lwc_testdata::shapes::l_orderkey(rows).into_iter().map(|k| k as i32).collect();
    let mut next = random(7);
    let quantity: Int32Array = (0..rows)
        .map(|i| {
            let q = (next() % 50 + 1) as i32;
            (i % 7 != (q as usize) % 7).then_some(q)
        })
        .collect();
    let mut columns: Vec<(&str, ArrayRef)> =
        vec![("l_orderkey", Arc::new(Int32Array::from(orderkey))), ("l_quantity", Arc::new(quantity))];
    // Free text, short strings with nulls and doubles: the columns taken by segment, not as integers.
    let orders = lwc_testdata::orders(rows, 1);
    for name in ["o_comment", "o_status", "o_price_f64"] {
        columns.push((name, orders.column_by_name(name).expect("an orders column").clone()));
    }
    let schema = Arc::new(Schema::new(
        columns
            .iter()
            .map(|(name, a)| Field::new(*name, a.data_type().clone(), a.null_count() > 0))
            .collect::<Vec<_>>(),
    ));
    let batch = RecordBatch::try_new(schema.clone(), columns.iter().map(|(_, a)| a.clone()).collect())
        .expect("columns of one length");
    let file = LwcFile::from_bytes(write_to_bytes(schema, &[batch], WriteOptions::default())?)?;
    println!("{rows} rows; take as a ratio to Arrow's take of the plain column (median of {ROUNDS} rounds in turns)");
    let only = std::env::var("COLUMN").ok();
    let profile = std::env::var("PROFILE").is_ok();
    let takes: Vec<usize> = match std::env::var("TAKES") {
        Ok(list) => list.split(',').map(|k| k.trim().parse().expect("TAKES: row counts, comma-separated")).collect(),
        Err(_) => vec![100, 1_000, 100_000, 1_000_000],
    };
    for (c, (name, plain)) in
        columns.iter().enumerate().filter(|(_, (name, _))| only.as_deref().is_none_or(|o| o == *name))
    {
        let info = &file.columns()[c];
        let cascades: Vec<String> = info.cascades.iter().map(|(cascade, n)| format!("{cascade} x{n}")).collect();
        let mut line = format!("{name:<10} ({} segments: {})", info.segments.len(), cascades.join(", "));
        for &k in &takes {
            let mut next = random(k as u64);
            let mut picks: Vec<u64> = (0..k).map(|_| next() % rows as u64).collect();
            for order in ["random", "sorted"] {
                if order == "sorted" {
                    picks.sort_unstable();
                }
                let indices = UInt64Array::from(picks.clone());
                let want = arrow_select::take::take(plain.as_ref(), &indices, None).expect("rows in range");
                assert_eq!(file.take(c, &picks)?.as_ref(), want.as_ref(), "{name}: take of {k} {order} rows");
                let arrow = || {
                    black_box(arrow_select::take::take(plain.as_ref(), black_box(&indices), None).expect("in range"));
                };
                let lwc = || {
                    black_box(file.take(c, black_box(&picks)).expect("rows in range"));
                };
                if profile {
                    // Only lwc's take, long enough for a profiler to see it apart from the encode.
                    let start = std::time::Instant::now();
                    while start.elapsed().as_secs() < PROFILE_SECONDS {
                        lwc();
                    }
                    return Ok(());
                }
                let (arrow, lwc) = race(ROUNDS, arrow, lwc);
                line += &format!(" | {k} {order} {:.2}x ({:.1} µs)", lwc / arrow, lwc * 1e6);
            }
        }
        println!("{line}");
    }
    Ok(())
}
