//! `Auto` never fails: whatever the values, nulls, segment size, type and objective, choosing encodings
//! writes a column that reads back as it went in. A choice made on a sample that does not fit the whole
//! stream falls back to the next best, and the explain record says so.

use lwc::types::Word;
use lwc::{AccessMix, Bitmap, EncodeOptions, EncodedColumn, EncodingId, LwcInt, Objective};
use proptest::prelude::*;

/// The objectives a caller can ask for.
fn objectives() -> [Objective; 5] {
    [
        Objective::Size,
        Objective::Scan,
        Objective::Random,
        Objective::Balanced,
        Objective::Mix(AccessMix { scan: 1.0, get: 0.1 }),
    ]
}

/// Value shapes that trip samples: sequences with one break, multiples with one exception, runs, few
/// distinct values, extremes, and plain noise.
fn shaped<T: LwcInt>(shape: u8, n: usize, seed: u64) -> Vec<T> {
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let word = |v: u64| T::from_bits(T::Unsigned::from_u64(v));
    let broken = (seed as usize) % n.max(1);
    (0..n)
        .map(|i| {
            let i64 = i as u64;
            match shape % 8 {
                0 => word(next()),
                1 => word(1_000 + 3 * i64 + u64::from(i == broken)),
                2 => word(5 * (next() % 400) + u64::from(i == broken)),
                3 => word(i64 / (1 + seed % 50)),
                4 => word([7, 900, 3, 65_000][(next() % 4) as usize]),
                5 => [T::MIN, T::MAX, T::default()][(next() % 3) as usize],
                6 => word(1_200 + (i64 * 37) % 1_200 + if next() % 40 == 0 { 40 } else { 0 }),
                _ => word(next() % 16),
            }
        })
        .collect()
}

/// Null patterns: none, scattered, in runs, at every segment boundary, all null, one non-null.
fn validity(pattern: u8, n: usize, segment_rows: usize, seed: u64) -> Option<Bitmap> {
    let bits: Vec<bool> = (0..n)
        .map(|i| match pattern % 6 {
            0 => true,
            1 => (i as u64).wrapping_mul(seed | 1) % 41 != 7,
            2 => (i / 97) % 3 != 1,
            3 => !(i % segment_rows == 0 || i % segment_rows == segment_rows - 1),
            4 => false,
            _ => i == (seed as usize) % n.max(1),
        })
        .collect();
    (!pattern.is_multiple_of(6)).then(|| Bitmap::from_bools(&bits))
}

fn round_trips<T: LwcInt>(shape: u8, pattern: u8, n: usize, segment_rows: usize, seed: u64) {
    let values: Vec<T> = shaped(shape, n, seed);
    let validity = validity(pattern, n, segment_rows, seed);
    let want: Vec<Option<T>> =
        (0..n).map(|i| validity.as_ref().is_none_or(|v| v.get(i)).then_some(values[i])).collect();
    for objective in objectives() {
        let options = EncodeOptions { segment_rows, ..EncodeOptions::with_objective(objective) };
        let what =
            format!("{} shape {shape} nulls {pattern}, {n} rows in segments of {segment_rows}, {objective}", T::TYPE);
        let encoded = EncodedColumn::encode(&values, validity.as_ref(), options)
            .unwrap_or_else(|e| panic!("{what}: Auto failed: {e}"));
        let column = encoded.open::<T>().unwrap();
        assert_eq!(column.decode(0..n as u64).unwrap().to_options(), want, "{what}");
        let sum: i128 = want.iter().flatten().map(|v| v.to_i128()).sum();
        assert_eq!(column.aggregate(None).unwrap().sum, sum, "{what}: sum");
    }
}

macro_rules! per_type {
    ($($t:ident),*) => {$(
        mod $t {
            use super::*;
            proptest! {
                #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]
                #[test]
                fn auto_never_fails(
                    shape in 0u8..8,
                    pattern in 0u8..6,
                    n in prop_oneof![1usize..70, 2_500usize..9_000],
                    segment_rows in prop_oneof![Just(1usize), Just(3), Just(64), Just(65), Just(4_096), Just(65_536)],
                    seed in any::<u64>(),
                ) {
                    // One-row segments over thousands of rows cost a segment header each: keep them short.
                    let n = if segment_rows < 64 { n.min(300) } else { n };
                    round_trips::<$t>(shape, pattern, n, segment_rows, seed);
                }
            }
        }
    )*};
}
per_type!(u8, u16, u32, u64, i8, i16, i32, i64);

/// The rows around 2^16, where segments split.
#[test]
fn auto_never_fails_around_the_segment_boundary() {
    for n in [65_535, 65_536, 65_537] {
        for (shape, pattern) in [(1, 3), (2, 1), (6, 2), (3, 5)] {
            round_trips::<i32>(shape, pattern, n, 65_536, n as u64);
        }
    }
}

/// A stream whose sample is an arithmetic sequence but whose last row breaks it: `sequence` is chosen on
/// the sample, does not apply, and the next best is written; the explain record names the fallback.
#[test]
fn a_choice_that_does_not_apply_falls_back_and_says_so() {
    let mut values: Vec<u32> = (0..65_536).map(|i| 1_000 + 3 * i).collect();
    *values.last_mut().unwrap() += 1;
    let encoded = EncodedColumn::encode(&values, None, EncodeOptions::default().explained()).unwrap();
    let explain = &encoded.explains()[0];
    assert_eq!(explain.fallbacks.len(), 1, "{explain}");
    assert_eq!(explain.fallbacks[0].encoding, EncodingId::Sequence);
    assert!(explain.to_string().contains("chose sequence first, but it did not apply"), "{explain}");
    assert_ne!(explain.chosen.encoding().id(), Some(EncodingId::Sequence));
    let column = encoded.open::<u32>().unwrap();
    assert_eq!(column.decode(0..65_536).unwrap().values, values);
}

/// Multiples of 5 but for one row the sample misses: the divisor is checked on every value, so `gcd` is
/// never chosen (the root cause of `lwc compress` failing on nullable clock times).
#[test]
fn a_divisor_only_the_sample_has_is_not_taken() {
    let mut values: Vec<u32> = (0..65_536u32).map(|i| 5 * ((i * 7_919) % 4_000)).collect();
    values[65_535] += 1;
    let encoded = EncodedColumn::encode(&values, None, EncodeOptions::default().explained()).unwrap();
    let explain = &encoded.explains()[0];
    assert!(explain.fallbacks.is_empty(), "{explain}");
    let gcd = explain.candidates.iter().find(|c| c.encoding == EncodingId::Gcd).unwrap();
    assert_eq!(gcd.note, "no common divisor", "{explain}");
}
