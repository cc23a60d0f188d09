//! Common divisors, and division by one. A 64-bit division takes tens of cycles where a multiply takes
//! three; dividing a multiple of `d` is exact, and an exact division is a multiply by the inverse of
//! `d`'s odd part modulo 2^64 and a rotate, which tells in the same step whether `d` divided at all
//! (Granlund and Montgomery, 1994; Hacker's Delight, 10-16). `gcd` writes, and the selector checks, a
//! divisor of every value of a stream: a multiply a value where Euclid took one or two divisions.
//! [`EqualParts`] divides rows by a column's segment length, exactly, with a multiply by its reciprocal.

use crate::types::{LwcInt, Word};

/// Division by a fixed `d > 0` of values that are mostly its multiples.
#[derive(Clone, Copy, Debug)]
pub struct ExactDivisor {
    /// The inverse of `d`'s odd part modulo 2^64.
    inverse: u64,
    /// `d`'s trailing zero bits.
    shift: u32,
    /// The largest quotient: `u64::MAX / d`.
    limit: u64,
}

impl ExactDivisor {
    /// The divisor `d`; `None` for 0.
    pub fn new(d: u64) -> Option<Self> {
        if d == 0 {
            return None;
        }
        let shift = d.trailing_zeros();
        let odd = d >> shift;
        // An odd number is its own inverse modulo 8 (3 bits); each Newton step doubles the bits that are right.
        let mut inverse = odd;
        for _ in 0..5 {
            inverse = inverse.wrapping_mul(2u64.wrapping_sub(odd.wrapping_mul(inverse)));
        }
        Some(ExactDivisor { inverse, shift, limit: u64::MAX / d })
    }

    /// `x / d` where `d` divides `x`; where it does not, some value above `u64::MAX / d`.
    #[inline(always)]
    pub fn quotient(&self, x: u64) -> u64 {
        x.wrapping_mul(self.inverse).rotate_right(self.shift)
    }

    /// Whether `d` divides `x`.
    #[inline(always)]
    pub fn divides(&self, x: u64) -> bool {
        self.quotient(x) <= self.limit
    }
}

/// Where a row of a list cut into parts of one length (a column's segments, every one but the last
/// full) falls: its part and its place in it. A power of two is a shift and a mask; any other length a
/// multiply by its reciprocal, where a search of the parts' starts took 10-12 ns a lookup against 4-5 ns
/// (a column of 100,000-row segments, AMD EPYC Zen 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EqualParts {
    /// Rows of each part.
    len: u64,
    cut: Cut,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cut {
    /// The length is `2^shift`.
    Shift(u32),
    /// `m = ⌊2^64 / len⌋ + 1`, so that `m · len = 2^64 + e` with `0 < e < len`: the high word of
    /// `row · m` is `row / len + (row mod len) / len + row · e / (len · 2^64)`, rounded down, which is the
    /// quotient wherever `row · len < 2^64` (the last term then stays under `1 / len`).
    Reciprocal(u64),
}

impl EqualParts {
    /// Parts of `len` rows, for rows below `rows`; `None` where `len` is 0, or is not a power of two and
    /// `rows · len` overflows (where the reciprocal stops being exact).
    pub fn new(len: u64, rows: u64) -> Option<Self> {
        if len.is_power_of_two() {
            return Some(EqualParts { len, cut: Cut::Shift(len.trailing_zeros()) });
        }
        let exact = len > 0 && rows.checked_mul(len).is_some();
        exact.then(|| EqualParts { len, cut: Cut::Reciprocal(u64::MAX / len + 1) })
    }

    /// The parts of a list cut into parts of these lengths, where every one but the last holds as many
    /// rows as the first and the last no more; `None` otherwise, or where [`EqualParts::new`] gives none.
    /// A lone part of any length is cut as if its length were the next power of two: a shift, where a
    /// search of its one start cost a lookup of 65,535 rows a third more than one of 65,536 (AMD EPYC
    /// Zen 5).
    pub fn of_lengths(lengths: &[u64]) -> Option<Self> {
        let (&last, rest) = lengths.split_last()?;
        let first = rest.first().copied().unwrap_or(last);
        let rows = rest.iter().try_fold(last, |rows, &len| rows.checked_add(len))?;
        match rest {
            [] if last > 0 => EqualParts::new(last.checked_next_power_of_two()?, rows),
            _ if rest.iter().all(|&len| len == first) && last <= first => EqualParts::new(first, rows),
            _ => None,
        }
    }

    /// Rows of each part.
    pub fn part_len(&self) -> u64 {
        self.len
    }

    /// The part of `row` and its place in it, for `row` below [`EqualParts::new`]'s `rows` (above it,
    /// some pair, without a panic).
    #[inline(always)]
    pub fn locate(&self, row: u64) -> (u64, u64) {
        match self.cut {
            Cut::Shift(shift) => (row >> shift, row & (self.len - 1)),
            Cut::Reciprocal(m) => {
                let part = ((row as u128 * m as u128) >> 64) as u64;
                (part, row.wrapping_sub(part.wrapping_mul(self.len)))
            }
        }
    }
}

