//! Dictionary lookups: the entry of each code, where a code past the last entry reads the last one (so a
//! corrupt code never reads out of bounds; [`entry`] is the same rule for one code).
//!
//! A lookup per code compiles to a scalar loop (a load, a clamp and a store per code, about 1 ns a value
//! on the Xeon this was written on, eight times a bit-packed decode). AVX2 gathers eight 32-bit entries or
//! four 64-bit ones per instruction instead, with the codes clamped eight at a time. A dictionary of up to
//! 64 32-bit entries or 32 64-bit ones (32 and 16 with AVX2 alone) is held in registers and permuted
//! instead: a gather still loads a lane at a time. Evenly spaced
//! entries are computed rather than looked up, in a loop compiled for AVX2 where the CPU has it: baseline
//! x86-64 has neither an unsigned 32-bit min nor a 32-bit multiply, and emulates both at several times
//! the cost.
//!
//! A take's picks from a decoded window ([`pick`]) are lookups too, by position less the window's first:
//! positions close together go through permutes of two registers of the window (AVX-512, or AVX2 at
//! half the reach), where a gather would cost a load a lane.

use bytemuck::Pod;

use crate::types::Word;
#[cfg(target_arch = "x86_64")]
use bytemuck::{try_cast_slice, try_cast_slice_mut};

/// `out[i] = dictionary[min(codes[i], len - 1)]` over `codes.len().min(out.len())` codes; nothing is
/// written where the dictionary is empty.
pub fn lookup<W: Pod>(dictionary: &[W], codes: &[u32], out: &mut [W]) {
    if dictionary.is_empty() {
        return;
    }
    let n = codes.len().min(out.len());
    let (codes, out) = (&codes[..n], &mut out[..n]);
    #[cfg(target_arch = "x86_64")]
    if crate::kernels::cpu::avx2() && dictionary.len() <= i32::MAX as usize {
        use crate::kernels::cpu::avx512f;
        // Words of 4 and 8 bytes are looked up as `u32` and `u64` (a cast that also checks alignment).
        // SAFETY (each call): the CPU has AVX2 (checked above), and AVX-512F where that kernel runs
        // (checked here); every entry's index fits a gather's `i32`, and a permute's dictionary its
        // registers.
        let len = dictionary.len();
        match size_of::<W>() {
            4 => {
                if let (Ok(d), Ok(o)) = (try_cast_slice(dictionary), try_cast_slice_mut(out)) {
                    return unsafe {
                        match (avx512f(), len) {
                            (true, ..=32) => x86::permute_u32::<false>(d, codes, o),
                            (true, 33..=64) => x86::permute_u32::<true>(d, codes, o),
                            (false, ..=16) => x86::permute_u32_avx2::<false>(d, codes, o),
                            (false, 17..=32) => x86::permute_u32_avx2::<true>(d, codes, o),
                            _ => x86::lookup_u32(d, codes, o),
                        }
                    };
                }
            }
            8 => {
                if let (Ok(d), Ok(o)) = (try_cast_slice(dictionary), try_cast_slice_mut(out)) {
                    return unsafe {
                        match (avx512f(), len) {
                            (true, ..=16) => x86::permute_u64::<false>(d, codes, o),
                            (true, 17..=32) => x86::permute_u64::<true>(d, codes, o),
                            (false, ..=8) => x86::permute_u64_avx2::<false>(d, codes, o),
                            (false, 9..=16) => x86::permute_u64_avx2::<true>(d, codes, o),
                            _ => x86::lookup_u64(d, codes, o),
                        }
                    };
                }
            }
            _ => {}
        }
    }
    lookup_scalar(dictionary, codes, out);
}

with_avx2! {
    /// `out[i] = first + step · min(codes[i], last)`, wrapping: the entries of an evenly spaced
    /// dictionary of `last + 1` entries, computed.
    pub fn evenly_spaced[U: Word](first: U, step: U, last: u32, codes: &[u32], out: &mut [U]) -> () {
        for (o, &c) in out.iter_mut().zip(codes) {
            *o = first.wrapping_add(step.wrapping_mul(U::from_u64(u64::from(c.min(last)))));
        }
    }
}

