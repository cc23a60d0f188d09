//! Packing small numbers as the digits of one big number: `m` values below `k` in one `u64` as
//! `d_0 + d_1·k + … + d_{m-1}·k^(m-1)`, with `m` the most for which `k^m ≤ 2^64`. Where `k` is not a power of
//! two this wastes less than bit packing: ten distinct values take 64 / 19 = 3.37 bits instead of 4.
//!
//! Reading divides by `k` (and by its powers, for one digit); a division by a number known only at run time
//! costs tens of cycles, so [`Divisor`] replaces it by two multiplications with a 128-bit reciprocal
//! (Lemire, Kaser and Kurz, "Faster remainder by direct computation", 2019: exact for every 64-bit numerator
//! with a 128-bit reciprocal). Whole words of a base up to `2^16` are read by [`Chunks`]: one division per
//! 32 bits of digits, then each digit on its own in a vector lane.

mod parts;

pub use parts::DigitsInParts;

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

/// Digits a vector pass of [`Chunks`] computes side by side.
const LANES: usize = 8;

/// Whole words read with one division per 32 bits instead of one per digit: a word splits into chunks of
/// `h` digits, the most that fit 32 bits (`k^h ≤ 2^32`), by division by `k^h`; digit `j` of a chunk `n` is
/// `⌊k · frac(n / k^(j+1))⌋`, the fraction read as `⌈2^64 / k^(j+1)⌉ · n mod 2^64` in 64-bit fixed point
/// (exact for `n < 2^32` and `k^(j+1) ≤ 2^32`, by the bound [`Digits`] uses at twice the width). The
/// products of a 32-bit chunk split into 32-bit halves, so a chunk's digits are computed side by side in
/// vector lanes, none waiting on another. Bases up to `2^16`, whose chunks hold two digits or more.
#[derive(Debug, Clone)]
pub struct Chunks {
    k: u32,
    m: usize,
    h: usize,
    power: Divisor,
    /// `⌈2^64 / k^(j+1)⌉` for `j < h`, then zeros to a whole number of lanes (digits written past `h` are 0).
    fractions: [u64; 32],
}

/// The most digits of [`Chunks`] in a chunk: base 2, 32 a chunk.
const CHUNK_DIGITS: usize = 32;

impl Chunks {
    /// The chunks of base `k`, or `None` where `k` is below 2 or above `2^16`.
    pub fn new(k: u64) -> Option<Chunks> {
        if !(2..=1 << 16).contains(&k) {
            return None;
        }
        let (mut power, mut h) = (1u64, 0);
        let mut fractions = [0u64; CHUNK_DIGITS];
        while power * k <= 1 << 32 {
            power *= k;
            // ⌈2^64 / power⌉; power ≥ 2, so the quotient fits.
            fractions[h] = (u64::MAX / power).wrapping_add(1);
            h += 1;
        }
        Some(Chunks { k: k as u32, m: digits_per_word(k), h, power: Divisor::new(power), fractions })
    }

    /// The output room [`unpack_chunks`] needs past its last word's digits.
    pub const SLACK: usize = CHUNK_DIGITS;

    /// Digit `j` of the chunk `n`; `fraction` is `⌈2^64 / k^(j+1)⌉`. 32-bit halves only, which vector lanes
    /// multiply.
    #[inline(always)]
    fn digit(fraction: u64, n: u32, k: u32) -> u64 {
        const LOW: u64 = u32::MAX as u64;
        let (n, k) = (n as u64, k as u64);
        let x = (fraction & LOW).wrapping_mul(n).wrapping_add((fraction >> 32).wrapping_mul(n) << 32);
        // ⌊x · k / 2^64⌋, k < 2^32: neither product nor the sum overflows.
        ((x >> 32) * k + (((x & LOW) * k) >> 32)) >> 32
    }

