//! Bitmaps: the validity of a segment and the dense form of a selection.

use std::ops::Range;

/// A fixed-length bitmap, one bit per row, least significant bit first.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Bitmap {
    words: Vec<u64>,
    len: usize,
}

impl Bitmap {
    /// All bits clear.
    pub fn new_clear(len: usize) -> Self {
        Bitmap { words: vec![0; len.div_ceil(64)], len }
    }

    /// All bits set.
    pub fn new_set(len: usize) -> Self {
        let mut b = Bitmap { words: vec![u64::MAX; len.div_ceil(64)], len };
        b.clear_tail();
        b
    }

    /// From booleans.
    pub fn from_bools(bits: &[bool]) -> Self {
        let mut b = Bitmap::new_clear(bits.len());
        for (i, _) in bits.iter().enumerate().filter(|(_, &v)| v) {
            b.set(i);
        }
        b
    }

    /// From 64-bit words (bits past `len` are cleared). Returns `None` if `words` is too short.
    pub fn from_words(mut words: Vec<u64>, len: usize) -> Option<Self> {
        if words.len() < len.div_ceil(64) {
            return None;
        }
        words.truncate(len.div_ceil(64));
        let mut b = Bitmap { words, len };
        b.clear_tail();
        Some(b)
    }

    /// From sorted, distinct positions below `len`; panics on one past it.
    pub fn from_positions(positions: &[u32], len: usize) -> Self {
        let mut b = Bitmap::new_clear(len);
        for &p in positions {
            b.set(p as usize);
        }
        b
    }

    fn clear_tail(&mut self) {
        if !self.len.is_multiple_of(64) {
            if let Some(last) = self.words.last_mut() {
                *last &= (1u64 << (self.len % 64)) - 1;
            }
        }
    }

    /// Number of bits.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the bitmap has no bits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The 64-bit words; bits past `len` are zero.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    pub(crate) fn words_mut(&mut self) -> &mut [u64] {
        &mut self.words
    }

    /// Bit `i`; panics if `i >= len`.
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        assert!(i < self.len, "bit {i} out of range for {} bits", self.len);
        get_bit(&self.words, i)
    }

    /// Sets bit `i`; panics if `i >= len`.
    #[inline]
    pub fn set(&mut self, i: usize) {
        // A bit past `len` in the last word would break the zero tail that counts and scans rely on.
        assert!(i < self.len, "bit {i} out of range for {} bits", self.len);
        self.words[i / 64] |= 1 << (i % 64);
    }

    /// Clears bit `i`; panics if `i >= len`.
    #[inline]
    pub fn clear(&mut self, i: usize) {
        assert!(i < self.len, "bit {i} out of range for {} bits", self.len);
        self.words[i / 64] &= !(1 << (i % 64));
    }

    /// Sets the bits of `range` (whole words at a time); panics if it ends past `len`.
    pub fn set_range(&mut self, range: Range<usize>) {
        assert!(range.end <= self.len, "bits {range:?} out of range for {} bits", self.len);
        for_word_masks(range, |w, mask| self.words[w] |= mask);
    }

    /// Number of set bits.
    pub fn count_ones(&self) -> usize {
        crate::kernels::bits::count_ones(&self.words)
    }

    /// Number of set bits in `range`; panics if it ends past `len`.
    pub fn count_ones_in(&self, range: Range<usize>) -> usize {
        assert!(range.end <= self.len, "bits {range:?} out of range for {} bits", self.len);
        let mut count = 0;
        for_word_masks(range, |w, mask| count += (self.words[w] & mask).count_ones() as usize);
        count
    }

    /// `self &= other` (bit by bit, over the common length).
    pub fn and_words(&mut self, other: &[u64]) {
        for (a, b) in self.words.iter_mut().zip(other) {
            *a &= *b;
        }
    }

    /// `self |= other` (bit by bit, over the common length; bits past `len` stay clear).
    pub fn or_words(&mut self, other: &[u64]) {
        for (a, b) in self.words.iter_mut().zip(other) {
            *a |= *b;
        }
        self.clear_tail();
    }

    /// The bits of `range` as a bitmap of their own; panics if it ends past `len`.
    pub fn slice(&self, range: Range<usize>) -> Bitmap {
        assert!(range.start <= range.end && range.end <= self.len, "bits {range:?} out of range for {} bits", self.len);
        let (len, shift) = (range.len(), range.start % 64);
        let first = range.start / 64;
        let words = (0..len.div_ceil(64))
            .map(|i| {
                let low = self.words[first + i] >> shift;
                let high = match (shift, self.words.get(first + i + 1)) {
                    (0, _) | (_, None) => 0,
                    (_, Some(next)) => next << (64 - shift),
                };
                low | high
            })
            .collect();
        Bitmap::from_words(words, len).expect("one word per 64 bits")
    }

    /// Flips every bit.
    pub fn not(&mut self) {
        for w in &mut self.words {
            *w = !*w;
        }
        self.clear_tail();
    }

    /// Positions of the set bits, ascending.
    pub fn ones(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(wi, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                (w != 0).then(|| {
                    let bit = w.trailing_zeros() as usize;
                    w &= w - 1;
                    wi * 64 + bit
                })
            })
        })
    }

    /// The maximal ranges of set bits, ascending. Each step skips a word of zeros or of ones at a time.
    pub fn set_ranges(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        let mut at = 0;
        std::iter::from_fn(move || {
            let start = self.next_bit(at, false)?;
            let end = self.next_bit(start, true).unwrap_or(self.len);
            at = end;
            Some(start..end)
        })
    }

    /// The first bit at or after `from` that is set (`clear: false`) or clear (`clear: true`), if any.
    fn next_bit(&self, from: usize, clear: bool) -> Option<usize> {
        if from >= self.len {
            return None;
        }
        let flip = if clear { u64::MAX } else { 0 };
        let mut w = from / 64;
        let mut bits = (self.words[w] ^ flip) & (u64::MAX << (from % 64));
        while bits == 0 {
            w += 1;
            bits = self.words.get(w)? ^ flip;
        }
        let bit = w * 64 + bits.trailing_zeros() as usize;
        (bit < self.len).then_some(bit)
    }

    /// Positions of the set bits as `u32`, ascending.
    pub fn to_positions(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.count_ones());
        out.extend(self.ones().map(|p| p as u32));
        out
    }
}