with_avx2! {
    /// `out[i] = value(first + step · run)`, wrapping, where `run` is the run of row `rows[i]`: 0 below
    /// `first_end`, then one more every `2^shift` rows, at most `last` (arithmetic values read in place:
    /// a `sequence`, or `rle` of runs of one length over one). Whether every row lies below `len`; where
    /// one does not, its output is some value. The check rides in the same loop, so it has no exit and
    /// is computed eight rows at a time.
    pub fn stepped[U: Word, V, F: Fn(U) -> V](
        first: U,
        step: U,
        runs: SteppedRuns,
        rows: &[u32],
        out: &mut [V],
        value: F
    ) -> bool {
        let mut inside = true;
        for (o, &row) in out.iter_mut().zip(rows) {
            inside &= row < runs.len;
            let past_first = u32::from(row >= runs.first_end);
            let run = ((row.saturating_sub(runs.first_end) >> runs.shift) + past_first).min(runs.last);
            *o = value(first.wrapping_add(step.wrapping_mul(U::from_u64(run.into()))));
        }
        inside
    }
}

/// Runs of [`stepped`] values.
#[derive(Clone, Copy, Debug)]
pub struct SteppedRuns {
    /// The row where the first run ends.
    pub first_end: u32,
    /// Each later run is `2^shift` rows long (`shift` below 32).
    pub shift: u32,
    /// The last run: rows past its start are all in it.
    pub last: u32,
    /// The rows.
    pub len: u32,
}

/// `out[i] = window[positions[i] - first]` over `positions.len().min(out.len())` positions; a position
/// outside `first .. first + window.len()` leaves its output as it was. What a take picks from a decoded
/// window: positions close together, as a sorted list's are, in any order.
///
/// A scalar loop costs about what a plain gather from memory does (two loads and a store a position, and
/// the bounds check). With AVX-512, eight `u32` positions within 32 values of the first of them (four `u64`
/// within 16) are picked by one two-register permute from two loads of the window; with AVX2 alone, four
/// `u32` positions within 16 values, by two permutes and a blend. A group spread wider, or too near the
/// window's end, goes through the scalar loop.
pub fn pick<W: Pod>(window: &[W], first: u32, positions: &[u32], out: &mut [W]) {
    let n = positions.len().min(out.len());
    let (positions, out) = (&positions[..n], &mut out[..n]);
    #[cfg(target_arch = "x86_64")]
    {
        use crate::kernels::cpu;
        // Words of 4 and 8 bytes are picked as `u32` and `u64` (a cast that also checks alignment).
        if size_of::<W>() == 4 && cpu::avx2() {
            if let (Ok(w), Ok(o)) = (try_cast_slice(window), try_cast_slice_mut(out)) {
                // SAFETY: the CPU has AVX2, and AVX-512F where that kernel runs (both checked here).
                return unsafe {
                    if cpu::avx512f() {
                        x86::pick_u32(w, first, positions, o)
                    } else {
                        x86::pick_u32_avx2(w, first, positions, o)
                    }
                };
            }
        }
        if size_of::<W>() == 8 && cpu::avx512f() {
            if let (Ok(w), Ok(o)) = (try_cast_slice(window), try_cast_slice_mut(out)) {
                // SAFETY: the CPU has AVX-512F (checked here).
                return unsafe { x86::pick_u64(w, first, positions, o) };
            }
        }
    }
    pick_scalar(window, first, positions, out);
}

/// [`pick`] one position at a time.
fn pick_scalar<W: Copy>(window: &[W], first: u32, positions: &[u32], out: &mut [W]) {
    for (o, &p) in out.iter_mut().zip(positions) {
        if let Some(&v) = window.get(p.wrapping_sub(first) as usize) {
            *o = v;
        }
    }
}

