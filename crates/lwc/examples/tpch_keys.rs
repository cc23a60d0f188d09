//! Sizes of the sorted TPC-H key columns at scale factor 1 under run-length cascades, in segments of
//! 65,536 rows, as `i32` and `i64`: `ps_partkey` (part keys 1..=200,000, each four times) and `l_orderkey`
//! (6,001,215 rows: order keys sparse as dbgen makes them, `(i / 8) * 32 + i % 8 + 1` for the i-th order,
//! each repeated for its 1 to 7 line items). Every column is decoded back and compared.
//!
//! Run: `cargo run --release -p lwc --example tpch_keys`.

use lwc::{Cascade, EncodeOptions, EncodedColumn, LwcInt};
use rand::{rngs::StdRng, Rng, SeedableRng};

const PS_PARTKEY_ROWS: usize = 800_000;
const L_ORDERKEY_ROWS: usize = 6_001_215;

fn ps_partkey() -> Vec<i64> {
    (0..PS_PARTKEY_ROWS as i64).map(|i| i / 4 + 1).collect()
}

/// Line items of orders in key order; the number per order is uniform in 1..=7, as in dbgen.
fn l_orderkey() -> Vec<i64> {
    let mut rng = StdRng::seed_from_u64(1);
    let mut keys = Vec::with_capacity(L_ORDERKEY_ROWS + 7);
    for order in 0.. {
        if keys.len() >= L_ORDERKEY_ROWS {
            break;
        }
        let key = (order / 8) * 32 + order % 8 + 1;
        keys.extend(std::iter::repeat_n(key, rng.gen_range(1..=7)));
    }
    keys.truncate(L_ORDERKEY_ROWS);
    keys
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
        ("ps_partkey", ps_partkey(), &["rle(sequence, sequence)", "rle", "for_n", "delta2", "auto"][..]),
        (
            "l_orderkey",
            l_orderkey(),
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