impl std::fmt::Debug for Bitmap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Bitmap({} of {} set)", self.count_ones(), self.len)
    }
}

/// Calls `f(word, mask)` for each word that `range` touches, with the mask of its bits in the range.
#[inline]
fn for_word_masks(range: Range<usize>, mut f: impl FnMut(usize, u64)) {
    if range.start >= range.end {
        return;
    }
    let (first, last) = (range.start / 64, (range.end - 1) / 64);
    let head = u64::MAX << (range.start % 64);
    let tail = u64::MAX >> (63 - (range.end - 1) % 64);
    if first == last {
        return f(first, head & tail);
    }
    f(first, head);
    for w in first + 1..last {
        f(w, u64::MAX);
    }
    f(last, tail);
}

/// Bit `i` of a word slice.
#[inline(always)]
pub(crate) fn get_bit(words: &[u64], i: usize) -> bool {
    words[i / 64] >> (i % 64) & 1 == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_not_and_positions() {
        let mut b = Bitmap::new_clear(70);
        b.set(0);
        b.set(69);
        assert_eq!(b.to_positions(), vec![0, 69]);
        b.not();
        assert_eq!(b.count_ones(), 68);
        assert!(!b.get(69) && b.get(68));
        assert_eq!(Bitmap::new_set(65).count_ones(), 65);
        assert!(Bitmap::from_words(vec![u64::MAX], 65).is_none());
        assert_eq!(Bitmap::from_words(vec![u64::MAX], 3).unwrap().count_ones(), 3);
    }

    #[test]
    fn slices_and_unions_match_bit_by_bit() {
        let mut b = Bitmap::new_clear(300);
        for i in (0..300).filter(|i| i % 7 == 0 || i % 11 == 3) {
            b.set(i);
        }
        for range in [0..0, 0..300, 1..64, 63..65, 64..128, 5..299, 130..300, 299..300] {
            let s = b.slice(range.clone());
            assert_eq!(s.len(), range.len());
            let want: Vec<u32> = range.clone().filter(|&i| b.get(i)).map(|i| (i - range.start) as u32).collect();
            assert_eq!(s.to_positions(), want, "{range:?}");
        }
        let mut odd = Bitmap::new_clear(70);
        odd.set(69);
        odd.or_words(Bitmap::new_set(3).words());
        assert_eq!(odd.to_positions(), vec![0, 1, 2, 69]);
        odd.or_words(&[u64::MAX, u64::MAX]);
        assert_eq!(odd.count_ones(), 70);
    }

    #[test]
    fn set_ranges_are_maximal() {
        let mut b = Bitmap::new_clear(300);
        for r in [0..3, 5..6, 63..130, 192..256, 299..300] {
            b.set_range(r);
        }
        assert_eq!(b.set_ranges().collect::<Vec<_>>(), vec![0..3, 5..6, 63..130, 192..256, 299..300]);
        assert_eq!(Bitmap::new_set(128).set_ranges().collect::<Vec<_>>(), vec![0..128]);
        assert_eq!(Bitmap::new_clear(0).set_ranges().count(), 0);
    }

    #[test]
    fn ranges_set_and_count_across_word_edges() {
        for (start, end) in [(0, 0), (3, 3), (0, 1), (5, 64), (63, 65), (0, 200), (64, 128), (70, 199), (199, 200)] {
            let mut b = Bitmap::new_clear(200);
            b.set_range(start..end);
            assert_eq!(b.to_positions(), (start as u32..end as u32).collect::<Vec<_>>(), "{start}..{end}");
            let all = Bitmap::new_set(200);
            assert_eq!(all.count_ones_in(start..end), end - start, "{start}..{end}");
            assert_eq!(b.count_ones_in(0..200), end - start);
            assert_eq!(b.count_ones_in(end..200), 0);
            let expected = Some(start..end).filter(|r| !r.is_empty());
            assert!(b.set_ranges().eq(expected), "{start}..{end}");
        }
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn set_range_rejects_bits_past_the_end() {
        Bitmap::new_clear(70).set_range(60..71);
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn set_rejects_bits_past_the_end_of_the_last_word() {
        // Once silently set bit 100 of 70, which a later aggregate over the bitmap read out of bounds.
        Bitmap::from_positions(&[3, 100], 70);
    }
}
