//! Prefix sums and sums of deltas over unsigned words, wrapping: the kernels of delta encoding.
//!
//! Deltas come in two forms. Plain differences `v[i] - v[i-1]` for non-decreasing data, and zigzagged
//! differences (`0, -1, 1, -2, …` as `0, 1, 2, 3, …`) otherwise, so that small steps in either direction
//! stay small. Both are computed with wrapping arithmetic in the unsigned domain, so every sequence of
//! the type, `MIN` next to `MAX` included, round-trips exactly.
//!
//! The running sum is a chain of dependent adds, one cycle a value in a scalar loop. With AVX2, 32- and
//! 64-bit words are scanned a vector at a time instead: shifted adds sum each vector's lanes in place
//! (independent from one vector to the next), and only one add and one broadcast a vector carry the
//! running value forward. (The compiler's own vectorization of a grouped scalar loop ran at 1 ns a value,
//! a third of the scalar loop's speed: it assembled each group lane by lane.)

use super::bitpack::{dispatch_simd, PackedRef};
use crate::types::Word;

/// The zigzag form of a wrapping difference: `d` as a signed number `s`, then `2s` for `s >= 0` and
/// `-2s - 1` for `s < 0`.
#[inline(always)]
pub fn zigzag<U: Word>(d: U) -> U {
    (d << 1) ^ U::ZERO.wrapping_sub(d >> (U::BITS - 1))
}

/// The inverse of [`zigzag`].
#[inline(always)]
pub fn unzigzag<U: Word>(z: U) -> U {
    (z >> 1) ^ U::ZERO.wrapping_sub(z & U::from_u64(1))
}

fn prefix_sum_scalar<U: Word>(carry: U, words: &mut [U], zigzag: bool) -> U {
    let mut carry = carry;
    if zigzag {
        for w in words {
            carry = carry.wrapping_add(unzigzag(*w));
            *w = carry;
        }
    } else {
        for w in words {
            carry = carry.wrapping_add(*w);
            *w = carry;
        }
    }
    carry
}

#[inline(always)]
fn delta_sum_any<U: Word>(words: &[U], zigzag: bool) -> U {
    if zigzag {
        words.iter().fold(U::ZERO, |s, &d| s.wrapping_add(unzigzag(d)))
    } else {
        words.iter().fold(U::ZERO, |s, &d| s.wrapping_add(d))
    }
}

#[inline(always)]
fn weighted_sums_any<U: Word>(words: &[U], first_weight: u64) -> (u128, u128) {
    if U::BITS <= 32 {
        // A delta below 2^32 times a weight up to 2^16 is below 2^48, and 2^16 of them sum in a `u64`.
        // Both factors as zero-extended `u32` make one 32 x 32 -> 64-bit multiply a lane.
        let (mut sum, mut weighted, mut weight) = (0u64, 0u64, first_weight as u32);
        for &d in words {
            let d = d.to_u64() as u32 as u64;
            sum = sum.wrapping_add(d);
            weighted = weighted.wrapping_add(d * weight as u64);
            weight = weight.wrapping_sub(1);
        }
        (sum as u128, weighted as u128)
    } else {
        let (mut sum, mut weighted, mut weight) = (0u128, 0u128, first_weight as u128);
        for &d in words {
            let d = d.to_u64() as u128;
            sum = sum.wrapping_add(d);
            weighted = weighted.wrapping_add(d.wrapping_mul(weight));
            weight = weight.wrapping_sub(1);
        }
        (sum, weighted)
    }
}

mod delta_dispatch {
    use super::*;
    dispatch_simd!(delta_sum_any, delta_sum_avx2, <U>(words: &[U], zigzag: bool) -> U);
    pub(super) use dispatch as delta_sum;
}

mod weighted_dispatch {
    use super::*;
    dispatch_simd!(weighted_sums_any, weighted_sums_avx2, <U>(words: &[U], first_weight: u64) -> (u128, u128));
    pub(super) use dispatch as weighted_sums;
}

/// Turns deltas into running values in place: `words[k] = carry + d[0] + … + d[k]` (wrapping), where
/// `d` are the differences the deltas stand for (`zigzag`: stored zigzagged). Returns the last running
/// value, `carry` when `words` is empty.
pub fn prefix_sum<U: Word>(carry: U, words: &mut [U], zigzag: bool) -> U {
    #[cfg(target_arch = "x86_64")]
    if let Some(last) = simd::prefix_sum(carry, words, zigzag) {
        return last;
    }
    prefix_sum_scalar(carry, words, zigzag)
}

/// The wrapping sum of the differences the deltas stand for: how far a running value moves over them.
pub fn delta_sum<U: Word>(words: &[U], zigzag: bool) -> U {
    delta_dispatch::delta_sum(words, zigzag)
}

/// `(Σ words[k], Σ words[k] · (first_weight - k))` for plain deltas, in one pass: what they contribute
/// to a closed-form sum over a run of values (a delta adds to every value from its own on). Exact while
/// `words.len() <= first_weight <= 2^16`; wraps, without panicking, beyond.
pub fn weighted_sums<U: Word>(words: &[U], first_weight: u64) -> (u128, u128) {
    weighted_dispatch::weighted_sums(words, first_weight)
}

