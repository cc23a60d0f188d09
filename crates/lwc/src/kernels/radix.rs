//! Packing small numbers as the digits of one big number: `m` values below `k` in one `u64` as
//! `d_0 + d_1·k + … + d_{m-1}·k^(m-1)`, with `m` the most for which `k^m ≤ 2^64`. Where `k` is not a power of
//! two this wastes less than bit packing: ten distinct values take 64 / 19 = 3.37 bits instead of 4.
//!
//! Reading divides by `k` (and by its powers, for one digit); a division by a number known only at run time
//! costs tens of cycles, so [`Divisor`] replaces it by two multiplications with a 128-bit reciprocal
//! (Lemire, Kaser and Kurz, "Faster remainder by direct computation", 2019: exact for every 64-bit numerator
//! with a 128-bit reciprocal).

/// The most digits below `k` that fit a `u64` (`k ≥ 2`): the largest `m` with `k^m ≤ 2^64`.
pub fn digits_per_word(k: u64) -> usize {
    let (mut power, mut m) = (1u128, 0);
    while power * k as u128 <= 1u128 << 64 {
        power *= k as u128;
        m += 1;
    }
    m
}

/// Division by a fixed `d ≥ 2` through its 128-bit reciprocal.
#[derive(Debug, Clone, Copy)]
pub struct Divisor {
    d: u64,
    reciprocal: u128,
}

impl Divisor {
    /// The divisor `d` (at least 2).
    pub fn new(d: u64) -> Divisor {
        assert!(d >= 2, "a divisor of at least 2");
        Divisor { d, reciprocal: (u128::MAX / d as u128).wrapping_add(1) }
    }

    /// `x / d`.
    #[inline(always)]
    pub fn quotient(self, x: u64) -> u64 {
        // The high 64 bits of the 192-bit product `reciprocal · x`, taken 128 bits at a time.
        let (high, low) = ((self.reciprocal >> 64) as u64, self.reciprocal as u64);
        let carry = (low as u128 * x as u128) >> 64;
        ((high as u128 * x as u128 + carry) >> 64) as u64
    }

    /// `(x / d, x % d)`.
    #[inline(always)]
    pub fn div_rem(self, x: u64) -> (u64, u64) {
        let q = self.quotient(x);
        (q, x - q * self.d)
    }
}

/// The word of the `values` (each below `k`), least significant digit first.
pub fn pack_word(values: impl DoubleEndedIterator<Item = u64>, k: u64) -> u64 {
    values.rev().fold(0u64, |word, v| word.wrapping_mul(k).wrapping_add(v))
}

/// The first `out.len()` digits of `word` in base `divisor`, least significant first.
#[inline]
pub fn unpack_word(mut word: u64, divisor: Divisor, out: &mut [u64]) {
    for o in out {
        let (q, r) = divisor.div_rem(word);
        *o = r;
        word = q;
    }
}

/// Words unpacked side by side by [`unpack_words`]: a word's digits come one after another through a chain
/// of dependent multiplications, so several words in flight keep the multipliers busy.
pub const WORDS_IN_FLIGHT: usize = 4;

/// The `m` digits of each of [`WORDS_IN_FLIGHT`] words, word after word into `out` (`out.len() ≥ 4·m`).
#[inline]
pub fn unpack_words(mut words: [u64; WORDS_IN_FLIGHT], divisor: Divisor, m: usize, out: &mut [u64]) {
    let out = &mut out[..WORDS_IN_FLIGHT * m];
    for i in 0..m {
        for (w, word) in words.iter_mut().enumerate() {
            let (q, r) = divisor.div_rem(*word);
            out[w * m + i] = r;
            *word = q;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reciprocal_division_is_exact() {
        let numerators = [0, 1, 9, 10, 11, u64::MAX, u64::MAX - 1, 1 << 63, (1 << 63) - 1, 12_345_678_901_234_567];
        for d in [2u64, 3, 7, 10, 1_000, 65_535, 1 << 32, (1 << 32) + 1, u64::MAX / 3, u64::MAX - 1, u64::MAX] {
            let divisor = Divisor::new(d);
            let mut x = 0x9e37_79b9_7f4a_7c15u64;
            for &n in numerators.iter().chain(
                std::iter::from_fn(|| {
                    x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    Some(x)
                })
                .take(10_000)
                .collect::<Vec<_>>()
                .iter(),
            ) {
                assert_eq!(divisor.div_rem(n), (n / d, n % d), "{n} / {d}");
            }
        }
    }

    #[test]
    fn words_in_flight_unpack_as_one_at_a_time() {
        for k in [3u64, 10, 1000] {
            let m = digits_per_word(k);
            let digits: Vec<u64> = (0..4 * m as u64).map(|i| i * 7 % k).collect();
            let words: Vec<u64> = digits.chunks(m).map(|c| pack_word(c.iter().copied(), k)).collect();
            let mut out = vec![0; 4 * m];
            unpack_words(words.clone().try_into().unwrap(), Divisor::new(k), m, &mut out);
            assert_eq!(out, digits, "base {k}");
        }
    }

    #[test]
    fn digits_fill_the_word() {
        assert_eq!(digits_per_word(10), 19);
        assert_eq!(digits_per_word(3), 40);
        assert_eq!(digits_per_word(2), 64);
        assert_eq!(digits_per_word(1 << 32), 2);
        assert_eq!(digits_per_word(u64::MAX), 1);
        let values: Vec<u64> = (0..19).map(|i| (i * 7) % 10).collect();
        let word = pack_word(values.iter().copied(), 10);
        let mut back = vec![0; 19];
        unpack_word(word, Divisor::new(10), &mut back);
        assert_eq!(back, values);
        let nines = vec![9u64; 19];
        unpack_word(pack_word(nines.iter().copied(), 10), Divisor::new(10), &mut back);
        assert_eq!(back, nines);
    }
}
