//! Passes over the words of bitmaps (validity, selections).
//!
//! Baseline x86-64 has no `popcnt`: a word's ones are counted by a dozen shifts and adds. The AVX2 build
//! counts four words at a time by nibble lookups, which is what a segment's open spends checking a
//! validity bitmap against its null count.

with_avx2! {
    /// The set bits of `words`.
    pub fn count_ones(words: &[u64]) -> usize {
        words.iter().map(|w| w.count_ones() as usize).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_every_bit_on_every_path() {
        crate::kernels::on_every_path(|| {
            let words: Vec<u64> = (0..1_000u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (i % 64)).collect();
            for n in [0, 1, 3, 4, 5, 17, 1_000] {
                let want: usize = words[..n].iter().map(|w| w.count_ones() as usize).sum();
                assert_eq!(count_ones(&words[..n]), want, "{n} words");
            }
            assert_eq!(count_ones(&[u64::MAX; 9]), 9 * 64);
        });
    }
}