/// The longest stride [`DeltasWithPoints::values_near_points`] reads: half of it is at most eight loads
/// of deltas a position.
pub const NEAR_POINTS_MAX_STRIDE: usize = 128;

/// A stream of plain deltas with data points, read where it is stored: `points` holds the value of every
/// `2^shift`-th row (packed fields plus `point_base`), `deltas` each row's difference from the row before
/// (packed fields plus `delta_base`; row 0's is not read). The fields of both wrap in the word.
#[derive(Clone, Copy)]
pub struct DeltasWithPoints<'a, U: Word> {
    /// The data points' fields.
    pub points: PackedRef<'a, U>,
    /// Added to every data point's field.
    pub point_base: U,
    /// The deltas' fields.
    pub deltas: PackedRef<'a, U>,
    /// Added to every delta's field.
    pub delta_base: U,
    /// Rows per data point, as a power of two.
    pub shift: u32,
}

impl<U: Word> DeltasWithPoints<'_, U> {
    /// Whether [`DeltasWithPoints::values_near_points`] reads this stream: strides of at most
    /// [`NEAR_POINTS_MAX_STRIDE`] rows and deltas at most 7 bits wide.
    pub fn near_points_apply(&self) -> bool {
        self.shift <= NEAR_POINTS_MAX_STRIDE.ilog2() && self.deltas.width() <= 7 && self.points.width() <= 56
    }

    /// Loads of deltas that reach from a row to its nearer data point: half a stride,
    /// [`DeltasWithPoints::fields_a_load`] a load.
    pub fn near_loads(&self) -> usize {
        self.half_stride().div_ceil(self.fields_a_load())
    }

    fn half_stride(&self) -> usize {
        1 << self.shift.saturating_sub(1)
    }

    /// Deltas summed a load: eight, or [`fields_per_load`] where that takes fewer loads over half a stride
    /// (more a load take more adds).
    pub fn fields_a_load(&self) -> usize {
        let most = fields_per_load(self.deltas.width());
        if self.half_stride().div_ceil(most) < self.half_stride().div_ceil(8) {
            most
        } else {
            8
        }
    }

    /// `out[k]` = the value of row `positions[k]`, each from the nearer of the two data points around it:
    /// at most half a stride of deltas lies between, summed [`DeltasWithPoints::fields_a_load`] a load
    /// by pairwise adds (SWAR) with the deltas' width a constant, as many loads as half a stride takes
    /// whatever the position (no loop exit to mispredict). What a sparse take costs is then a few dozen
    /// instructions a position, not a walk. Positions in any order.
    ///
    /// # Panics
    /// Unless [`DeltasWithPoints::near_points_apply`], or where a position lies in the last stride
    /// (no data point after it) or past the data points' rows. `out` may then be partly written.
    pub fn values_near_points(&self, positions: &[u32], out: &mut [U]) {
        assert!(self.near_points_apply(), "strides of at most {NEAR_POINTS_MAX_STRIDE} rows, deltas of at most 7 bits");
        // Every data point's row has its delta: a row before the last stride has its deltas up to the
        // next point.
        assert!(
            self.points.is_empty() || (self.points.len() - 1) << self.shift < self.deltas.len(),
            "data points past the deltas' rows"
        );
        // One load a position (strides of 16, or narrow deltas) is a loop of its own: a loop over a count
        // known only at run time cost `delta(16)` a fifth of its sparse takes on the Zen 4 EPYC.
        let one_load = self.near_loads() == 1;
        macro_rules! at_width {
            ($($w:literal)*) => {
                match (self.deltas.width(), self.fields_a_load() == 8, one_load) {
                    $(($w, true, true) => self.near_points_dispatch::<$w, 8, true>(positions, out),
                    ($w, true, false) => self.near_points_dispatch::<$w, 8, false>(positions, out),
                    ($w, false, true) => self.near_points_dispatch::<$w, { fields_per_load($w) }, true>(positions, out),
                    ($w, false, false) => self.near_points_dispatch::<$w, { fields_per_load($w) }, false>(positions, out),)*
                    _ => unreachable!("checked above"),
                }
            };
        }
        at_width!(0 1 2 3 4 5 6 7);
    }

    /// [`DeltasWithPoints::near_points`] eight `u32` positions a step with AVX2 where it serves
    /// ([`near_simd::near_points_u32`]), and compiled for BMI2 where the CPU has it: its shifts by a register
    /// and masks of a variable length are then one instruction each (`shrx`, `bzhi`).
    fn near_points_dispatch<const W: u32, const F: usize, const ONE: bool>(&self, positions: &[u32], out: &mut [U]) {
        #[cfg(target_arch = "x86_64")]
        if crate::kernels::cpu::avx2_bmi2() {
            let n = positions.len().min(out.len());
            let (positions, out) = (&positions[..n], &mut out[..n]);
            let mut done = 0;
            if let Some(stream) = near_simd::NearPoints32::new(self) {
                // SAFETY: the CPU has AVX2 (checked above); `values_near_points` checked the streams.
                done = unsafe {
                    near_simd::near_points_u32::<W, F, ONE>(&stream, positions, bytemuck::cast_slice_mut(out))
                };
            }
            #[target_feature(enable = "bmi2")]
            unsafe fn bmi2<U: Word, const W: u32, const F: usize, const ONE: bool>(
                stream: &DeltasWithPoints<'_, U>,
                positions: &[u32],
                out: &mut [U],
            ) {
                stream.near_points::<W, F, ONE>(positions, out)
            }
            // SAFETY: the CPU has BMI2, checked just above; the function is otherwise safe.
            return unsafe { bmi2::<U, W, F, ONE>(self, &positions[done..], &mut out[done..]) };
        }
        self.near_points::<W, F, ONE>(positions, out)
    }

    /// [`DeltasWithPoints::values_near_points`] with the deltas' width `W` and the fields a load `F` as
    /// constants; `ONE`: every position takes one load of deltas ([`DeltasWithPoints::near_loads`] is 1).
    #[inline(always)]
    fn near_points<const W: u32, const F: usize, const ONE: bool>(&self, positions: &[u32], out: &mut [U]) {
        use std::hint::select_unpredictable as select;
        // A data point is one 8-byte load too (at most 56 bits wide); zero-width ones read zeros.
        let (wp, point_mask) = (self.points.width() as usize, u64::low_mask(self.points.width()));
        let point_bytes = if wp == 0 { &[0u8; 8][..] } else { self.points.bytes() };
        let delta_bytes = self.deltas.bytes();
        let load = |bytes: &[u8], bit: usize| {
            u64::from_le_bytes(bytes[bit / 8..bit / 8 + 8].try_into().expect("8 bytes")) >> (bit % 8)
        };
        let (points, chunks) = (self.points.len(), if ONE { 1 } else { self.near_loads() });
        for (o, &q) in out.iter_mut().zip(positions) {
            let row = q as usize;
            let s = row >> self.shift;
            // The data point after `row` exists, so do the deltas up to it: the loads below stay inside the
            // streams' padding.
            assert!(s + 1 < points, "row {row} has no data point after it");
            let (start, next) = (s << self.shift, (s + 1) << self.shift);
            // At most half a stride from the nearer point: `F * chunks` deltas.
            let back = next - row < row - start;
            let point = load(point_bytes, select(back, s + 1, s) * wp) & point_mask;
            let point = self.point_base.wrapping_add(U::from_u64(point));
            let (first, count) = select(back, (row + 1, next - row), (start + 1, row - start));
            let mut fields = 0;
            for c in 0..chunks {
                // Fields `first + F * c ..`, up to `F` within the `count`: they lie in the 8 bytes from the
                // first one's. A chunk past the count loads at the last field (or `first`, read whatever
                // the count) and keeps none. Zero-width deltas have no bytes.
                let skip = F * c;
                let at = first + skip.min(count.max(1) - 1);
                let x = if W == 0 { 0 } else { load(delta_bytes, at * W as usize) };
                // At most 56 bits: the mask needs no case for 64 bits.
                let x = x & ((1u64 << (count.saturating_sub(skip).min(F) as u32 * W)) - 1);
                fields += swar_sum::<W, F>(x);
            }
            let sum = U::from_u64(fields).wrapping_add(self.delta_base.wrapping_mul(U::from_u64(count as u64)));
            *o = select(back, point.wrapping_sub(sum), point.wrapping_add(sum));
        }
    }
}

