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

/// Reads one digit of a list packed `m` digits a word in base `k` (digit `i` is digit `i % m` of word
/// `i / m`) with four multiplications and no division, in two steps of two that do not wait on each other:
/// `c_j · word mod 2^128`, with `c_j = ⌈2^128 / k^(j+1)⌉`, is the fraction `(word mod k^(j+1)) / k^(j+1)` in
/// 128-bit fixed point, and its product with `k`, cut to the integer part, is digit `j` (Lemire, Kaser and
/// Kurz's remainder by direct computation, stopped one digit early: exact because `k^(j+1) ≤ 2^64`).
/// `i / m` is a 64-bit multiplication by `⌈2^64 / m⌉`, exact for `i < 2^58`.
#[derive(Debug, Clone)]
pub struct Digits {
    k: u64,
    m: usize,
    per_word: u64,
    fractions: Vec<u128>,
}

impl Digits {
    /// Digits of base `k ≥ 2`, [`digits_per_word`]`(k)` of them a word.
    pub fn new(k: u64) -> Digits {
        assert!(k >= 2, "a base of at least 2");
        let m = digits_per_word(k);
        let mut power = 1u128;
        let fractions = (0..m)
            .map(|_| {
                power *= k as u128; // at most 2^64, by the choice of `m`
                u128::MAX / power + 1
            })
            .collect();
        // ⌈2^64 / m⌉, m ≥ 2 (m = 1 divides by nothing: see `place`).
        let per_word = if m == 1 { 0 } else { (u64::MAX / m as u64).wrapping_add(1) };
        Digits { k, m, per_word, fractions }
    }

    /// The base.
    pub fn base(&self) -> u64 {
        self.k
    }

    /// Digits a word.
    pub fn per_word(&self) -> usize {
        self.m
    }

    /// The word holding digit `i` and the digit's place in it (`i < 2^58`).
    #[inline(always)]
    pub fn place(&self, i: usize) -> (usize, usize) {
        debug_assert!((i as u64) < 1 << 58);
        if self.m == 1 {
            return (i, 0);
        }
        let word = ((i as u128 * self.per_word as u128) >> 64) as usize;
        (word, i - word * self.m)
    }

    /// Digit `j < m` of `word`.
    #[inline(always)]
    pub fn digit(&self, word: u64, j: usize) -> u64 {
        let fraction = self.fractions[j].wrapping_mul(word as u128);
        let (high, low) = ((fraction >> 64) as u64, fraction as u64);
        let carry = (low as u128 * self.k as u128) >> 64;
        ((high as u128 * self.k as u128 + carry) >> 64) as u64
    }

    /// Digit `i` of `words`.
    ///
    /// # Panics
    /// If `words` holds fewer than `i / m + 1` words.
    #[inline(always)]
    pub fn get(&self, words: &[u64], i: usize) -> u64 {
        let (word, j) = self.place(i);
        self.digit(words[word], j)
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
    fn digits_read_one_at_a_time_as_unpacked_whole() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            x
        };
        let bases = (2..=300).chain([1 << 16, 1 << 32, (1 << 32) + 1, 3_000_000_019, 1 << 63, u64::MAX - 1, u64::MAX]);
        for k in bases {
            let digits = Digits::new(k);
            let m = digits.per_word();
            assert_eq!(m, digits_per_word(k));
            // Words of random digits, and the words whose digits are all `k - 1` (the largest) or 0.
            let mut lists: Vec<Vec<u64>> = (0..3).map(|_| (0..3 * m).map(|_| next() % k).collect()).collect();
            lists.push(vec![k - 1; 3 * m]);
            lists.push(vec![0; 3 * m]);
            for list in lists {
                let words: Vec<u64> = list.chunks(m).map(|c| pack_word(c.iter().copied(), k)).collect();
                for (i, &d) in list.iter().enumerate() {
                    assert_eq!(digits.get(&words, i), d, "digit {i} of base {k}");
                }
            }
            // Any word at all (a corrupt stream's) reads digits below `k`, as division would.
            for _ in 0..20 {
                let word = next();
                let mut back = vec![0; m];
                unpack_word(word, Divisor::new(k), &mut back);
                assert!((0..m).all(|j| digits.digit(word, j) == back[j] || j == m - 1), "base {k}");
            }
        }
        // Places past 2^32 divide exactly too.
        let digits = Digits::new(10);
        for i in [(1usize << 32) + 5, (1 << 40) + 18, (1 << 57) + 3] {
            assert_eq!(digits.place(i), (i / 19, i % 19));
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
