//! Scattered rows of radix parts of one base (a column's segments) read eight at a time in vector lanes:
//! each row's word found, its digit computed from the word's 32-bit chunks as [`Chunks`] computes a whole
//! word's, the part's reference added. One row at a time, locating the row, placing its digit and the
//! digit's four 64-bit products took 1.9 ns a row (5.5x a plain gather of `u64`, 1,000 random rows of
//! 600,000 in ten parts; AMD EPYC Zen 5), 0.7-0.8 ns of it the products; in lanes, 0.9 ns (2.8x).

use std::marker::PhantomData;

use super::Chunks;

/// Radix parts of one base up to `2^16` and of a power-of-two length, read by [`DigitsInParts::gather_then`]
/// with AVX-512 F and DQ (`None` from [`DigitsInParts::new`] elsewhere).
#[derive(Debug, Clone)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub struct DigitsInParts<'a> {
    /// The lowest part's first word, with the provenance of every part (see [`DigitsInParts::new`]).
    origin: *const u64,
    /// Each part's first word, counted in words from `origin`.
    starts: Vec<u64>,
    /// Each part's reference, as the bits of a `u64` lane (wrapping: a narrower value keeps its low bits).
    references: Vec<u64>,
    chunks: Chunks,
    /// `⌈2^32 / m⌉`: a place below `2^26` over `m ≤ 64` is its word, exactly, at 32 bits.
    per_word: u64,
    /// `log2` of the parts' length.
    shift: u32,
    len: u64,
    words: PhantomData<&'a [u64]>,
}

// SAFETY: `origin` only reads the parts' words, shared `&'a [u64]` slices that any thread may read for `'a`.
unsafe impl Send for DigitsInParts<'_> {}
// SAFETY: as for `Send`: nothing is written through `origin`.
unsafe impl Sync for DigitsInParts<'_> {}

/// The longest part [`DigitsInParts`] reads: a place's word is one 32-bit product below this.
const LONGEST_PART: u64 = 1 << 26;

/// Rows [`DigitsInParts::gather_then`] reads at a time into a buffer in L1.
const BUFFERED_ROWS: usize = 256;