/// Deltas of `w <= 7` bits summed from one 8-byte load. At most `57 / w` fit it after a shift of up to 7
/// bits; where fewer take as many loads over half a stride of up to 64 rows (1 bit, 3 bits, 6 bits), a
/// power of two takes fewer adds. Narrow deltas then take fewer loads a position than 8 a load did: at
/// stride 64, one load of one-bit deltas instead of four, three of five-bit deltas.
pub const fn fields_per_load(w: u32) -> usize {
    match w {
        0 | 1 => 32,
        2 => 28,
        3 => 16,
        4 => 14,
        5 => 11,
        _ => 8,
    }
}

/// The rounds of [`swar_sum`] of `F` fields of `W` bits: the lane width of each, and its mask (every
/// other lane of that width, over the fields; a lane past them holds zeros), then the width of the two
/// halves the last add joins.
const fn swar_rounds<const W: u32, const F: usize>() -> ([(u32, u64); 6], usize, u32) {
    let total = F as u32 * W;
    let (mut rounds, mut n, mut width) = ([(0u32, 0u64); 6], 0, W);
    // Lanes of `width` bits summed in pairs until two halves are left.
    while W > 0 && 2 * width < total {
        let (mut mask, mut at) = (0u64, 0);
        while at < total {
            mask |= ((1u64 << width) - 1) << at;
            at += 2 * width;
        }
        rounds[n] = (width, mask);
        n += 1;
        width *= 2;
    }
    (rounds, n, width)
}

