//! Filter and aggregate in one pass: the count, compensated `f64` sum, min and max of the values whose
//! latents lie in a range, over decoded blocks that stay in L1.
//!
//! A block is first compared into bitmap words by the SIMD range compare of [`scan`]. Blocks with few
//! matches then copy the matching latents out, bit by bit, and aggregate only those; the others go
//! through every value in eight independent lanes, where a value whose bit is clear adds `+0.0` and
//! leaves min and max alone, so the loop has no branches to mispredict and stays in vector registers.

use super::bitpack::BLOCK;
use super::scan;
use crate::types::{Value, Word};

/// Independent accumulators: enough to hide the latency of the additions.
const LANES: usize = 8;

/// A block with fewer than one match in this many values aggregates only its matches.
const SPARSE: usize = 4;

/// The latent of a float (see [`Value::to_latent`]): `u32` for `f32`, `u64` for `f64`.
pub trait FloatLatent: Word {
    /// The float this latent stands for, as `f64` (exact).
    fn float(self) -> f64;
}

impl FloatLatent for u32 {
    #[inline(always)]
    fn float(self) -> f64 {
        f32::from_latent(self) as f64
    }
}

impl FloatLatent for u64 {
    #[inline(always)]
    fn float(self) -> f64 {
        f64::from_latent(self)
    }
}

/// Running count, sum and latent min/max of the matching values seen so far.
#[derive(Debug, Clone)]
pub struct RangeAggregate<U: FloatLatent> {
    lo: U,
    span: U,
    inside: bool,
    lanes: Lanes<U>,
}

/// The accumulators of [`RangeAggregate`], one of each per lane.
#[derive(Debug, Clone)]
struct Lanes<U> {
    counts: [u64; LANES],
    sums: [f64; LANES],
    /// Neumaier's running corrections.
    carries: [f64; LANES],
    mins: [U; LANES],
    maxs: [U; LANES],
}

impl<U: FloatLatent> Lanes<U> {
    /// Adds the values of `latents` whose bit is set in `keep_byte(i)`, the bits of values `i .. i + 8`.
    #[inline(always)]
    fn add_all(&mut self, latents: &[U], keep_byte: impl Fn(usize) -> u8) {
        #[cfg(target_arch = "x86_64")]
        if crate::kernels::cpu::avx2() {
            // SAFETY: the CPU supports AVX2, checked just above; the function is otherwise safe.
            return unsafe { self.add_all_avx2(latents, keep_byte) };
        }
        self.add_all_any(latents, keep_byte);
    }

    /// [`Lanes::add_all`] compiled for AVX2: four lanes to a register, and 64-bit compares that SSE2
    /// lacks.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn add_all_avx2(&mut self, latents: &[U], keep_byte: impl Fn(usize) -> u8) {
        self.add_all_any(latents, keep_byte);
    }

    /// The lanes work on a local copy: kept in `self`, every update would go through memory and the
    /// loop would wait on store forwarding.
    #[inline(always)]
    fn add_all_any(&mut self, latents: &[U], keep_byte: impl Fn(usize) -> u8) {
        let mut lanes = self.clone();
        let chunks = latents.chunks_exact(LANES);
        let rest = chunks.remainder();
        for (c, chunk) in chunks.enumerate() {
            let keep = keep_byte(c * LANES);
            for (lane, &latent) in chunk.iter().enumerate() {
                lanes.add(lane, latent, keep >> lane & 1 == 1);
            }
        }
        let start = latents.len() - rest.len();
        let keep = if rest.is_empty() { 0 } else { keep_byte(start) };
        for (lane, &latent) in rest.iter().enumerate() {
            lanes.add(lane, latent, keep >> lane & 1 == 1);
        }
        *self = lanes;
    }

    #[inline(always)]
    fn add(&mut self, lane: usize, latent: U, keep: bool) {
        // `+0.0` for a value not kept: the masked bits, so no branch and no `NaN · 0`.
        let x = f64::from_bits(latent.float().to_bits() & (keep as u64).wrapping_neg());
        let sum = self.sums[lane];
        let next = sum + x;
        self.carries[lane] += if sum.abs() >= x.abs() { (sum - next) + x } else { (x - next) + sum };
        self.sums[lane] = next;
        self.counts[lane] += keep as u64;
        let min = self.mins[lane];
        self.mins[lane] = if keep & (latent < min) { latent } else { min };
        let max = self.maxs[lane];
        self.maxs[lane] = if keep & (latent > max) { latent } else { max };
    }
}

/// What [`RangeAggregate::finish`] returns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RangeTotals<U> {
    /// Matching values.
    pub count: u64,
    /// Their sum, within about `2 ε Σ|x|` of the exact one (the plain sum once it is not finite).
    pub sum: f64,
    /// Smallest and largest matching latent, `None` without matches.
    pub min: Option<U>,
    /// See `min`.
    pub max: Option<U>,
}

impl<U: FloatLatent> RangeAggregate<U> {
    /// Matches latents with `lo <= latent <= hi` (`inside`), or those outside that range.
    pub fn new(lo: U, hi: U, inside: bool) -> Self {
        RangeAggregate {
            lo,
            span: hi.wrapping_sub(lo),
            inside,
            lanes: Lanes {
                counts: [0; LANES],
                sums: [0.0; LANES],
                carries: [0.0; LANES],
                mins: [U::MAX; LANES],
                maxs: [U::ZERO; LANES],
            },
        }
    }