with_avx2! {
    /// Each value's offset from `min` divided by `by` into `out` (as long as `values`): whether `by` divided
    /// them all. Where one is not a multiple, `out` holds some words, not its quotients. One pass that
    /// divides and checks: the divisor of a stream's first rows usually divides the rest.
    pub fn divide_offsets[T: LwcInt](values: &[T], min: T, by: ExactDivisor, out: &mut [T::Unsigned]) -> bool {
        let mut largest = 0;
        for (quotient, v) in out.iter_mut().zip(values) {
            let q = by.quotient(v.offset_from(min).to_u64());
            largest = largest.max(q);
            *quotient = T::Unsigned::from_u64(q);
        }
        largest <= by.limit
    }
}

with_avx2! {
    /// `words[i] = reference + d · words[i]` in place, wrapping in the word: the values back from their
    /// quotients (what [`divide_offsets`] wrote). Multiplied in the word itself, which is the same modulo
    /// its width as the 64-bit product cut to it, and lets 32-bit words take one vector multiply a lane.
    pub fn multiply_offsets[U: Word](words: &mut [U], reference: U, d: U) -> () {
        for w in words.iter_mut() {
            *w = reference.wrapping_add(w.wrapping_mul(d));
        }
    }
}

with_avx2! {
    /// Whether `by` divides every value's offset from `min`: a multiply and a compare a value, in blocks
    /// that stop the pass at the first block holding a value it does not divide.
    pub fn divides_offsets[T: LwcInt](values: &[T], min: T, by: ExactDivisor) -> bool {
        values.chunks(1024).all(|block| {
            block.iter().map(|v| by.quotient(v.offset_from(min).to_u64())).fold(0, u64::max) <= by.limit
        })
    }
}

/// The greatest common divisor of `values` (0 when all are 0); stops as soon as it reaches 1. Values that
/// the divisor so far divides cost a multiply; only one that breaks it costs Euclid's divisions.
pub fn common_divisor(values: impl IntoIterator<Item = u64>) -> u64 {
    let (mut d, mut exact) = (0, None::<ExactDivisor>);
    for v in values {
        if exact.is_some_and(|e| e.divides(v)) {
            continue;
        }
        d = gcd(d, v);
        if d == 1 {
            break;
        }
        exact = ExactDivisor::new(d);
    }
    d
}