/// The sum of the `F <= fields_per_load(W)` fields of `W <= 7` bits at the bottom of `x` (the bits above
/// them clear), by pairwise adds of lanes twice as wide each round: the sums never outgrow their lanes.
#[inline(always)]
fn swar_sum<const W: u32, const F: usize>(mut x: u64) -> u64 {
    let (rounds, n, half) = const { swar_rounds::<W, F>() };
    if W == 0 {
        return 0;
    }
    for &(width, mask) in &rounds[..n] {
        x = (x & mask) + (x >> width & mask);
    }
    (x & u64::low_mask(half)) + (x >> half)
}

/// Eight positions a step of [`DeltasWithPoints::values_near_points`] with AVX2, for `u32` values.
#[cfg(target_arch = "x86_64")]
mod near_simd {
    use std::arch::x86_64::*;

    use super::DeltasWithPoints;
    use crate::types::Word;

    /// A `u32` stream the vector loop reads: data points at most 25 bits wide (a 4-byte load at the first
    /// byte holds one) and both streams' bit offsets below 2^31 (they go through 32-bit lanes).
    pub struct NearPoints32<'a> {
        points: &'a [u8],
        wp: u32,
        last_point: u32,
        point_base: u32,
        deltas: &'a [u8],
        delta_base: u32,
        shift: u32,
        chunks: i32,
    }

    impl<'a> NearPoints32<'a> {
        pub fn new<U: Word>(stream: &DeltasWithPoints<'a, U>) -> Option<NearPoints32<'a>> {
            let (points, deltas) = (&stream.points, &stream.deltas);
            let fits = |n: usize, w: u32| (n as u64).saturating_mul(w as u64 + 8) < 1 << 31;
            let useful = U::BITS == 32 && points.width() <= 25 && points.width() >= 1 && !points.is_empty();
            (useful && fits(points.len(), points.width()) && fits(deltas.len(), deltas.width())).then(|| NearPoints32 {
                points: points.bytes(),
                wp: points.width(),
                last_point: (points.len() - 1) as u32,
                point_base: stream.point_base.to_u64() as u32,
                deltas: deltas.bytes(),
                delta_base: stream.delta_base.to_u64() as u32,
                shift: stream.shift,
                chunks: stream.near_loads() as i32,
            })
        }
    }

    /// Writes `out[k]` for the leading groups of eight positions whose data points exist (the rest, and a
    /// group with a row in the last stride, are left to the scalar loop) and returns how many it wrote.
    /// `ONE`: one load of deltas a position, whose first field and count are the position's own.
    ///
    /// # Safety
    /// AVX2; `W` is the deltas' width (at most 7) and `stream` was checked by `values_near_points`: every
    /// data point's row has its delta.
    #[target_feature(enable = "avx2")]
    pub unsafe fn near_points_u32<const W: u32, const F: usize, const ONE: bool>(
        stream: &NearPoints32<'_>,
        positions: &[u32],
        out: &mut [u32],
    ) -> usize {
        let one = _mm256_set1_epi32(1);
        let seven = _mm256_set1_epi32(7);
        let shift = _mm_cvtsi32_si128(stream.shift as i32);
        let stride = _mm256_set1_epi32(1 << stream.shift);
        let last_point = _mm256_set1_epi32(stream.last_point as i32);
        let wp = _mm256_set1_epi32(stream.wp as i32);
        let point_mask = _mm256_set1_epi32((u32::MAX >> (32 - stream.wp)) as i32);
        let (point_base, delta_base) =
            (_mm256_set1_epi32(stream.point_base as i32), _mm256_set1_epi32(stream.delta_base as i32));
        // The scalar loop's rounds (`swar_sum`) over 64-bit lanes: four positions a half.
        let (rounds, n, half_width) = const { super::swar_rounds::<W, F>() };
        let fields_per_load = F as i32;
        let ones = _mm256_set1_epi64x(-1);
        let (zero, per_load) = (_mm256_setzero_si256(), _mm256_set1_epi32(fields_per_load));
        let by = |bits: u32| _mm_cvtsi32_si128(bits as i32);
        let low_half = _mm256_set1_epi64x(((1u64 << half_width) - 1) as i64);
        let mut done = 0;
        for (rows, dst) in positions.chunks_exact(8).zip(out.chunks_exact_mut(8)) {
            // SAFETY: eight positions read and eight outputs written; every lane's loads lie inside the
            // streams (below).
            unsafe {
                let rows = _mm256_loadu_si256(rows.as_ptr().cast());
                let s = _mm256_srl_epi32(rows, shift);
                // The point after every row exists: `s + 1 <= last_point` (unsigned), else the scalar loop
                // takes this group on (and panics).
                let after = _mm256_add_epi32(s, one);
                let inside = _mm256_cmpeq_epi32(_mm256_max_epu32(after, last_point), last_point);
                if _mm256_movemask_epi8(inside) != -1 {
                    break;
                }
                let start = _mm256_sll_epi32(s, shift);
                let next = _mm256_add_epi32(start, stride);
                let (down, up) = (_mm256_sub_epi32(next, rows), _mm256_sub_epi32(rows, start));
                // Both below a stride: a signed compare serves.
                let back = _mm256_cmpgt_epi32(up, down);
                let point_index = _mm256_sub_epi32(s, back);
                // Bit offsets below 2^31 (`NearPoints32::new`); a point of at most 25 bits lies in the 4
                // bytes from its first, inside the stream's padding since its index is at most `last_point`.
                let bit = _mm256_mullo_epi32(point_index, wp);
                let point = _mm256_i32gather_epi32::<1>(stream.points.as_ptr().cast(), _mm256_srli_epi32::<3>(bit));
                let point = _mm256_and_si256(_mm256_srlv_epi32(point, _mm256_and_si256(bit, seven)), point_mask);
                let point = _mm256_add_epi32(point, point_base);
                let first = _mm256_add_epi32(_mm256_blendv_epi8(start, rows, back), one);
                let count = _mm256_blendv_epi8(up, down, back);
                // The deltas between, at most half a stride of at most 7 bits: `chunks` loads of
                // `fields_per_load`, as in the scalar loop, each 8 bytes from a field up to the last one
                // between (or `first`), which lie before the next data point's row, so inside the deltas'
                // padding.
                let fields = if W == 0 {
                    _mm256_setzero_si256()
                } else {
                    let last = _mm256_max_epi32(_mm256_sub_epi32(count, one), zero);
                    let (mut lo, mut hi) = (_mm256_setzero_si256(), _mm256_setzero_si256());
                    for c in 0..if ONE { 1 } else { stream.chunks } {
                        let (at, kept) = if ONE {
                            (first, count)
                        } else {
                            let skip = _mm256_set1_epi32(fields_per_load * c);
                            let at = _mm256_add_epi32(first, _mm256_min_epi32(skip, last));
                            (at, _mm256_min_epi32(_mm256_max_epi32(_mm256_sub_epi32(count, skip), zero), per_load))
                        };
                        let bit = _mm256_mullo_epi32(at, _mm256_set1_epi32(W as i32));
                        let at = _mm256_srli_epi32::<3>(bit);
                        let offset = _mm256_and_si256(bit, seven);
                        let width = _mm256_mullo_epi32(kept, _mm256_set1_epi32(W as i32));
                        let half = |lanes: __m128i, offset: __m128i, width: __m128i| {
                            let x = _mm256_i32gather_epi64::<1>(stream.deltas.as_ptr().cast(), lanes);
                            let x = _mm256_srlv_epi64(x, _mm256_cvtepu32_epi64(offset));
                            let mut x = _mm256_andnot_si256(_mm256_sllv_epi64(ones, _mm256_cvtepu32_epi64(width)), x);
                            for &(width, mask) in &rounds[..n] {
                                let mask = _mm256_set1_epi64x(mask as i64);
                                x = _mm256_add_epi64(
                                    _mm256_and_si256(x, mask),
                                    _mm256_and_si256(_mm256_srl_epi64(x, by(width)), mask),
                                );
                            }
                            _mm256_add_epi64(_mm256_and_si256(x, low_half), _mm256_srl_epi64(x, by(half_width)))
                        };
                        lo = _mm256_add_epi64(
                            lo,
                            half(
                                _mm256_castsi256_si128(at),
                                _mm256_castsi256_si128(offset),
                                _mm256_castsi256_si128(width),
                            ),
                        );
                        hi = _mm256_add_epi64(
                            hi,
                            half(
                                _mm256_extracti128_si256::<1>(at),
                                _mm256_extracti128_si256::<1>(offset),
                                _mm256_extracti128_si256::<1>(width),
                            ),
                        );
                    }
                    // Each sum fits the low 32 bits of its lane: take lanes 0, 2, 4, 6 of each half.
                    let take = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
                    let (lo, hi) = (_mm256_permutevar8x32_epi32(lo, take), _mm256_permutevar8x32_epi32(hi, take));
                    _mm256_permute2x128_si256::<0x20>(lo, hi)
                };
                let sum = _mm256_add_epi32(fields, _mm256_mullo_epi32(count, delta_base));
                let value = _mm256_blendv_epi8(_mm256_add_epi32(point, sum), _mm256_sub_epi32(point, sum), back);
                _mm256_storeu_si256(dst.as_mut_ptr().cast(), value);
            }
            done += 8;
        }
        done
    }
}

