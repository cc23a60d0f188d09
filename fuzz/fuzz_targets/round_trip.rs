//! Arbitrary values in, the same values out: the input chooses a type, an encoding (or `auto` with an
//! objective), a segment size, the values and which rows are null; encoding must succeed for `auto` (a
//! forced encoding may say it does not apply), and the column must read back exactly, row by row.

#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use lwc::types::Word;
use lwc::{AccessMix, Bitmap, Cascade, EncodeOptions, EncodedColumn, Error, LwcInt, Objective};

/// The cascades an input picks from, built once.
static CASCADES: LazyLock<Vec<Cascade>> = LazyLock::new(lwc_fuzz::cascades);

fn round_trip<T: LwcInt>(data: &[u8]) {
    let Some((&[pick, objective, rows_byte, null_byte], rest)) = data.split_first_chunk::<4>() else {
        return;
    };
    let width = size_of::<T>();
    let values: Vec<T> = rest
        .chunks_exact(width)
        .map(|c| {
            let mut bytes = [0u8; 8];
            bytes[..width].copy_from_slice(c);
            T::from_bits(T::Unsigned::from_u64(u64::from_le_bytes(bytes)))
        })
        .collect();
    let nulls = null_byte % 4;
    let validity = (nulls > 0).then(|| {
        Bitmap::from_bools(
            &(0..values.len())
                .map(|i| !(i * 31 + null_byte as usize).is_multiple_of(nulls as usize * 3))
                .collect::<Vec<_>>(),
        )
    });
    let cascade = CASCADES[pick as usize % CASCADES.len()].clone();
    let objective = [
        Objective::Balanced,
        Objective::Size,
        Objective::Scan,
        Objective::Random,
        Objective::Mix(AccessMix { scan: 1.0, get: 0.5 }),
    ][objective as usize % 5];
    let segment_rows = [1, 7, 64, 1_000, 65_536][rows_byte as usize % 5];
    let options = EncodeOptions { cascade: cascade.clone(), segment_rows, objective, ..EncodeOptions::default() };
    let encoded = match EncodedColumn::encode(&values, validity.as_ref(), options) {
        Ok(e) => e,
        Err(Error::NotApplicable { .. }) if cascade.to_string() != "auto" => return,
        Err(e) => panic!("{cascade} under {objective}: {e}"),
    };
    let column = encoded.open::<T>().expect("a column just written opens");
    let want: Vec<Option<T>> =
        (0..values.len()).map(|i| validity.as_ref().is_none_or(|v| v.get(i)).then_some(values[i])).collect();
    assert_eq!(column.decode(0..values.len() as u64).unwrap().to_options(), want, "{cascade}");
    for (i, w) in want.iter().enumerate().step_by(7) {
        assert_eq!(column.get(i as u64).unwrap(), *w, "{cascade}: get({i})");
    }
    let rows: Vec<u64> = (0..values.len() as u64).rev().step_by(3).collect();
    let taken = column.take(&rows).unwrap().to_options();
    assert!(rows.iter().zip(&taken).all(|(&r, t)| *t == want[r as usize]), "{cascade}: take");
}

fuzz_target!(|data: &[u8]| {
    match data.first().map(|b| b % 8) {
        Some(0) => round_trip::<u8>(&data[1..]),
        Some(1) => round_trip::<u16>(&data[1..]),
        Some(2) => round_trip::<u32>(&data[1..]),
        Some(3) => round_trip::<u64>(&data[1..]),
        Some(4) => round_trip::<i8>(&data[1..]),
        Some(5) => round_trip::<i16>(&data[1..]),
        Some(6) => round_trip::<i32>(&data[1..]),
        Some(7) => round_trip::<i64>(&data[1..]),
        _ => {}
    }
});