    /// The `m` digits of `word` into `out[..m]`, and up to [`Chunks::SLACK`] zeros or digits after them.
    #[inline(always)]
    fn unpack(&self, mut word: u64, out: &mut [u64]) {
        let mut at = 0;
        while at < self.m {
            // A valid word's last chunk is below `k^h ≤ 2^32`; a corrupt one's is cut to 32 bits.
            let chunk = if self.m - at > self.h {
                let (rest, chunk) = self.power.div_rem(word);
                word = rest;
                chunk
            } else {
                word
            };
            for group in (0..self.h).step_by(LANES) {
                let fractions: &[u64; LANES] = self.fractions[group..][..LANES].try_into().expect("whole lanes");
                let digits: [u64; LANES] = std::array::from_fn(|l| Chunks::digit(fractions[l], chunk as u32, self.k));
                out[at + group..][..LANES].copy_from_slice(&digits);
            }
            at += self.h;
        }
    }
}

/// Whether [`unpack_chunks`] reads words faster than division on this CPU: in vector lanes (AVX2 or
/// AVX-512) a word of base 12 took 0.35 or 0.30 ns a digit against division's 0.77, one lane after
/// another 1.27 (AMD EPYC Zen 5).
pub fn chunks_pay() -> bool {
    #[cfg(target_arch = "x86_64")]
    return crate::kernels::cpu::avx2();
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// The digits of `words`, `m` a word, word after word into `out`, which holds at least
/// `words.len() · m +` [`Chunks::SLACK`] digits (what is written past the words' digits is no digit).
/// Eight lanes of a chunk are one 512-bit vector where the CPU has them.
pub fn unpack_chunks(chunks: &Chunks, words: &[u64], out: &mut [u64]) {
    assert!(out.len() >= words.len() * chunks.m + Chunks::SLACK, "room for the digits");
    #[inline(always)]
    fn body(chunks: &Chunks, words: &[u64], out: &mut [u64]) {
        for (w, &word) in words.iter().enumerate() {
            chunks.unpack(word, &mut out[w * chunks.m..]);
        }
    }
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f")]
        unsafe fn avx512(chunks: &Chunks, words: &[u64], out: &mut [u64]) {
            body(chunks, words, out)
        }
        #[target_feature(enable = "avx2")]
        unsafe fn avx2(chunks: &Chunks, words: &[u64], out: &mut [u64]) {
            body(chunks, words, out)
        }
        if crate::kernels::cpu::avx512f() {
            // SAFETY: the CPU supports AVX-512F, checked just above; the body is safe code.
            return unsafe { avx512(chunks, words, out) };
        }
        if crate::kernels::cpu::avx2() {
            // SAFETY: the CPU supports AVX2, checked just above; the body is safe code.
            return unsafe { avx2(chunks, words, out) };
        }
    }
    body(chunks, words, out)
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
    fn chunks_unpack_as_division_does() {
        // Every base up to 300, the bases whose chunks hold one digit more or fewer, and the largest.
        let bases = (2..=300).chain([255, 256, 257, 1_625, 1_626, 65_535, 65_536]);
        crate::kernels::on_every_path(|| {
            let mut x = 0x6a09_e667_f3bc_c908u64;
            let mut next = move || {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                x
            };
            for k in bases.clone() {
                let chunks = Chunks::new(k).expect("a base up to 2^16");
                let m = digits_per_word(k);
                // Random digits, the largest digits, zeros, and one word of each a test of its own.
                let mut digits: Vec<u64> = (0..5 * m).map(|_| next() % k).collect();
                digits.extend(std::iter::repeat_n(k - 1, 2 * m).chain(std::iter::repeat_n(0, m)));
                let words: Vec<u64> = digits.chunks(m).map(|c| pack_word(c.iter().copied(), k)).collect();
                let mut out = vec![u64::MAX; words.len() * m + Chunks::SLACK];
                unpack_chunks(&chunks, &words, &mut out);
                assert_eq!(out[..digits.len()], digits, "base {k}");
                // Any word at all (a corrupt stream's) unpacks without a panic, its low chunk as division would.
                let word = next();
                unpack_chunks(&chunks, &[word], &mut out);
                let mut back = vec![0; m];
                unpack_word(word, Divisor::new(k), &mut back);
                assert_eq!(out[..chunks.h.min(m - 1)], back[..chunks.h.min(m - 1)], "base {k}");
            }
        });
        assert!(Chunks::new(1).is_none() && Chunks::new(65_537).is_none() && Chunks::new(u64::MAX).is_none());
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