#[cfg(target_arch = "x86_64")]
mod simd {
    //! AVX2 scans. Within each 128-bit half, adding the vector shifted up by one lane, then by two
    //! (32-bit words), leaves each lane the sum of its half up to it; adding the low half's last lane to
    //! the high half finishes the vector's own scan, and its last lane, broadcast, is what it adds to the
    //! carry. Only that one add depends on the vector before.
    use std::arch::x86_64::*;

    use super::prefix_sum_scalar;
    use crate::types::Word;

    /// The scan of [`super::prefix_sum`] for 32- and 64-bit words when the CPU has AVX2; `None`,
    /// touching nothing, otherwise. Whole 512-bit vectors go first where the CPU has AVX-512F: four
    /// (three) shifted adds scan one with no step per 128-bit half, about six shuffles for 16 values where
    /// the 256-bit scan spends five on 8, and the shuffles bound both (`delta` decoded 65,535 values in
    /// 5.6x a plain copy's time through the 256-bit scan alone, 3.8x with the 512-bit one, AMD EPYC Zen 5).
    pub fn prefix_sum<U: Word>(carry: U, words: &mut [U], zigzag: bool) -> Option<U> {
        if !(U::BITS == 32 || U::BITS == 64) || !crate::kernels::cpu::avx2() {
            return None;
        }
        // SAFETY: AVX2 is present (checked above), and AVX-512F where its kernels are asked for.
        let (carry, words) = unsafe {
            let (carry, words) =
                if crate::kernels::cpu::avx512f() { ZMM.scan(carry, words, zigzag) } else { (carry, words) };
            AVX2.scan(carry, words, zigzag)
        };
        Some(prefix_sum_scalar(carry, words, zigzag))
    }