/// `out[i] = values[rows[i]]` over `rows.len().min(out.len())` rows, and whether every row lay inside
/// `values` (a row outside leaves its output as it was): a take's gather from what it decoded whole. Each
/// row is checked as it is read, with no early exit (which ran at half a plain gather's speed in some
/// builds), so a long list sweeps through memory once and the check costs what a bounds check does.
pub fn gather_checked<R: Copy + Into<u64>, T: Copy>(values: &[T], rows: &[R], out: &mut [T]) -> bool {
    let mut inside = true;
    for (o, &row) in out.iter_mut().zip(rows) {
        match usize::try_from(row.into()).ok().and_then(|r| values.get(r)) {
            Some(&v) => *o = v,
            None => inside = false,
        }
    }
    inside
}

/// The entry of `code` in a non-empty dictionary; a corrupt code past the end reads the last entry instead
/// of out of bounds (`dict`'s lone reads, in place or not, and [`lookup`]'s).
#[inline(always)]
pub fn entry<W: Copy>(dictionary: &[W], code: u32) -> W {
    dictionary[(code as usize).min(dictionary.len() - 1)]
}

/// [`lookup`] one code at a time, for a non-empty `dictionary`.
fn lookup_scalar<W: Copy>(dictionary: &[W], codes: &[u32], out: &mut [W]) {
    for (o, &c) in out.iter_mut().zip(codes) {
        *o = entry(dictionary, c);
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// # Safety
    /// AVX2; `dictionary` non-empty with at most `i32::MAX` entries; `codes` and `out` of one length.
    #[target_feature(enable = "avx2")]
    pub unsafe fn lookup_u32(dictionary: &[u32], codes: &[u32], out: &mut [u32]) {
        let last = dictionary.len() - 1;
        let clamp = _mm256_set1_epi32(last as i32);
        in_chunks::<_, 8>(dictionary, codes, out, |c, o| {
            // SAFETY: eight codes read and eight entries written; each index is at most `last`.
            unsafe {
                let at = _mm256_min_epu32(_mm256_loadu_si256(c.as_ptr().cast()), clamp);
                let v = _mm256_i32gather_epi32::<4>(dictionary.as_ptr().cast(), at);
                _mm256_storeu_si256(o.as_mut_ptr().cast(), v);
            }
        });
    }

    /// # Safety
    /// As [`lookup_u32`].
    #[target_feature(enable = "avx2")]
    pub unsafe fn lookup_u64(dictionary: &[u64], codes: &[u32], out: &mut [u64]) {
        let last = dictionary.len() - 1;
        let clamp = _mm_set1_epi32(last as i32);
        in_chunks::<_, 4>(dictionary, codes, out, |c, o| {
            // SAFETY: four codes read and four entries written; each index is at most `last`.
            unsafe {
                let at = _mm_min_epu32(_mm_loadu_si128(c.as_ptr().cast()), clamp);
                let v = _mm256_i32gather_epi64::<8>(dictionary.as_ptr().cast(), at);
                _mm256_storeu_si256(o.as_mut_ptr().cast(), v);
            }
        });
    }

    /// The loop every SIMD lookup shares: `step(codes, out)` on each `N` codes and their outputs, then the
    /// scalar loop on the rest.
    #[inline(always)]
    fn in_chunks<W: Copy, const N: usize>(
        dictionary: &[W],
        codes: &[u32],
        out: &mut [W],
        step: impl Fn(&[u32], &mut [W]),
    ) {
        let (mut code_chunks, mut out_chunks) = (codes.chunks_exact(N), out.chunks_exact_mut(N));
        for (c, o) in (&mut code_chunks).zip(&mut out_chunks) {
            step(c, o);
        }
        super::lookup_scalar(dictionary, code_chunks.remainder(), out_chunks.into_remainder());
    }

    /// `dictionary` padded with its last entry to `N` entries, for registers that hold it whole.
    fn padded<W: Copy, const N: usize>(dictionary: &[W]) -> [W; N] {
        let mut table = [dictionary[dictionary.len() - 1]; N];
        table[..dictionary.len()].copy_from_slice(dictionary);
        table
    }

    /// [`super::lookup`] of a dictionary of at most 32 `u32` entries (64 where `WIDE`) held in registers:
    /// sixteen codes a step through one two-register permute (two and a blend where `WIDE`), where a
    /// gather would cost a load a lane.
    ///
    /// # Safety
    /// AVX-512F; `dictionary` non-empty with at most 32 entries (64 where `WIDE`); `codes` and `out` of one
    /// length.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn permute_u32<const WIDE: bool>(dictionary: &[u32], codes: &[u32], out: &mut [u32]) {
        let table = padded::<u32, 64>(dictionary);
        let clamp = _mm512_set1_epi32((dictionary.len() - 1) as i32);
        // SAFETY: 64 entries read, four registers' worth.
        let [t0, t1, t2, t3] = [0, 16, 32, 48].map(|at| unsafe { _mm512_loadu_si512(table.as_ptr().add(at).cast()) });
        in_chunks::<_, 16>(dictionary, codes, out, |c, o| {
            // SAFETY: sixteen codes read and sixteen entries written.
            unsafe {
                let at = _mm512_min_epu32(_mm512_loadu_si512(c.as_ptr().cast()), clamp);
                let mut v = _mm512_permutex2var_epi32(t0, at, t1);
                if WIDE {
                    let upper = _mm512_test_epi32_mask(at, _mm512_set1_epi32(32));
                    v = _mm512_mask_blend_epi32(upper, v, _mm512_permutex2var_epi32(t2, at, t3));
                }
                _mm512_storeu_si512(o.as_mut_ptr().cast(), v);
            }
        });
    }

    /// [`super::lookup`] of a dictionary of at most 16 `u32` entries (32 where `WIDE`) with AVX2: eight
    /// codes a step through [`lanes`].
    ///
    /// # Safety
    /// AVX2; `dictionary` non-empty with at most 16 entries (32 where `WIDE`); `codes` and `out` of one
    /// length.
    #[target_feature(enable = "avx2")]
    pub unsafe fn permute_u32_avx2<const WIDE: bool>(dictionary: &[u32], codes: &[u32], out: &mut [u32]) {
        let table = registers(&padded::<u32, 32>(dictionary));
        let clamp = _mm256_set1_epi32((dictionary.len() - 1) as i32);
        in_chunks::<_, 8>(dictionary, codes, out, |c, o| {
            // SAFETY: eight codes read and eight entries written.
            unsafe {
                let at = _mm256_min_epu32(_mm256_loadu_si256(c.as_ptr().cast()), clamp);
                _mm256_storeu_si256(o.as_mut_ptr().cast(), lanes::<WIDE>(&table, at));
            }
        });
    }

    /// [`super::lookup`] of a dictionary of at most 8 `u64` entries (16 where `WIDE`) with AVX2: four codes
    /// a step, each entry as two `u32` halves through [`lanes`].
    ///
    /// # Safety
    /// AVX2; `dictionary` non-empty with at most 8 entries (16 where `WIDE`); `codes` and `out` of one
    /// length.
    #[target_feature(enable = "avx2")]
    pub unsafe fn permute_u64_avx2<const WIDE: bool>(dictionary: &[u64], codes: &[u32], out: &mut [u64]) {
        let table = registers(bytemuck::cast_ref(&padded::<u64, 16>(dictionary)));
        let clamp = _mm256_set1_epi32((dictionary.len() - 1) as i32);
        // Each code twice, and which half of its entry each copy reads.
        let (twice, halves) = (_mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3), _mm256_setr_epi32(0, 1, 0, 1, 0, 1, 0, 1));
        in_chunks::<_, 4>(dictionary, codes, out, |c, o| {
            // SAFETY: four codes read and four entries written.
            unsafe {
                let code = _mm256_castsi128_si256(_mm_loadu_si128(c.as_ptr().cast()));
                let code = _mm256_min_epu32(_mm256_permutevar8x32_epi32(code, twice), clamp);
                // Code `c`'s halves are `u32` lanes 2c and 2c + 1 of the table: bits 0-2 pick a lane of a
                // register, bit 3 (the code's bit 2) and bit 4 (its bit 3) the register.
                let at = _mm256_add_epi32(_mm256_slli_epi32::<1>(code), halves);
                _mm256_storeu_si256(o.as_mut_ptr().cast(), lanes::<WIDE>(&table, at));
            }
        });
    }

    /// 32 `u32` lanes in four registers.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn registers(lanes: &[u32; 32]) -> [__m256i; 4] {
        // SAFETY: 32 lanes read, eight a register.
        [0, 8, 16, 24].map(|at| unsafe { _mm256_loadu_si256(lanes.as_ptr().add(at).cast()) })
    }

    /// Lane `at` (below 16, or 32 where `WIDE`) of `table`, for each lane of `at`: a permute of each
    /// register's eight lanes, then blends on bit 3 of `at` (and bit 4).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn lanes<const WIDE: bool>(table: &[__m256i; 4], at: __m256i) -> __m256i {
        // `b`'s lanes where `sign`'s lane is negative, `a`'s elsewhere.
        let by_sign = |a: __m256i, b: __m256i, sign: __m256i| {
            let (a, b, sign) = (_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), _mm256_castsi256_ps(sign));
            _mm256_castps_si256(_mm256_blendv_ps(a, b, sign))
        };
        let permute = |k: usize| _mm256_permutevar8x32_epi32(table[k], at);
        // Bit 3, then bit 4, moved to the sign bit.
        let (bit3, bit4) = (_mm256_slli_epi32::<28>(at), _mm256_slli_epi32::<27>(at));
        let low = by_sign(permute(0), permute(1), bit3);
        if WIDE {
            by_sign(low, by_sign(permute(2), permute(3), bit3), bit4)
        } else {
            low
        }
    }

    /// [`super::lookup`] of a dictionary of at most 16 `u64` entries (32 where `WIDE`) held in registers:
    /// eight codes a step, as [`permute_u32`].
    ///
    /// # Safety
    /// AVX-512F; `dictionary` non-empty with at most 16 entries (32 where `WIDE`); `codes` and `out` of one
    /// length.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn permute_u64<const WIDE: bool>(dictionary: &[u64], codes: &[u32], out: &mut [u64]) {
        let table = padded::<u64, 32>(dictionary);
        let clamp = _mm256_set1_epi32((dictionary.len() - 1) as i32);
        // SAFETY: 32 entries read, four registers' worth.
        let [t0, t1, t2, t3] = [0, 8, 16, 24].map(|at| unsafe { _mm512_loadu_si512(table.as_ptr().add(at).cast()) });
        in_chunks::<_, 8>(dictionary, codes, out, |c, o| {
            // SAFETY: eight codes read and eight entries written.
            unsafe {
                let at = _mm256_min_epu32(_mm256_loadu_si256(c.as_ptr().cast()), clamp);
                let at = _mm512_cvtepu32_epi64(at);
                let mut v = _mm512_permutex2var_epi64(t0, at, t1);
                if WIDE {
                    let upper = _mm512_test_epi64_mask(at, _mm512_set1_epi64(16));
                    v = _mm512_mask_blend_epi64(upper, v, _mm512_permutex2var_epi64(t2, at, t3));
                }
                _mm512_storeu_si512(o.as_mut_ptr().cast(), v);
            }
        });
    }

    /// The loop every SIMD pick shares. A group of `GROUP` positions whose first lies at least `REACH` values
    /// before the window's end goes to `group(positions, values, out)`, with the window's `REACH` values
    /// from the group's first on; it picks them and returns true, or returns false where a position lies
    /// outside those values. Groups declined or too near the end, and the tail, go through the scalar loop.
    #[inline(always)]
    fn in_groups<W: Copy, const GROUP: usize, const REACH: usize>(
        window: &[W],
        first: u32,
        positions: &[u32],
        out: &mut [W],
        group: impl Fn(&[u32], &[W], &mut [W]) -> bool,
    ) {
        let (mut position_chunks, mut out_chunks) = (positions.chunks_exact(GROUP), out.chunks_exact_mut(GROUP));
        for (p, o) in (&mut position_chunks).zip(&mut out_chunks) {
            let at = p[0].wrapping_sub(first) as usize;
            let picked = window.get(at..at + REACH).is_some_and(|values| group(p, values, o));
            if !picked {
                super::pick_scalar(window, first, p, o);
            }
        }
        super::pick_scalar(window, first, position_chunks.remainder(), out_chunks.into_remainder());
    }

    /// [`super::pick`] of `u32` values, eight positions within 32 values a step.
    ///
    /// # Safety
    /// AVX-512F; `positions` and `out` of one length.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn pick_u32(window: &[u32], first: u32, positions: &[u32], out: &mut [u32]) {
        in_groups::<_, 8, 32>(window, first, positions, out, |p, values, o| {
            // SAFETY: eight positions read, 32 values and eight outputs written (the lengths `in_groups`
            // hands over).
            unsafe {
                // Each position's distance from the group's first; the upper eight lanes are zero.
                let near = _mm256_sub_epi32(_mm256_loadu_si256(p.as_ptr().cast()), _mm256_set1_epi32(p[0] as i32));
                let near = _mm512_zextsi256_si512(near);
                if _mm512_cmpge_epu32_mask(near, _mm512_set1_epi32(32)) != 0 {
                    return false;
                }
                let low = _mm512_loadu_si512(values.as_ptr().cast());
                let high = _mm512_loadu_si512(values.as_ptr().add(16).cast());
                let picked = _mm512_permutex2var_epi32(low, near, high);
                _mm256_storeu_si256(o.as_mut_ptr().cast(), _mm512_castsi512_si256(picked));
            }
            true
        });
    }

    /// [`super::pick`] of `u32` values with AVX2, four positions within 16 values a step: a permute of each
    /// of two registers of the window (eight values each), then a blend.
    ///
    /// # Safety
    /// AVX2; `positions` and `out` of one length.
    #[target_feature(enable = "avx2")]
    pub unsafe fn pick_u32_avx2(window: &[u32], first: u32, positions: &[u32], out: &mut [u32]) {
        in_groups::<_, 4, 16>(window, first, positions, out, |p, values, o| {
            // SAFETY: four positions read, 16 values and four outputs written (the lengths `in_groups`
            // hands over).
            unsafe {
                // Distances from the group's first, the upper four lanes zero; each below 16 exactly where
                // capping it at 15 leaves it unchanged (AVX2 has no unsigned compare).
                let near = _mm256_zextsi128_si256(_mm_sub_epi32(
                    _mm_loadu_si128(p.as_ptr().cast()),
                    _mm_set1_epi32(p[0] as i32),
                ));
                let fifteen = _mm256_set1_epi32(15);
                let inside = _mm256_cmpeq_epi32(_mm256_min_epu32(near, fifteen), near);
                if _mm256_movemask_ps(_mm256_castsi256_ps(inside)) != 0xff {
                    return false;
                }
                let low = _mm256_loadu_si256(values.as_ptr().cast());
                let high = _mm256_loadu_si256(values.as_ptr().add(8).cast());
                let from_low = _mm256_permutevar8x32_epi32(low, near);
                let from_high = _mm256_permutevar8x32_epi32(high, near);
                let upper = _mm256_cmpgt_epi32(near, _mm256_set1_epi32(7));
                let picked = _mm256_blendv_epi8(from_low, from_high, upper);
                _mm_storeu_si128(o.as_mut_ptr().cast(), _mm256_castsi256_si128(picked));
            }
            true
        });
    }

    /// [`super::pick`] of `u64` values, four positions within 16 values a step.
    ///
    /// # Safety
    /// As [`pick_u32`].
    #[target_feature(enable = "avx512f")]
    pub unsafe fn pick_u64(window: &[u64], first: u32, positions: &[u32], out: &mut [u64]) {
        in_groups::<_, 4, 16>(window, first, positions, out, |p, values, o| {
            // SAFETY: four positions read, 16 values and four outputs written (the lengths `in_groups`
            // hands over).
            unsafe {
                let near = _mm_sub_epi32(_mm_loadu_si128(p.as_ptr().cast()), _mm_set1_epi32(p[0] as i32));
                let near = _mm512_zextsi256_si512(_mm256_cvtepu32_epi64(near));
                if _mm512_cmpge_epu64_mask(near, _mm512_set1_epi64(16)) != 0 {
                    return false;
                }
                let low = _mm512_loadu_si512(values.as_ptr().cast());
                let high = _mm512_loadu_si512(values.as_ptr().add(8).cast());
                let picked = _mm512_permutex2var_epi64(low, near, high);
                _mm256_storeu_si256(o.as_mut_ptr().cast(), _mm512_castsi512_si256(picked));
            }
            true
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Arithmetic values by run: a first run shorter than, as long as and longer than the rest, runs of
    /// 1 to 16 rows, rows in any order up to the last run's; a row at or past `len` is reported.
    #[test]
    fn stepped_values_follow_their_runs() {
        let mut rng = crate::stats::SplitMix(3);
        for shift in 0..5 {
            let length = 1u32 << shift;
            for first_end in [1, length.saturating_sub(1).max(1), length, length + 3] {
                let len = 1_000 + first_end;
                let last = 1 + (len - first_end - 1) / length;
                let runs = SteppedRuns { first_end, shift, last, len };
                let rows: Vec<u32> = (0..300)
                    .map(|k| if k < 3 { [0, first_end - 1, len - 1][k] } else { rng.below(len as usize) as u32 })
                    .collect();
                let run = |row: u32| if row < first_end { 0 } else { ((row - first_end) / length + 1).min(last) };
                for (first, step) in [(7u64, 3u64), (u64::MAX - 5, u64::MAX)] {
                    let mut out = vec![0u64; rows.len()];
                    assert!(stepped(first, step, runs, &rows, &mut out, |v| v));
                    let expected: Vec<u64> =
                        rows.iter().map(|&r| first.wrapping_add(step.wrapping_mul(run(r).into()))).collect();
                    assert_eq!(out, expected, "shift {shift}, first run {first_end}");
                    let mut narrow = vec![0u32; rows.len()];
                    assert!(stepped(first as u32, step as u32, runs, &rows, &mut narrow, |v| v));
                    assert!(narrow.iter().zip(&expected).all(|(&n, &e)| n == e as u32), "shift {shift}, u32");
                }
                let mut past = rows.clone();
                past[150] = len;
                assert!(!stepped(0u32, 1, runs, &past, &mut vec![0u32; past.len()], |v| v));
            }
        }
    }

    /// Every length around the vector widths, dictionaries of 1 to 300 entries, codes past the end: the
    /// dispatched kernel agrees with the scalar one for 1-, 2-, 4- and 8-byte words; on an AVX-512 CPU,
    /// on its AVX2 paths too.
    #[test]
    fn lookups_agree_with_the_scalar_loop() {
        crate::kernels::on_every_path(lookups_agree_on_this_path);
    }

    fn lookups_agree_on_this_path() {
        fn check<W: Pod + PartialEq + std::fmt::Debug>(word: impl Fn(u64) -> W) {
            // Around each permute's reach (8, 16, 32 and 64 entries) and past it.
            for entries in [1usize, 2, 5, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 300] {
                let dictionary: Vec<W> =
                    (0..entries as u64).map(|i| word(i.wrapping_mul(0x9e37_79b9_7f4a_7c15))).collect();
                for n in [0usize, 1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 33, 1000] {
                    // Mostly in range, a few (one in `entries + 2`) past the end.
                    let codes: Vec<u32> =
                        (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761) % (entries as u32 + 2)).collect();
                    let mut want = vec![word(0); n];
                    lookup_scalar(&dictionary, &codes, &mut want);
                    let mut got = vec![word(0); n + 2];
                    lookup(&dictionary, &codes, &mut got);
                    assert_eq!(got[..n], want[..], "{entries} entries, {n} codes");
                    assert!(got[n..].iter().all(|&w| w == word(0)), "wrote past the codes");
                }
            }
        }
        check(|v| v as u8);
        check(|v| v as u16);
        check(|v| v as u32);
        check(|v| v as i32);
        check(|v| v);
        check(|v| v as i64);
        // A code far past the end, and the largest code, read the last entry.
        let mut out = [0u32; 9];
        lookup(&[7u32, 8, 9], &[u32::MAX; 9], &mut out);
        assert_eq!(out, [9; 9]);
        // Evenly spaced entries, computed, agree with the same entries looked up.
        let spaced: Vec<u32> = (0..300u32).map(|i| 7 + 3 * i).collect();
        let codes: Vec<u32> = (0..1000u32).map(|i| i.wrapping_mul(2_654_435_761) % 400).collect();
        let (mut computed, mut looked_up) = (vec![0u32; 1000], vec![0u32; 1000]);
        evenly_spaced(7, 3, 299, &codes, &mut computed);
        lookup_scalar(&spaced, &codes, &mut looked_up);
        assert_eq!(computed, looked_up);
        // An empty dictionary writes nothing.
        lookup(&[] as &[u32], &[0; 9], &mut out);
        assert_eq!(out, [9; 9]);
    }
    /// Positions sorted and dense, sorted and spread, in any order, repeated and outside the window, for
    /// windows around the permutes' 16 and 32 values: the dispatched pick agrees with the scalar one, and
    /// leaves the outputs of positions outside the window as they were; on an AVX-512 CPU, on its AVX2
    /// path too.
    #[test]
    fn picks_agree_with_the_scalar_loop() {
        crate::kernels::on_every_path(picks_agree_on_this_path);
    }

    fn picks_agree_on_this_path() {
        fn check<W: Pod + PartialEq + std::fmt::Debug>(word: impl Fn(u64) -> W) {
            let mut lists: Vec<Vec<u32>> = vec![
                (0..200).map(|i| i * 3 / 2).collect(),
                (0..200).map(|i| i * 5).collect(),
                (0..200u32).map(|i| i.wrapping_mul(2_654_435_761) % 320).collect(),
                vec![7; 40],
                (0..100).rev().collect(),
            ];
            // Groups of four and of eight whose last lies just inside and just past the permutes' reach
            // (16 values for four positions, 32 for eight), from positions on and off the groups' starts.
            let eights = [[0, 1, 2, 3, 4, 5, 6, 31], [0, 1, 2, 3, 4, 5, 6, 32], [2, 9, 9, 20, 21, 22, 30, 33]];
            let fours = [[0, 1, 2, 15], [0, 1, 2, 16], [0, 5, 9, 31], [0, 5, 9, 32], [3, 4, 5, 40]];
            let at = |base: u32| move |d: &u32| base + d;
            let mut edges: Vec<u32> =
                eights.iter().flat_map(|g| [0, 50].map(|b| g.iter().map(at(b)))).flatten().collect();
            edges.extend(fours.iter().flat_map(|g| [0, 50].map(|b| g.iter().map(at(b)))).flatten());
            lists.push(edges);
            lists.push((0..200).map(|i| i * 6).collect());
            // Outside the window on both sides: below `first` wraps to a large distance.
            lists.push((0..120).map(|i| if i % 7 == 3 { 900 + i } else { 1000 + i }).collect());
            for len in [0usize, 1, 15, 16, 17, 31, 32, 33, 300] {
                let window: Vec<W> = (0..len as u64).map(|i| word(i.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)).collect();
                for (l, list) in lists.iter().enumerate() {
                    let first = if l + 1 == lists.len() { 1000 } else { 0 };
                    for n in [0usize, 1, 3, 4, 7, 8, 9, 33, list.len()] {
                        let n = n.min(list.len());
                        let mut want = vec![word(0); n + 2];
                        pick_scalar(&window, first, &list[..n], &mut want[..n]);
                        let mut got = vec![word(0); n + 2];
                        pick(&window, first, &list[..n], &mut got);
                        assert_eq!(got, want, "window of {len}, list {l}, {n} positions");
                        for (k, &p) in list[..n].iter().enumerate() {
                            let expect = window.get(p.wrapping_sub(first) as usize).copied().unwrap_or(word(0));
                            assert_eq!(got[k], expect, "window of {len}, list {l}, position {p}");
                        }
                    }
                }
            }
        }
        check(|v| v as u8);
        check(|v| v as u16);
        check(|v| v as u32);
        check(|v| v as i32);
        check(|v| v);
        check(|v| v as i64);
    }
}