impl<'a> DigitsInParts<'a> {
    /// The parts of the base of `chunks` (each its words and its reference's bits), `part_len` rows each but
    /// the last, `len` in all; `None` unless the CPU has AVX-512 F and DQ, `part_len` is a power of two up
    /// to `2^26`, and each part holds the words of its rows.
    pub fn new(chunks: &Chunks, parts: &[(&'a [u64], u64)], part_len: u64, len: u64) -> Option<Self> {
        if !avx512dq() || !part_len.is_power_of_two() || part_len > LONGEST_PART {
            return None;
        }
        let m = chunks.m as u64;
        // Every part's rows in its words: the last part holds the rest, at least one row.
        let count = len.div_ceil(part_len);
        if parts.len() as u64 != count || count == 0 {
            return None;
        }
        for (p, (words, _)) in parts.iter().enumerate() {
            let rows = part_len.min(len - p as u64 * part_len);
            if (words.len() as u64) < rows.div_ceil(m) {
                return None;
            }
        }
        // The words are read from the lowest part's address: every part's address is exposed, so a pointer
        // made from that address may reach each of them. `u64` slices are aligned, so each part starts a
        // whole number of words from it.
        let lowest = parts.iter().map(|(words, _)| words.as_ptr().expose_provenance()).min()?;
        let starts = parts.iter().map(|(words, _)| ((words.as_ptr().addr() - lowest) / 8) as u64).collect();
        Some(DigitsInParts {
            origin: std::ptr::with_exposed_provenance(lowest),
            starts,
            references: parts.iter().map(|&(_, reference)| reference).collect(),
            per_word: (1u64 << 32).div_ceil(m),
            chunks: chunks.clone(),
            shift: part_len.trailing_zeros(),
            len,
            words: PhantomData,
        })
    }

    /// `out[i] = value(reference + digit)` of `rows[i]` (the sum wrapping in 64 bits), or `Err` with the
    /// first row past the parts' length, having written some of `out`.
    ///
    /// # Panics
    /// If `out` and `rows` differ in length.
    pub fn gather_then<V>(&self, rows: &[u32], out: &mut [V], value: impl Fn(u64) -> V) -> Result<(), u64> {
        assert_eq!(rows.len(), out.len(), "a value for every row");
        #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
        let mut lanes = [0u64; BUFFERED_ROWS + 8];
        // Each row's word's place, then its word, and its digit's place: zeroed once a call (once a
        // buffer of rows, they cost a take of 1,000 rows a tenth more, AMD EPYC Zen 5).
        #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut, unused_variables))]
        let mut scratch = [[0u64; BUFFERED_ROWS]; 2];
        for (rows, out) in rows.chunks(BUFFERED_ROWS).zip(out.chunks_mut(BUFFERED_ROWS)) {
            let whole = rows.len() / 8 * 8;
            // The last few rows go through eight lanes too, the rest of them row 0 (there is one: the
            // parts hold at least one row).
            let mut tail = [0u32; 8];
            tail[..rows.len() - whole].copy_from_slice(&rows[whole..]);
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `new` made `self` only where the CPU has AVX-512 F and DQ; `lanes` holds `whole + 8`
            // values.
            unsafe {
                self.avx512(&rows[..whole], &mut lanes[..whole], &mut scratch)?;
                if whole < rows.len() {
                    self.avx512(&tail, &mut lanes[whole..whole + 8], &mut scratch)?;
                }
            }
            for (o, &lane) in out.iter_mut().zip(&lanes) {
                *o = value(lane);
            }
        }
        Ok(())
    }
}

#[cfg(target_arch = "x86_64")]
fn avx512dq() -> bool {
    crate::kernels::cpu::avx512dq()
}

#[cfg(not(target_arch = "x86_64"))]
fn avx512dq() -> bool {
    false
}

#[cfg(target_arch = "x86_64")]
impl DigitsInParts<'_> {
    /// [`DigitsInParts::gather_then`]'s lanes of `rows`, a multiple of eight of them.
    ///
    /// # Safety
    /// The CPU supports AVX-512 F and DQ; `out` holds as many values as `rows` has rows, at most
    /// [`BUFFERED_ROWS`].
    #[target_feature(enable = "avx512f,avx512dq")]
    unsafe fn avx512(
        &self,
        rows: &[u32],
        out: &mut [u64],
        [words, places]: &mut [[u64; BUFFERED_ROWS]; 2],
    ) -> Result<(), u64> {
        use std::arch::x86_64::*;
        debug_assert!(rows.len().is_multiple_of(8) && out.len() == rows.len());
        let splat = |x: u64| _mm512_set1_epi64(x as i64);
        let (len, place_mask, per_word) = (splat(self.len), splat((1 << self.shift) - 1), splat(self.per_word));
        let shift = _mm_cvtsi32_si128(self.shift as i32);
        let chunks = &self.chunks;
        let (m, k, power) = (splat(chunks.m as u64), splat(chunks.k.into()), chunks.power.d);
        let (h, two_h, sixteen) = (splat(chunks.h as u64), splat(2 * chunks.h as u64), splat(16));
        // A word of more than two chunks (base 5: 27 digits, 13 a chunk), and chunks of more than 16 digits
        // (bases 2 and 3), whose fractions take two tables.
        let (three, wide) = (chunks.m > 2 * chunks.h, chunks.h > 16);
        let p = splat(power);
        let (inverse, quarter) = (_mm512_set1_pd(1.0 / power as f64), _mm512_set1_pd(-0.25));
        // SAFETY (the four loads): `fractions` holds 32 values.
        let f = chunks.fractions.as_ptr().cast::<__m512i>();
        let fractions = unsafe {
            [
                _mm512_loadu_si512(f),
                _mm512_loadu_si512(f.add(1)),
                _mm512_loadu_si512(f.add(2)),
                _mm512_loadu_si512(f.add(3)),
            ]
        };
        // `(x / power, x % power)` for any `x`: `x · (1 / power) - 1/4` in `f64` is within 3/8 below the
        // quotient (below `2^48`, as `power > 2^32 / k ≥ 2^16`: the product is within 1/8 of it), so the
        // estimate is the quotient or one under, and the remainder it leaves says which.
        let split = |x: __m512i| {
            let q = _mm512_cvttpd_epu64(_mm512_fmadd_pd(_mm512_cvtepu64_pd(x), inverse, quarter));
            let r = _mm512_sub_epi64(x, _mm512_mullo_epi64(q, p));
            let over = _mm512_cmpge_epu64_mask(r, p);
            (_mm512_mask_sub_epi64(q, over, q, splat(u64::MAX)), _mm512_mask_sub_epi64(r, over, r, p))
        };
        // Up to 16 parts' first words and references are permuted out of two registers each; more are
        // gathered.
        let tables = (self.starts.len() <= 16).then(|| {
            let table = |values: &[u64]| {
                let mut t = [0u64; 16];
                t[..values.len()].copy_from_slice(values);
                // SAFETY: `t` holds 16 values.
                unsafe { [_mm512_loadu_si512(t.as_ptr().cast()), _mm512_loadu_si512(t.as_ptr().add(8).cast())] }
            };
            (table(&self.starts), table(&self.references))
        });
        // Three passes: each row's word's place, digit's place and reference; the words, loaded one by one
        // (with AMD's gather instruction 1,000 random rows of 600,000 took 3.1-3.4x a plain gather, loaded
        // so 2.9-3.2x, Zen 5); the digits.
        debug_assert!(rows.len() <= BUFFERED_ROWS);
        let lanes = (out.chunks_exact_mut(8)).zip(words.chunks_exact_mut(8)).zip(places.chunks_exact_mut(8));
        for (rows, ((out, word_at_lanes), place_lanes)) in rows.chunks_exact(8).zip(lanes) {
            // SAFETY: `rows` holds eight `u32`.
            let row = _mm512_cvtepu32_epi64(unsafe { _mm256_loadu_si256(rows.as_ptr().cast()) });
            let past = _mm512_cmpge_epu64_mask(row, len);
            if past != 0 {
                return Err(rows[past.trailing_zeros() as usize].into());
            }
            let (part, place) = (_mm512_srl_epi64(row, shift), _mm512_and_si512(row, place_mask));
            let word_at = _mm512_srli_epi64::<32>(_mm512_mul_epu32(place, per_word));
            let j = _mm512_sub_epi64(place, _mm512_mul_epu32(word_at, m));
            let (start, reference) = match tables {
                Some(([s0, s1], [r0, r1])) => {
                    (_mm512_permutex2var_epi64(s0, part, s1), _mm512_permutex2var_epi64(r0, part, r1))
                }
                // SAFETY: every row is below `len`, so its part is one of `starts` and `references`.
                None => unsafe {
                    (
                        _mm512_i64gather_epi64::<8>(part, self.starts.as_ptr().cast()),
                        _mm512_i64gather_epi64::<8>(part, self.references.as_ptr().cast()),
                    )
                },
            };
            // SAFETY: each slice holds eight `u64`.
            unsafe {
                _mm512_storeu_si512(word_at_lanes.as_mut_ptr().cast(), _mm512_add_epi64(start, word_at));
                _mm512_storeu_si512(place_lanes.as_mut_ptr().cast(), j);
                _mm512_storeu_si512(out.as_mut_ptr().cast(), reference);
            }
        }
        for word in &mut words[..rows.len()] {
            // SAFETY: the row's place is below its part's rows, whose words `new` checked the part holds:
            // the word lies `starts[part] + word_at` words from `origin`.
            *word = unsafe { self.origin.add(*word as usize).read() };
        }
        for ((out, words), places) in out.chunks_exact_mut(8).zip(words.chunks_exact(8)).zip(places.chunks_exact(8)) {
            // SAFETY: each slice holds eight `u64`.
            let (word, j, reference) = unsafe {
                let load = |x: &[u64]| _mm512_loadu_si512(x.as_ptr().cast());
                (load(words), load(places), load(out))
            };
            // The chunk holding digit `j` (the second from `h` on, the third from `2h`), and the digit's
            // place `t` in it.
            let (second, third) = (_mm512_cmpge_epu64_mask(j, h), _mm512_cmpge_epu64_mask(j, two_h));
            let t = _mm512_mask_sub_epi64(_mm512_mask_sub_epi64(j, second, j, h), third, j, two_h);
            let (rest, low) = split(word);
            let chunk = match three {
                true => {
                    let (high, middle) = split(rest);
                    _mm512_mask_blend_epi64(third, _mm512_mask_blend_epi64(second, low, middle), high)
                }
                false => _mm512_mask_blend_epi64(second, low, rest),
            };
            // `⌈2^64 / k^(t+1)⌉`, then the digit as `Chunks::digit` reads it.
            let mut fraction = _mm512_permutex2var_epi64(fractions[0], t, fractions[1]);
            if wide {
                let upper = _mm512_permutex2var_epi64(fractions[2], t, fractions[3]);
                fraction = _mm512_mask_blend_epi64(_mm512_cmpge_epu64_mask(t, sixteen), fraction, upper);
            }
            let x = _mm512_mullo_epi64(fraction, chunk);
            let low_k = _mm512_srli_epi64::<32>(_mm512_mul_epu32(x, k));
            let digit =
                _mm512_srli_epi64::<32>(_mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64::<32>(x), k), low_k));
            // SAFETY: `out` holds eight `u64`.
            unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), _mm512_add_epi64(reference, digit)) };
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::radix::{digits_per_word, pack_word, Digits};

    /// Every base up to 300 and the edges of the chunks' sizes: parts of 64 rows (the last shorter), rows
    /// in any order and lists of every length up to a few lanes past a buffer, against one digit at a time.
    #[test]
    fn gathered_digits_are_the_digits_read_one_at_a_time() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            x >> 11
        };
        let bases = (2..=300).chain([1_000, 1_625, 1_626, 65_535, 65_536]);
        let mut checked = 0;
        for k in bases.clone() {
            let (m, part_len) = (digits_per_word(k), 64u64);
            // Up to four parts, and 21 (more than two registers' tables hold: gathered).
            for len in [1u64, 63, 64, 65, 200, 256, 1_300] {
                let parts: Vec<(Vec<u64>, u64)> = (0..len.div_ceil(part_len))
                    .map(|p| {
                        let rows = part_len.min(len - p * part_len) as usize;
                        let digits: Vec<u64> = (0..rows).map(|i| if i % 7 == 3 { k - 1 } else { next() % k }).collect();
                        (digits.chunks(m).map(|c| pack_word(c.iter().copied(), k)).collect(), next())
                    })
                    .collect();
                let views: Vec<(&[u64], u64)> = parts.iter().map(|(w, r)| (w.as_slice(), *r)).collect();
                let Some(lanes) = DigitsInParts::new(&Chunks::new(k).unwrap(), &views, part_len, len) else {
                    assert!(!avx512dq(), "base {k}, {len} rows");
                    continue;
                };
                checked += 1;
                let one = Digits::new(k);
                let expected = |row: u32| {
                    let (words, reference) = views[(row as u64 / part_len) as usize];
                    reference.wrapping_add(one.get(words, (row as u64 % part_len) as usize))
                };
                for count in [0, 1, 7, 8, 9, 300] {
                    let rows: Vec<u32> = (0..count).map(|_| (next() % len) as u32).collect();
                    let mut out = vec![0u64; count];
                    lanes.gather_then(&rows, &mut out, |lane| lane).unwrap();
                    let want: Vec<u64> = rows.iter().map(|&r| expected(r)).collect();
                    assert_eq!(out, want, "base {k}, {len} rows");
                }
                // The first row past the parts, in a whole group of eight or among the last few.
                for count in [9, 20] {
                    let mut rows: Vec<u32> = (0..count).map(|i| i % len as u32).collect();
                    rows[count as usize - 2] = len as u32 + 5;
                    rows[count as usize - 1] = len as u32;
                    let mut out = vec![0u64; count as usize];
                    assert_eq!(lanes.gather_then(&rows, &mut out, |lane| lane), Err(len + 5), "base {k}");
                }
            }
        }
        assert_eq!(checked, if avx512dq() { 7 * bases.count() } else { 0 });
    }

    /// Parts whose words do not hold their rows, lengths not a power of two, and bases past `2^16` are
    /// left to the one-at-a-time reads.
    #[test]
    fn parts_it_cannot_read_are_refused() {
        let words = [0u64; 4];
        let whole = [(&words[..], 0u64), (&words[..], 0)];
        let short = [(&words[..], 0u64), (&words[..3], 0)];
        // Base 10: 19 digits a word, so 64 rows take 4 words.
        let ten = Chunks::new(10).unwrap();
        assert_eq!(DigitsInParts::new(&ten, &whole, 64, 128).is_some(), avx512dq());
        assert!(DigitsInParts::new(&ten, &short, 64, 128).is_none());
        assert!(DigitsInParts::new(&ten, &whole, 48, 96).is_none());
        assert!(DigitsInParts::new(&ten, &whole, 64, 200).is_none());
        assert!(Chunks::new(1 << 17).and_then(|c| DigitsInParts::new(&c, &whole, 64, 128)).is_none());
    }
}
