//! Table builders shared by the modules.

use std::sync::Arc;

use arrow_array::types::*;
use arrow_array::*;
use arrow_schema::{Field, Schema};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A value at row `i`, null every `every` rows (when `every > 0`).
fn opt<T>(i: usize, every: usize, v: T) -> Option<T> {
    (every == 0 || i % every != 3).then_some(v)
}

/// One table with every supported type, nulls in the nullable columns.
pub fn all_types(rows: usize, seed: u64) -> RecordBatch {
    let mut rng = StdRng::seed_from_u64(seed);
    let r: Vec<i64> = (0..rows).map(|_| rng.gen()).collect();
    let words = ["alpha", "beta", "gamma", "δέλτα", ""];
    let mut fields = Vec::new();
    let mut cols: Vec<ArrayRef> = Vec::new();
    let mut add = |name: &str, nullable: bool, a: ArrayRef| {
        fields.push(Field::new(name, a.data_type().clone(), nullable));
        cols.push(a);
    };
    add("i8", true, Arc::new(Int8Array::from_iter((0..rows).map(|i| opt(i, 5, r[i] as i8)))));
    add("i16", true, Arc::new(Int16Array::from_iter((0..rows).map(|i| opt(i, 6, r[i] as i16)))));
    add("i32", false, Arc::new(Int32Array::from_iter_values((0..rows).map(|i| i as i32 * 3 - 100))));
    add(
        "i64",
        true,
        Arc::new(Int64Array::from_iter((0..rows).map(|i| {
            opt(
                i,
                7,
                match i % 4 {
                    0 => i64::MIN,
                    1 => i64::MAX,
                    _ => r[i],
                },
            )
        }))),
    );
    add("u8", true, Arc::new(UInt8Array::from_iter((0..rows).map(|i| opt(i, 9, (i % 3) as u8)))));
    add("u16", false, Arc::new(UInt16Array::from_iter_values((0..rows).map(|i| r[i] as u16))));
    add("u32", true, Arc::new(UInt32Array::from_iter((0..rows).map(|i| opt(i, 4, 7u32)))));
    add(
        "u64",
        true,
        Arc::new(UInt64Array::from_iter(
            (0..rows).map(|i| opt(i, 11, if i % 2 == 0 { u64::MAX } else { r[i] as u64 })),
        )),
    );
    add("bool", true, Arc::new(BooleanArray::from_iter((0..rows).map(|i| opt(i, 5, r[i] % 3 == 0)))));
    add("date32", true, Arc::new(Date32Array::from_iter((0..rows).map(|i| opt(i, 8, 19_000 + i as i32)))));
    add(
        "date64",
        true,
        Arc::new(Date64Array::from_iter((0..rows).map(|i| opt(i, 8, 1_600_000_000_000 + i as i64 * 86_400_000)))),
    );
    add(
        "ts_utc",
        true,
        Arc::new(
            TimestampMicrosecondArray::from_iter(
                (0..rows).map(|i| opt(i, 10, 1_700_000_000_000_000 + r[i] % 1_000_000)),
            )
            .with_timezone("Europe/Oslo"),
        ),
    );
    add("ts_ns", false, Arc::new(TimestampNanosecondArray::from_iter_values((0..rows).map(|i| i as i64 * 1000))));
    add(
        "time32",
        true,
        Arc::new(Time32MillisecondArray::from_iter((0..rows).map(|i| opt(i, 6, (i % 86_400_000) as i32)))),
    );
    add("time64", true, Arc::new(Time64NanosecondArray::from_iter((0..rows).map(|i| opt(i, 6, i as i64)))));
    add("duration", true, Arc::new(DurationSecondArray::from_iter((0..rows).map(|i| opt(i, 5, r[i] % 1000)))));
    add(
        "dec32",
        true,
        Arc::new(
            Decimal32Array::from_iter((0..rows).map(|i| opt(i, 5, (r[i] % 10_000_000) as i32)))
                .with_precision_and_scale(9, 2)
                .unwrap(),
        ),
    );
    add(
        "dec64",
        true,
        Arc::new(
            Decimal64Array::from_iter((0..rows).map(|i| opt(i, 5, r[i] % 1_000_000_000_000)))
                .with_precision_and_scale(15, -3)
                .unwrap(),
        ),
    );
    add(
        "dec128_small",
        true,
        Arc::new(
            Decimal128Array::from_iter((0..rows).map(|i| opt(i, 5, (r[i] % 100_000_000_000_000_000) as i128)))
                .with_precision_and_scale(18, 4)
                .unwrap(),
        ),
    );
    add(
        "dec128_wide",
        true,
        Arc::new(
            Decimal128Array::from_iter((0..rows).map(|i| opt(i, 5, r[i] as i128 * 1_000_000_000_000)))
                .with_precision_and_scale(38, 10)
                .unwrap(),
        ),
    );
    add("f16", true, Arc::new(Float16Array::from_iter((0..rows).map(|i| opt(i, 5, half_of(i))))));
    add("f32", true, Arc::new(Float32Array::from_iter((0..rows).map(|i| opt(i, 5, i as f32 / 3.0)))));
    add(
        "f64",
        false,
        Arc::new(Float64Array::from_iter_values((0..rows).map(|i| if i % 3 == 0 { f64::NAN } else { r[i] as f64 }))),
    );
    add("s_dict", true, Arc::new(StringArray::from_iter((0..rows).map(|i| opt(i, 4, words[i % words.len()])))));
    add("s_plain", true, Arc::new(StringArray::from_iter((0..rows).map(|i| opt(i, 4, format!("row-{}-{}", i, r[i]))))));
    add(
        "ls_dict",
        true,
        Arc::new(LargeStringArray::from_iter((0..rows).map(|i| opt(i, 3, words[(r[i] as usize) % 2])))),
    );
    add("ls_plain", false, Arc::new(LargeStringArray::from_iter_values((0..rows).map(|i| format!("{:x}", r[i])))));
    add("bin", true, Arc::new(BinaryArray::from_iter((0..rows).map(|i| opt(i, 4, r[i].to_le_bytes().to_vec())))));
    add("lbin", true, Arc::new(LargeBinaryArray::from_iter((0..rows).map(|i| opt(i, 4, vec![(i % 2) as u8; i % 3])))));
    let schema = Schema::new(fields).with_metadata([("origin".to_string(), "test".to_string())].into());
    RecordBatch::try_new(Arc::new(schema), cols).unwrap()
}

type F16 = <Float16Type as ArrowPrimitiveType>::Native;

fn half_of(i: usize) -> F16 {
    F16::from_f32(i as f32 * 0.25)
}

/// Cuts a batch into slices of the given sizes (cycling), covering all rows.
pub fn cut(batch: &RecordBatch, sizes: &[usize]) -> Vec<RecordBatch> {
    let mut out = Vec::new();
    let (mut at, mut k) = (0, 0);
    while at < batch.num_rows() {
        let n = sizes[k % sizes.len()].min(batch.num_rows() - at);
        out.push(batch.slice(at, n));
        at += n;
        k += 1;
    }
    out
}