    /// Adds the matching values of `latents`, a block of at most [`BLOCK`] values whose validity (bit set
    /// = not null) starts at bit 0 of `validity`, or all valid without one. The block is scratch: a
    /// sparse one has its matches moved to the front.
    pub fn add(&mut self, latents: &mut [U], validity: Option<&[u64]>) {
        assert!(latents.len() <= BLOCK, "a block holds at most {BLOCK} values, not {}", latents.len());
        let words = latents.len().div_ceil(64);
        let mut bits = [0u64; BLOCK / 64];
        let bits = &mut bits[..words];
        scan::filter_range_plain(latents, self.lo, self.span, bits);
        if !self.inside {
            bits.iter_mut().for_each(|w| *w = !*w);
            if !latents.len().is_multiple_of(64) {
                bits[words - 1] &= (1u64 << (latents.len() % 64)) - 1;
            }
        }
        if let Some(valid) = validity {
            bits.iter_mut().zip(valid).for_each(|(w, v)| *w &= v);
        }
        let matches: u32 = bits.iter().map(|w| w.count_ones()).sum();
        if (matches as usize) * SPARSE < latents.len() {
            // In place: the k-th match comes from position k or later.
            let mut k = 0;
            for (i, &word) in bits.iter().enumerate() {
                let mut word = word;
                while word != 0 {
                    latents[k] = latents[i * 64 + word.trailing_zeros() as usize];
                    k += 1;
                    word &= word - 1;
                }
            }
            self.lanes.add_all(&latents[..k], |_| u8::MAX);
        } else {
            self.lanes.add_all(latents, |i| (bits[i / 64] >> (i % 64)) as u8);
        }
    }

    /// The totals over every block added.
    pub fn finish(&self) -> RangeTotals<U> {
        let count = self.lanes.counts.iter().sum();
        // The lanes' sums, added with compensation in turn; their corrections only while finite (past
        // an infinity they are `inf - inf`).
        let (mut sum, mut carry) = (0.0f64, self.lanes.carries.iter().sum::<f64>());
        for &x in &self.lanes.sums {
            let next = sum + x;
            carry += if sum.abs() >= x.abs() { (sum - next) + x } else { (x - next) + sum };
            sum = next;
        }
        let sum = if sum.is_finite() { sum + carry } else { sum };
        let found = count > 0;
        RangeTotals {
            count,
            sum,
            min: found.then(|| *self.lanes.mins.iter().min().expect("lanes")),
            max: found.then(|| *self.lanes.maxs.iter().max().expect("lanes")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(values: &[f64], validity: Option<&[u64]>, lo: f64, hi: f64, inside: bool) {
        let latents: Vec<u64> = values.iter().map(|v| v.to_latent()).collect();
        let (lo, hi) = (lo.to_latent(), hi.to_latent());
        let mut agg = RangeAggregate::new(lo, hi, inside);
        agg.add(&mut latents.clone(), validity);
        let kept: Vec<u64> = latents
            .iter()
            .enumerate()
            .filter(|&(i, &l)| {
                validity.is_none_or(|v| v[i / 64] >> (i % 64) & 1 == 1) && (lo <= l && l <= hi) == inside
            })
            .map(|(_, &l)| l)
            .collect();
        let got = agg.finish();
        assert_eq!(got.count, kept.len() as u64);
        assert_eq!(got.sum, f64::sum(&kept.iter().map(|&l| l.float()).collect::<Vec<_>>()));
        assert_eq!(got.min, kept.iter().min().copied());
        assert_eq!(got.max, kept.iter().max().copied());
    }

    #[test]
    fn matches_a_plain_loop_with_and_without_nulls() {
        let values: Vec<f64> = (0..1000u64).map(|i| (i * 7919 % 1013) as f64 - 500.0).collect();
        let validity: Vec<u64> = (0..16u64).map(|w| 0x5555_5555_5555_5555 ^ w).collect();
        for len in [0, 1, 7, 8, 9, 63, 64, 65, 1000] {
            for (lo, hi) in [(0.0, 0.0), (-100.0, 300.0), (f64::NEG_INFINITY, f64::INFINITY), (2000.0, 3000.0)] {
                for inside in [true, false] {
                    check(&values[..len], None, lo, hi, inside);
                    check(&values[..len], Some(&validity), lo, hi, inside);
                }
            }
        }
    }

    #[test]
    fn sums_are_compensated_and_infinities_stay_infinite() {
        let sum_of = |values: &[f64]| {
            let latents: Vec<u64> = values.iter().map(|v| v.to_latent()).collect();
            let mut agg = RangeAggregate::new(f64::NEG_INFINITY.to_latent(), f64::INFINITY.to_latent(), true);
            agg.add(&mut latents.clone(), None);
            agg.finish().sum
        };
        // 2^53 then 64 ones: a plain f64 loop loses every one.
        let big = (1u64 << 53) as f64;
        let values: Vec<f64> = std::iter::once(big).chain(std::iter::repeat_n(1.0, 64)).collect();
        assert_eq!(sum_of(&values), big + 64.0);
        assert!(sum_of(&[f64::INFINITY, 1.0, f64::NEG_INFINITY]).is_nan());
        assert_eq!(sum_of(&[f64::INFINITY, 1.0]), f64::INFINITY);
    }

    #[test]
    fn singles_read_back_exactly() {
        let values = [1.5f32, -0.1, f32::MIN_POSITIVE, f32::MAX];
        let latents: Vec<u32> = values.iter().map(|v| v.to_latent()).collect();
        let mut agg = RangeAggregate::new(0u32, u32::MAX, true);
        agg.add(&mut latents.clone(), None);
        let got = agg.finish();
        assert_eq!(got.count, 4);
        assert_eq!(got.min.map(f32::from_latent), Some(-0.1));
        assert_eq!(got.max.map(f32::from_latent), Some(f32::MAX));
        assert_eq!(got.sum, f32::sum(&values));
    }
}