/// Euclid's greatest common divisor (`gcd(0, b) = b`).
fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Divisors with few and many trailing zeros, odd ones, and the extremes.
    fn divisors() -> impl Strategy<Value = u64> {
        prop_oneof![
            1u64..=1_000,
            any::<u64>().prop_map(|d| d.max(1)),
            (0u32..64).prop_map(|k| 1 << k),
            (1u64..1_000, 0u32..50).prop_map(|(d, k)| d << k),
        ]
    }

    proptest! {
        #[test]
        fn quotients_and_divisibility_match_division(d in divisors(), x in any::<u64>(), q in any::<u64>()) {
            let e = ExactDivisor::new(d).unwrap();
            prop_assert_eq!(e.divides(x), x % d == 0);
            // Every quotient up to the largest: the multiple `q · d` does not overflow.
            let q = q.checked_rem(e.limit.wrapping_add(1)).unwrap_or(q);
            prop_assert!(e.divides(q * d));
            prop_assert_eq!(e.quotient(q * d), q);
        }

        #[test]
        fn common_divisors_match_euclid(values in prop::collection::vec(prop_oneof![any::<u64>(), (0u64..1_000).prop_map(|v| v * 60), Just(0)], 0..40)) {
            let euclid = values.iter().fold(0, |d, &v| gcd(d, v));
            prop_assert_eq!(common_divisor(values.iter().copied()), euclid);
        }
    }

    proptest! {
        #[test]
        fn offsets_divide_as_division_does(values in prop::collection::vec(-1_000i64..1_000, 1..300), d in 1u64..40) {
            let min = *values.iter().min().unwrap();
            let by = ExactDivisor::new(d).unwrap();
            let mut out = vec![0u64; values.len()];
            let divided = divide_offsets(&values, min, by, &mut out);
            let offsets: Vec<u64> = values.iter().map(|&v| (v - min) as u64).collect();
            prop_assert_eq!(divided, offsets.iter().all(|o| o % d == 0));
            prop_assert_eq!(divides_offsets(&values, min, by), divided);
            if divided {
                prop_assert_eq!(out, offsets.iter().map(|o| o / d).collect::<Vec<_>>());
            }
        }
    }

    proptest! {
        /// Values back from quotients, in each word, as the 64-bit product and sum cut to the word.
        #[test]
        fn offsets_multiply_as_the_wide_product_cut_to_the_word(
            quotients in prop::collection::vec(any::<u64>(), 0..100), reference in any::<u64>(), d in divisors()
        ) {
            let wide: Vec<u64> = quotients.iter().map(|&q| reference.wrapping_add(q.wrapping_mul(d))).collect();
            // The same in a narrower word: its quotients, reference and divisor cut to it.
            let cut = |q: u64, bits: u32| reference.wrapping_add((q & u64::MAX >> (64 - bits)).wrapping_mul(d));
            super::super::on_every_path(|| {
                let mut words = quotients.clone();
                multiply_offsets(&mut words, reference, d);
                assert_eq!(words, wide);
                let mut words: Vec<u32> = quotients.iter().map(|&q| q as u32).collect();
                multiply_offsets(&mut words, reference as u32, d as u32);
                assert!(words.iter().zip(&quotients).all(|(&w, &q)| w == cut(q, 32) as u32));
                let mut words: Vec<u8> = quotients.iter().map(|&q| q as u8).collect();
                multiply_offsets(&mut words, reference as u8, d as u8);
                assert!(words.iter().zip(&quotients).all(|(&w, &q)| w == cut(q, 8) as u8));
            });
        }
    }

    proptest! {
        #[test]
        fn rows_locate_as_division_does(len in divisors(), rows in any::<u64>(), row in any::<u64>()) {
            // Rows up to the most the reciprocal divides exactly, and any number (mostly past that).
            let fitting = rows.checked_rem((u64::MAX / len).wrapping_add(1)).unwrap_or(rows);
            for rows in [fitting, rows] {
                match EqualParts::new(len, rows) {
                    Some(parts) => {
                        // A row below `rows`, the part's first row before it, and the last row (the widest
                        // product).
                        let row = row.checked_rem(rows).unwrap_or(0);
                        for row in [row, row - row % len, rows.saturating_sub(1)] {
                            prop_assert_eq!(parts.locate(row), (row / len, row % len), "{} of parts of {}", row, len);
                        }
                        parts.locate(u64::MAX);
                    }
                    None => prop_assert!(!len.is_power_of_two() && rows.checked_mul(len).is_none()),
                }
            }
        }
    }

    #[test]
    fn equal_parts_edges() {
        assert_eq!(EqualParts::new(0, 10), None);
        assert_eq!(EqualParts::new(0, 0), None);
        // Segment lengths a column may have, over rows near the exact limit.
        for len in [3u64, 100_000, 122_880, 65_535, 65_537, u32::MAX as u64] {
            let top = u64::MAX / len;
            let parts = EqualParts::new(len, top).expect("rows · len fits");
            for row in
                [0, 1, len - 1, len, len + 1, 7 * len - 1, top - 1, top / 2, top / 3].into_iter().filter(|&r| r < top)
            {
                assert_eq!(parts.locate(row), (row / len, row % len), "{row} in parts of {len}");
            }
            assert_eq!(EqualParts::new(len, top + 1), None);
        }
        let one = EqualParts::new(1, u64::MAX).unwrap();
        assert_eq!(one.locate(u64::MAX), (u64::MAX, 0));
        let top = EqualParts::new(1 << 63, u64::MAX).unwrap();
        assert_eq!(top.locate(u64::MAX), (1, (1 << 63) - 1));
    }

    #[test]
    fn parts_of_lengths_locate_every_row_as_a_search_of_the_starts_does() {
        let equal: &[&[u64]] =
            &[&[5], &[65_535], &[1], &[7, 7, 7], &[7, 7, 3], &[7, 7, 0], &[100, 100, 100, 1], &[8, 8]];
        for &lengths in equal {
            let parts = EqualParts::of_lengths(lengths).expect("equal parts");
            let starts: Vec<u64> = std::iter::once(0).chain(lengths.iter().scan(0, |at, &l| Some(*at + l))).collect();
            for row in 0..*starts.last().unwrap() {
                let part = starts.partition_point(|&s| s <= row) - 1;
                assert_eq!(parts.locate(row), (part as u64, row - starts[part]), "{row} in {lengths:?}");
            }
        }
        for lengths in
            [&[][..], &[0], &[0, 0], &[7, 8], &[7, 6, 7], &[7, 7, 8], &[u64::MAX, 2], &[u64::MAX, u64::MAX, 1]]
        {
            assert_eq!(EqualParts::of_lengths(lengths), None, "{lengths:?}");
        }
    }

    #[test]
    fn edges() {
        assert!(ExactDivisor::new(0).is_none());
        let one = ExactDivisor::new(1).unwrap();
        assert!(one.divides(u64::MAX) && one.quotient(u64::MAX) == u64::MAX);
        let top = ExactDivisor::new(u64::MAX).unwrap();
        assert!(top.divides(0) && top.divides(u64::MAX) && !top.divides(u64::MAX - 1));
        let half = ExactDivisor::new(1 << 63).unwrap();
        assert!(half.divides(1 << 63) && !half.divides(1 << 62) && half.quotient(1 << 63) == 1);
        assert_eq!(common_divisor([0, 0]), 0);
        assert_eq!(common_divisor([0, 6, 9, 15]), 3);
        assert_eq!(common_divisor([100, 200, 300, 250, 7]), 1);
    }
}
