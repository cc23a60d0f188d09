//! Lone values read from many packed streams: a column cut into parts of one length, every part packed
//! at its own width. A scattered read finds its part by a shift (or a multiply) and reads one 8-byte load,
//! with no branch on the width and one check of the row, because each part's length, width and bytes
//! are checked once, when the parts are gathered here.

use super::{packed_len, PackedRef};
use crate::kernels::divisor::EqualParts;
use crate::types::Word;

/// Stands in for the bytes of a zero-width part, whose stream holds none: every field reads 0 from it.
static ZERO_FIELDS: [u8; 8] = [0; 8];

/// One part: its packed bytes (padding included), width, mask and what the caller reads a field with.
#[derive(Clone, Copy)]
struct Part<'a, E> {
    bytes: &'a [u8],
    w: u32,
    mask: u64,
    extra: E,
}

/// Packed streams read as one list of values: part `p` holds values `p · cut.part_len() ..`, every part
/// but the last exactly `cut.part_len()` of them, each part at most 56 bits wide.
pub struct FieldsInParts<'a, E> {
    parts: Vec<Part<'a, E>>,
    cut: EqualParts,
    len: u64,
    /// Every part's width, when they share one: reads then keep it in a register.
    width: Option<u32>,
}

impl<'a, E: Copy> FieldsInParts<'a, E> {
    /// The parts, each with what a field of it is read with (a base, a dictionary); `None` unless every
    /// part but the last holds `part_len` values, the last one at least one and at most that, each is at
    /// most 56 bits wide (a field is then one 8-byte load), and they hold fewer than 2^64 values together
    /// (fewer than `2^64 / part_len` where that is not a power of two: see [`EqualParts::new`]).
    pub fn new<U: Word>(parts: impl IntoIterator<Item = (PackedRef<'a, U>, E)>, part_len: u64) -> Option<Self> {
        let (mut len, mut last) = (0u64, part_len);
        let parts = parts.into_iter();
        let mut gathered = Vec::with_capacity(parts.size_hint().0);
        for (fields, extra) in parts {
            // Only the last part may be short.
            if last != part_len || fields.is_empty() || fields.len() as u64 > part_len || fields.width() > 56 {
                return None;
            }
            last = fields.len() as u64;
            // Zero-width parts take no bytes, so nothing else bounds their lengths.
            len = len.checked_add(last)?;
            let w = fields.width();
            let bytes = if w == 0 { &ZERO_FIELDS[..] } else { fields.bytes() };
            debug_assert!(w == 0 || bytes.len() >= packed_len(fields.len(), w));
            gathered.push(Part { bytes, w, mask: low_mask(w), extra });
        }
        let width = gathered.first().map(|p| p.w).filter(|&w| gathered.iter().all(|p| p.w == w));
        Some(FieldsInParts { parts: gathered, cut: EqualParts::new(part_len, len)?, len, width })
    }

    /// Values in all parts together.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether there is no part.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `out[k] = value(extra of its part, place of rows[k] in its part, field rows[k])`, rows in any order;
    /// `Err(row)` at the first row `>= len()` (`out` written up to it). The place serves parts whose values
    /// add more than one base (a reference per block).
    #[inline]
    pub fn gather<R: Copy + Into<u64>, T>(
        &self,
        rows: &[R],
        out: &mut [T],
        value: impl Fn(E, usize, u64) -> T,
    ) -> Result<(), u64> {
        #[cfg(target_arch = "x86_64")]
        if crate::kernels::cpu::avx2_bmi2() {
            // SAFETY: the CPU has BMI2, checked just above.
            return unsafe { self.gather_bmi2(rows, out, value) };
        }
        self.gather_rows(rows, out, value)
    }

    /// [`FieldsInParts::gather`] with BMI2's shifts by any register (no move of each count to `cl`).
    ///
    /// # Safety
    /// The CPU supports BMI2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "bmi2")]
    unsafe fn gather_bmi2<R: Copy + Into<u64>, T>(
        &self,
        rows: &[R],
        out: &mut [T],
        value: impl Fn(E, usize, u64) -> T,
    ) -> Result<(), u64> {
        self.gather_rows(rows, out, value)
    }

    #[inline(always)]
    fn gather_rows<R: Copy + Into<u64>, T>(
        &self,
        rows: &[R],
        out: &mut [T],
        value: impl Fn(E, usize, u64) -> T,
    ) -> Result<(), u64> {
        match self.width {
            // Every field zero (constant segments): the loop reads no field at all.
            Some(0) => self.gather_at(rows, out, value, |_| (0, 0)),
            Some(w) => self.gather_at(rows, out, value, |_| (w, low_mask(w))),
            None => self.gather_at(rows, out, value, |part| (part.w, part.mask)),
        }
    }

    /// The loop of [`FieldsInParts::gather`], each part's width and mask from `width`.
    #[inline(always)]
    fn gather_at<R: Copy + Into<u64>, T>(
        &self,
        rows: &[R],
        out: &mut [T],
        value: impl Fn(E, usize, u64) -> T,
        width: impl Fn(&Part<'a, E>) -> (u32, u64),
    ) -> Result<(), u64> {
        for (o, &row) in out.iter_mut().zip(rows) {
            let row = row.into();
            if row >= self.len {
                return Err(row);
            }
            // Exact: `row < len`, for which `cut` was made.
            let (part, place) = self.cut.locate(row);
            // SAFETY: `row < len` (checked above), and `len <= parts.len() · cut.part_len()` (checked in
            // `new`).
            let part = unsafe { self.parts.get_unchecked(part as usize) };
            let (w, mask) = width(part);
            let place = place as usize;
            let bit = place * w as usize;
            // SAFETY: `row < len`, so its place in its part is below the part's length (every part but the
            // last holds `cut.part_len()` values, checked in `new`), and a load of 8 bytes at the field's
            // first byte stays inside the stream's padding (`PackedRef` checked its bytes against
            // `packed_len`; a zero-width part reads `ZERO_FIELDS` at offset 0).
            let word = unsafe { part.bytes.as_ptr().add(bit / 8).cast::<u64>().read_unaligned() };
            *o = value(part.extra, place, (u64::from_le(word) >> (bit % 8)) & mask);
        }
        Ok(())
    }
}

/// The mask of a field `w <= 56` bits wide.
#[inline(always)]
fn low_mask(w: u32) -> u64 {
    (1u64 << w) - 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::bitpack::pack;

    fn packed(values: &[u64], w: u32) -> Vec<u8> {
        let mut out = Vec::new();
        pack(values, w, &mut out);
        out
    }

    #[test]
    fn gathers_across_parts_of_any_width_as_the_values_are() {
        // Parts of 8 values at widths 0, 3, 56 and 17, the last one short.
        let shift = 3;
        let widths = [0u32, 3, 56, 17];
        let lens = [8usize, 8, 8, 5];
        let values: Vec<Vec<u64>> = widths
            .iter()
            .zip(lens)
            .map(|(&w, n)| (0..n as u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) & u64::low_mask(w)).collect())
            .collect();
        let bytes: Vec<Vec<u8>> = values.iter().zip(widths).map(|(v, w)| packed(v, w)).collect();
        let refs = bytes
            .iter()
            .zip(&values)
            .zip(widths)
            .enumerate()
            .map(|(p, ((b, v), w))| (PackedRef::<u64>::new(b, v.len(), w).unwrap(), 1000 * p as u64));
        let parts = FieldsInParts::new(refs, 1 << shift).unwrap();
        assert_eq!(parts.len(), 29);
        let expected = |row: u64| values[(row >> shift) as usize][(row & 7) as usize] + 1000 * (row >> shift);
        let rows: Vec<u64> = (0..29).rev().chain([7, 8, 0, 28, 16, 16]).collect();
        let mut out = vec![0u64; rows.len()];
        parts.gather(&rows, &mut out, |base, _, field| base + field).unwrap();
        assert_eq!(out, rows.iter().map(|&r| expected(r)).collect::<Vec<_>>());
        // u32 row ids read the same.
        let narrow: Vec<u32> = rows.iter().map(|&r| r as u32).collect();
        let mut again = vec![0u64; rows.len()];
        parts.gather(&narrow, &mut again, |base, _, field| base + field).unwrap();
        assert_eq!(again, out);
        // Parts of one width read as parts of many do, zero-width ones included.
        for w in [0, 9] {
            let fields: Vec<u64> = (0..8).map(|i| (i * 37) & u64::low_mask(w)).collect();
            let bytes = packed(&fields, w);
            let same = (0..3u64).map(|p| (PackedRef::<u64>::new(&bytes, 8, w).unwrap(), 100 * p));
            let parts = FieldsInParts::new(same, 1 << shift).unwrap();
            let rows = [23u64, 0, 9, 17, 8, 7];
            let mut out = [0u64; 6];
            parts.gather(&rows, &mut out, |base, _, field| base + field).unwrap();
            let expected = rows.map(|r| 100 * (r >> shift) + fields[(r & 7) as usize]);
            assert_eq!(out, expected, "width {w}");
        }
        // The first row past the end is named, and the rows before it are written.
        let mut out = vec![0u64; 3];
        assert_eq!(parts.gather(&[3u64, 29, 1], &mut out, |base, _, field| base + field), Err(29));
        assert_eq!(out[0], expected(3));
        assert_eq!(parts.gather(&[u64::MAX], &mut out[..1], |base, _, field| base + field), Err(u64::MAX));
    }

    #[test]
    fn gathers_across_parts_of_a_length_not_a_power_of_two() {
        // Parts of 5 values at widths 3, 0, 11 and 7, the last one short: field `13 · row + 1` cut to its
        // part's width, each part's base 100 times its index, and each value's place read too.
        let widths = [3u32, 0, 11, 7];
        let lens = [5usize, 5, 5, 2];
        let field = |row: u64, w: u32| (row * 13 + 1) & u64::low_mask(w);
        let bytes: Vec<Vec<u8>> = widths
            .iter()
            .zip(lens)
            .enumerate()
            .map(|(p, (&w, n))| packed(&(0..n as u64).map(|i| field(5 * p as u64 + i, w)).collect::<Vec<_>>(), w))
            .collect();
        let refs = bytes.iter().zip(widths).zip(lens).enumerate();
        let parts = refs.map(|(p, ((b, w), n))| (PackedRef::<u64>::new(b, n, w).unwrap(), 100 * p as u64));
        let parts = FieldsInParts::new(parts, 5).unwrap();
        assert_eq!(parts.len(), 17);
        let rows: Vec<u64> = (0..17).rev().chain([4, 5, 9, 10, 15, 16, 0]).collect();
        let mut out = vec![0u64; rows.len()];
        parts.gather(&rows, &mut out, |base, place, f| base + f + 1000 * place as u64).unwrap();
        let expected = |r: u64| 100 * (r / 5) + field(r, widths[(r / 5) as usize]) + 1000 * (r % 5);
        assert_eq!(out, rows.iter().map(|&r| expected(r)).collect::<Vec<_>>());
        assert_eq!(parts.gather(&[16u64, 17], &mut out[..2], |base, _, f| base + f), Err(17));
        assert!(FieldsInParts::new([(PackedRef::<u64>::new(&bytes[0], 5, 3).unwrap(), ())], 4).is_none());
    }

    #[test]
    fn refuses_parts_it_cannot_read_with_one_load() {
        let short = packed(&[1, 2, 3], 2);
        let full = packed(&[1; 8], 2);
        let wide = packed(&[1; 8], 57);
        fn part(b: &[u8], n: usize, w: u32) -> (PackedRef<'_, u64>, ()) {
            (PackedRef::new(b, n, w).unwrap(), ())
        }
        let new = |parts: Vec<(PackedRef<'_, u64>, ())>| FieldsInParts::new(parts, 8).is_some();
        assert!(new(vec![part(&full, 8, 2), part(&short, 3, 2)]));
        assert!(!new(vec![part(&short, 3, 2), part(&full, 8, 2)]), "a short part before the last");
        assert!(!new(vec![part(&full, 8, 2), part(&wide, 8, 57)]), "a part wider than 56 bits");
        assert!(!new(vec![part(&full, 8, 2), part(&[], 0, 0)]), "an empty part");
        let long = packed(&[1; 9], 2);
        assert!(!new(vec![part(&long, 9, 2)]), "a part longer than the length of a part");
        assert!(FieldsInParts::new([(PackedRef::<u64>::new(&full, 8, 2).unwrap(), ())], 0).is_none());
        // Zero-width parts of 2^63 values each: two are 2^64 values, which no row id can address.
        let huge = || (PackedRef::<u64>::new(&[], 1 << 63, 0).unwrap(), ());
        assert!(FieldsInParts::new([huge()], 1 << 63).is_some());
        assert!(FieldsInParts::new([huge(), huge()], 1 << 63).is_none(), "more values than row ids");
        // Parts of 3 · 2^30 values: two of them are more rows than its reciprocal divides exactly
        // (`rows · 3 · 2^30` past 2^64).
        let odd = |n: usize| (PackedRef::<u64>::new(&[], n, 0).unwrap(), ());
        assert!(FieldsInParts::new([odd(3 << 30), odd(3 << 30)], 3 << 30).is_none());
        assert!(FieldsInParts::new([odd(3 << 30), odd(1 << 20)], 3 << 30).is_some());
        let none = FieldsInParts::<()>::new(std::iter::empty::<(PackedRef<'_, u64>, ())>(), 8).unwrap();
        assert!(none.is_empty());
        assert_eq!(none.gather(&[0u64], &mut [0u64], |_, _, f| f), Err(0));
    }
}