    /// The scan kernels of one vector width: `u32` and `u64` words, each plain and zigzag.
    struct Scans {
        bits: usize,
        u32: [unsafe fn(u32, &mut [u32]) -> u32; 2],
        u64: [unsafe fn(u64, &mut [u64]) -> u64; 2],
    }

    const AVX2: Scans =
        Scans { bits: 256, u32: [scan_u32::<false>, scan_u32::<true>], u64: [scan_u64::<false>, scan_u64::<true>] };
    const ZMM: Scans = Scans {
        bits: 512,
        u32: [scan_u32_zmm::<false>, scan_u32_zmm::<true>],
        u64: [scan_u64_zmm::<false>, scan_u64_zmm::<true>],
    };

    impl Scans {
        /// The whole vectors of `words` (32- or 64-bit) scanned: the carry after them and the words left.
        ///
        /// # Safety
        /// The CPU has the kernels' features.
        unsafe fn scan<'w, U: Word>(&self, carry: U, words: &'w mut [U], zigzag: bool) -> (U, &'w mut [U]) {
            let lanes = self.bits / U::BITS as usize;
            let body = words.len() / lanes * lanes;
            let (head, tail) = words.split_at_mut(body);
            let kernel = usize::from(zigzag);
            // SAFETY: the features are present (contract); each kernel reads and writes whole vectors of
            // `head`, whose length is a multiple of the vector's lanes.
            let carry = unsafe {
                match U::BITS {
                    32 => U::from_u64(self.u32[kernel](carry.to_u64() as u32, bytemuck::cast_slice_mut(head)) as u64),
                    _ => U::from_u64(self.u64[kernel](carry.to_u64(), bytemuck::cast_slice_mut(head))),
                }
            };
            (carry, tail)
        }
    }

    /// # Safety
    /// AVX-512F; `words.len()` is a multiple of 16.
    #[target_feature(enable = "avx512f")]
    unsafe fn scan_u32_zmm<const ZIGZAG: bool>(carry: u32, words: &mut [u32]) -> u32 {
        let mut carry = _mm512_set1_epi32(carry as i32);
        let (zero, one, last) = (_mm512_setzero_si512(), _mm512_set1_epi32(1), _mm512_set1_epi32(15));
        for chunk in words.chunks_exact_mut(16) {
            let p = chunk.as_mut_ptr().cast::<__m512i>();
            // SAFETY: `chunk` holds 16 `u32`, one vector.
            let mut x = unsafe { _mm512_loadu_si512(p) };
            if ZIGZAG {
                let sign = _mm512_sub_epi32(zero, _mm512_and_si512(x, one));
                x = _mm512_xor_si512(_mm512_srli_epi32::<1>(x), sign);
            }
            // The vector shifted up by 1, 2, 4 and 8 lanes, zeros shifted in.
            x = _mm512_add_epi32(x, _mm512_alignr_epi32::<15>(x, zero));
            x = _mm512_add_epi32(x, _mm512_alignr_epi32::<14>(x, zero));
            x = _mm512_add_epi32(x, _mm512_alignr_epi32::<12>(x, zero));
            x = _mm512_add_epi32(x, _mm512_alignr_epi32::<8>(x, zero));
            // SAFETY: as the load.
            unsafe { _mm512_storeu_si512(p, _mm512_add_epi32(x, carry)) };
            carry = _mm512_add_epi32(carry, _mm512_permutexvar_epi32(last, x));
        }
        _mm_cvtsi128_si32(_mm512_castsi512_si128(carry)) as u32
    }

    /// # Safety
    /// AVX-512F; `words.len()` is a multiple of 8.
    #[target_feature(enable = "avx512f")]
    unsafe fn scan_u64_zmm<const ZIGZAG: bool>(carry: u64, words: &mut [u64]) -> u64 {
        let mut carry = _mm512_set1_epi64(carry as i64);
        let (zero, one, last) = (_mm512_setzero_si512(), _mm512_set1_epi64(1), _mm512_set1_epi64(7));
        for chunk in words.chunks_exact_mut(8) {
            let p = chunk.as_mut_ptr().cast::<__m512i>();
            // SAFETY: `chunk` holds 8 `u64`, one vector.
            let mut x = unsafe { _mm512_loadu_si512(p) };
            if ZIGZAG {
                let sign = _mm512_sub_epi64(zero, _mm512_and_si512(x, one));
                x = _mm512_xor_si512(_mm512_srli_epi64::<1>(x), sign);
            }
            x = _mm512_add_epi64(x, _mm512_alignr_epi64::<7>(x, zero));
            x = _mm512_add_epi64(x, _mm512_alignr_epi64::<6>(x, zero));
            x = _mm512_add_epi64(x, _mm512_alignr_epi64::<4>(x, zero));
            // SAFETY: as the load.
            unsafe { _mm512_storeu_si512(p, _mm512_add_epi64(x, carry)) };
            carry = _mm512_add_epi64(carry, _mm512_permutexvar_epi64(last, x));
        }
        _mm_cvtsi128_si64(_mm512_castsi512_si128(carry)) as u64
    }

    /// # Safety
    /// AVX2; `words.len()` is a multiple of 8.
    #[target_feature(enable = "avx2")]
    unsafe fn scan_u32<const ZIGZAG: bool>(carry: u32, words: &mut [u32]) -> u32 {
        let mut carry = _mm256_set1_epi32(carry as i32);
        let (one, last) = (_mm256_set1_epi32(1), _mm256_set1_epi32(7));
        for chunk in words.chunks_exact_mut(8) {
            let p = chunk.as_mut_ptr().cast::<__m256i>();
            // SAFETY: `chunk` holds 8 `u32`, one vector.
            let mut x = unsafe { _mm256_loadu_si256(p) };
            if ZIGZAG {
                let sign = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_and_si256(x, one));
                x = _mm256_xor_si256(_mm256_srli_epi32::<1>(x), sign);
            }
            x = _mm256_add_epi32(x, _mm256_slli_si256::<4>(x));
            x = _mm256_add_epi32(x, _mm256_slli_si256::<8>(x));
            let low_total = _mm256_shuffle_epi32::<0xFF>(_mm256_permute2x128_si256::<0x08>(x, x));
            x = _mm256_add_epi32(x, low_total);
            // SAFETY: as the load.
            unsafe { _mm256_storeu_si256(p, _mm256_add_epi32(x, carry)) };
            carry = _mm256_add_epi32(carry, _mm256_permutevar8x32_epi32(x, last));
        }
        _mm256_cvtsi256_si32(carry) as u32
    }

    /// # Safety
    /// AVX2; `words.len()` is a multiple of 4.
    #[target_feature(enable = "avx2")]
    unsafe fn scan_u64<const ZIGZAG: bool>(carry: u64, words: &mut [u64]) -> u64 {
        let mut carry = _mm256_set1_epi64x(carry as i64);
        let one = _mm256_set1_epi64x(1);
        for chunk in words.chunks_exact_mut(4) {
            let p = chunk.as_mut_ptr().cast::<__m256i>();
            // SAFETY: `chunk` holds 4 `u64`, one vector.
            let mut x = unsafe { _mm256_loadu_si256(p) };
            if ZIGZAG {
                let sign = _mm256_sub_epi64(_mm256_setzero_si256(), _mm256_and_si256(x, one));
                x = _mm256_xor_si256(_mm256_srli_epi64::<1>(x), sign);
            }
            x = _mm256_add_epi64(x, _mm256_slli_si256::<8>(x));
            let low_total = _mm256_shuffle_epi32::<0xEE>(_mm256_permute2x128_si256::<0x08>(x, x));
            x = _mm256_add_epi64(x, low_total);
            // SAFETY: as the load.
            unsafe { _mm256_storeu_si256(p, _mm256_add_epi64(x, carry)) };
            carry = _mm256_add_epi64(carry, _mm256_permute4x64_epi64::<0xFF>(x));
        }
        _mm256_extract_epi64::<0>(carry) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values read near their data points agree with the values, at every stride it serves, every delta
    /// width with bases that wrap, for words of every size, on every CPU path; a position in the last
    /// stride (no data point after it) panics instead of reading past the points.
    #[test]
    fn values_near_points_agree_with_the_values() {
        use crate::kernels::bitpack;
        fn check<U: Word + std::fmt::Debug>() {
            // Deltas with a base near the word's top, so that running values wrap, and data points as wide as
            // the word (for words up to 32 bits; points are at most 56 bits wide); then deltas of 1 and up
            // and points as narrow as a frame of reference makes them, which the vector loop reads.
            let configs: &[(u64, bool)] = if U::BITS <= 32 { &[(3, true), (1, false)] } else { &[(1, false)] };
            for &(step, wrapping) in configs {
                for shift in 0..=NEAR_POINTS_MAX_STRIDE.ilog2() {
                    for w in 0..=7u32 {
                        for n in [1usize, 2, 17, 33, 300, 1_000] {
                            let delta_base =
                                if wrapping { U::ZERO.wrapping_sub(U::from_u64(step)) } else { U::from_u64(step) };
                            let fields: Vec<U> = (0..n as u64)
                                .map(|i| U::from_u64(i.wrapping_mul(0x9e37_79b9) >> 7) & U::low_mask(w))
                                .collect();
                            let mut values =
                                vec![if wrapping { U::from_u64(0xabcd_ef01_2345) } else { U::from_u64(5) }];
                            for f in &fields[1..] {
                                values.push(values[values.len() - 1].wrapping_add(delta_base.wrapping_add(*f)));
                            }
                            let point_base = if wrapping { U::from_u64(12_345) } else { values[0] };
                            let points: Vec<U> =
                                values.iter().step_by(1 << shift).map(|v| v.wrapping_sub(point_base)).collect();
                            let wp = if wrapping {
                                U::BITS
                            } else {
                                64 - points.iter().max().unwrap().to_u64().leading_zeros()
                            };
                            let (mut point_bytes, mut delta_bytes) = (Vec::new(), Vec::new());
                            bitpack::pack(&points, wp, &mut point_bytes);
                            bitpack::pack(&fields, w, &mut delta_bytes);
                            let stream = DeltasWithPoints {
                                points: PackedRef::new(&point_bytes, points.len(), wp).unwrap(),
                                point_base,
                                deltas: PackedRef::new(&delta_bytes, n, w).unwrap(),
                                delta_base,
                                shift,
                            };
                            assert!(stream.near_points_apply());
                            let last_stride = (n - 1) >> shift << shift;
                            // Every row before the last stride, forwards and backwards.
                            let mut positions: Vec<u32> = (0..last_stride as u32).collect();
                            positions.extend((0..last_stride as u32).rev());
                            crate::kernels::on_every_path(|| {
                                let mut out = vec![U::ZERO; positions.len()];
                                stream.values_near_points(&positions, &mut out);
                                for (&p, &o) in positions.iter().zip(&out) {
                                    assert_eq!(o, values[p as usize], "shift {shift}, width {w}, {n} rows, row {p}");
                                }
                            });
                            let past = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                stream.values_near_points(&[last_stride as u32], &mut [U::ZERO])
                            }));
                            assert!(past.is_err(), "shift {shift}, width {w}, {n} rows: a row in the last stride");
                        }
                    }
                }
            }
            let wide = DeltasWithPoints::<U> {
                points: PackedRef::new(&[0; 64], 1, 1).unwrap(),
                point_base: U::ZERO,
                deltas: PackedRef::new(&[0; 64], 16, 8).unwrap(),
                delta_base: U::ZERO,
                shift: 4,
            };
            assert!(!wide.near_points_apply(), "deltas of 8 bits");
            let narrow_deltas = PackedRef::new(&[0; 64], 16, 1).unwrap();
            let past = NEAR_POINTS_MAX_STRIDE.ilog2() + 1;
            assert!(
                !DeltasWithPoints { shift: past, deltas: narrow_deltas, ..wide }.near_points_apply(),
                "strides past the longest"
            );
        }
        check::<u8>();
        check::<u16>();
        check::<u32>();
        check::<u64>();
    }

    fn check<U: Word>() {
        let values: Vec<U> =
            (0..1000u64).map(|i| U::from_u64(i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17))).collect();
        for zig in [false, true] {
            let deltas: Vec<U> = std::iter::once(U::ZERO)
                .chain(values.windows(2).map(|w| {
                    let d = w[1].wrapping_sub(w[0]);
                    if zig {
                        zigzag(d)
                    } else {
                        d
                    }
                }))
                .collect();
            for len in [0, 1, 7, 8, 9, 15, 16, 17, 33, 63, 1000] {
                let mut words = deltas[..len].to_vec();
                let last = prefix_sum(values[0], &mut words, zig);
                assert_eq!(words, &values[..len], "{} bits, zigzag {zig}, {len} values", U::BITS);
                assert_eq!(last, if len == 0 { values[0] } else { values[len - 1] });
                if len > 0 {
                    let moved = delta_sum(&deltas[1..len], zig);
                    assert_eq!(values[0].wrapping_add(moved), values[len - 1]);
                }
            }
        }
    }

    #[test]
    fn prefix_and_delta_sums_round_trip_every_word() {
        check::<u8>();
        check::<u16>();
        crate::kernels::on_every_path(check::<u32>);
        crate::kernels::on_every_path(check::<u64>);
    }

    #[test]
    fn zigzag_maps_small_steps_either_way_to_small_words() {
        assert_eq!([0u32, u32::MAX, 1, u32::MAX - 1].map(zigzag), [0, 1, 2, 3]);
        for d in [0u64, 1, u64::MAX, 1 << 63, (1 << 63) - 1, 12345] {
            assert_eq!(unzigzag(zigzag(d)), d);
        }
        assert_eq!(zigzag(i8::MIN as u8), u8::MAX);
    }

    #[test]
    fn weighted_sums_are_exact_at_the_bounds() {
        let words = vec![u32::MAX; 1 << 16];
        let expect: u128 = (1..=1u128 << 16).map(|w| w * u32::MAX as u128).sum();
        assert_eq!(weighted_sums(&words, 1 << 16), ((1 << 16) * u32::MAX as u128, expect));
        let words = vec![u64::MAX; 1000];
        let expect: u128 = (0..1000u128).map(|k| (65_536 - k) * u64::MAX as u128).sum();
        assert_eq!(weighted_sums(&words, 65_536), (1000 * u64::MAX as u128, expect));
        assert_eq!(weighted_sums::<u8>(&[200, 100], 2), (300, 500));
        assert_eq!(weighted_sums::<u16>(&[], 5), (0, 0));
    }
}
