//! Sizes of the sorted TPC-H key columns at scale factor 1 under run-length cascades, in segments of
//! 65,536 rows, as `i32` and `i64`: `ps_partkey` (part keys 1..=200,000, each four times) and `l_orderkey`
//! (6,001,215 rows: order keys sparse as dbgen makes them, `(i / 8) * 32 + i % 8 + 1` for the i-th order,
//! each repeated for its 1 to 7 line items). Every column is decoded back and compared.
//!
//! Run: `cargo run --release -p lwc --example tpch_keys`.

use lwc::{Cascade, EncodeOptions, EncodedColumn, LwcInt};
use lwc_testdata::shapes;

const PS_PARTKEY_ROWS: usize = 800_000;
const L_ORDERKEY_ROWS: usize = 6_001_215;

/// A generated key column widened to `i64`, so it converts to every type under test.
fn wide(keys: Vec<u32>) -> Vec<i64> {
    keys.into_iter().map(i64::from).collect()
}

/// Encoded bytes of `values` as `T` under `cascade`, after checking that it decodes back.
fn size<T: LwcInt + TryFrom<i64>>(values: &[i64], cascade: &Cascade) -> Result<usize, lwc::Error> {
    let typed: Vec<T> = values.iter().map(|&v| T::try_from(v).ok().expect("keys fit")).collect();
    let encoded = EncodedColumn::encode(&typed, None, EncodeOptions::with_encoding(cascade.clone()))?;
    let column = encoded.open::<T>()?;
    assert_eq!(column.decode(0..typed.len() as u64)?.values, typed, "{cascade}");
    Ok(encoded.as_bytes().len())
}

fn main() -> Result<(), lwc::Error> {
    let columns = [
        (
            "ps_partkey",
            wide(shapes::ps_partkey(PS_PARTKEY_ROWS)),
            &["rle(sequence, sequence)", "rle", "for_n", "delta2", "auto"][..],
        ),
        (
            "l_orderkey",
            wide(shapes::l_orderkey(L_ORDERKEY_ROWS)),
            &[
                "rle(for_n, for_n)",
                "rle(for_n:16, for_n:16)",
                "rle(for_n, delta2)",
                "rle(delta2, delta2)",
                "rle(delta(dict), delta)",
                "rle",
                "for_n",
                "delta2",
                "auto",
            ][..],
        ),
    ];
    println!("| column | rows | cascade | i32 bytes | i64 bytes | i64 bits/row |");
    println!("|---|---|---|---|---|---|");
    for (name, values, cascades) in &columns {
        for text in cascades.iter() {
            let cascade: Cascade = text.parse()?;
            let (narrow, wide) = (size::<i32>(values, &cascade)?, size::<i64>(values, &cascade)?);
            let bits = wide as f64 * 8.0 / values.len() as f64;
            println!("| {name} | {} | `{text}` | {narrow} | {wide} | {bits:.2} |", values.len());
        }
    }
    Ok(())
}
