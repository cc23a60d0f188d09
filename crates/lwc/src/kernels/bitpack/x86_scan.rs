//! Packed scans on x86: a range compare and a sum fused into AVX2 decoding of `u32` streams, so a filter or
//! an aggregate never writes decoded values out (see [`crate::kernels::scan`], which dispatches here).

use std::arch::x86_64::*;

use super::x86::*;

/// Range compare fused into decoding: bit `i` of `out` is set when value `i` (of a `u32` stream at
/// width `w`, starting at `src`) satisfies `value - lo <= span`, for `out.len() * 64` values.
/// Returns `false` (touching nothing) without AVX2.
///
/// The range is first clipped to the `w`-bit values, where it is one interval `[a, b]` or the
/// complement of one. Values are then compared left-aligned, `v << (32 - w)` plus lower bits of the
/// next value: that is in `[a << k, b << k | (1 << k) - 1]` exactly when `v` is in `[a, b]`, so no
/// shift right and no mask are needed. Widths 26..=31 decode exactly and compare `[a, b]`.
pub fn filter_u32(src: &[u8], w: u32, lo: u32, span: u32, out: &mut [u64]) -> bool {
    if !has_avx2() {
        return false;
    }
    let plan = Plan32::new(w);
    plan.check(src, w, out.len() * 8);
    let max = plan.mask;
    let hi = lo.wrapping_add(span);
    let (a, b, flip) = if lo <= hi {
        (lo, hi.min(max), 0)
    } else {
        // `[lo, MAX] ∪ [0, hi]` is the complement of `[hi + 1, lo - 1]` (empty when span = MAX).
        (hi + 1, (lo - 1).min(max), !0u64)
    };
    if a > b {
        out.fill(flip);
        return true;
    }
    let k = if plan.mode == WIDE { 0 } else { 32 - w };
    let (lo_t, hi_t) = (a << k, b << k | ((1u64 << k) - 1) as u32);
    // SAFETY: AVX2 is present; `check` bounds every group's reads.
    unsafe {
        by_mode!(plan.mode, |M| filter_u32_avx2::<M>(src.as_ptr(), w as usize, plan, lo_t, hi_t - lo_t, flip, out))
    }
    true
}

/// # Safety
/// AVX2; `src + g * step .. + reach` readable for each of the `out.len() * 8` groups `g`.
#[target_feature(enable = "avx2")]
unsafe fn filter_u32_avx2<const MODE: u8>(
    src: *const u8,
    step: usize,
    plan: &Plan32,
    lo: u32,
    span: u32,
    flip: u64,
    out: &mut [u64],
) {
    // SAFETY: AVX2 is present (this function's contract).
    let r = unsafe { Regs32::new::<MODE>(plan) };
    let lo = _mm256_set1_epi32(lo as i32);
    let span = _mm256_set1_epi32(span as i32);
    let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    // All ones in lanes whose value is in range.
    let test = |p: *const u8| {
        // SAFETY: `p` is a readable group (caller's contract, below).
        let v = unsafe {
            if MODE == WIDE {
                r.decode8::<MODE>(p)
            } else {
                r.decode8_top::<MODE>(p)
            }
        };
        let x = _mm256_sub_epi32(v, lo);
        _mm256_cmpeq_epi32(_mm256_min_epu32(x, span), x)
    };
    let mut p = src;
    for word in out.iter_mut() {
        let mut bits = 0u64;
        for h in 0..2 {
            // SAFETY: the word's 8 groups are readable (caller's contract).
            let q = unsafe { p.add(4 * h * step) };
            // SAFETY: as above.
            let (m0, m1, m2, m3) =
                unsafe { (test(q), test(q.add(step)), test(q.add(2 * step)), test(q.add(3 * step))) };
            // Saturating packs keep all-ones / zero lanes; the permute undoes their interleave.
            let m = _mm256_packs_epi16(_mm256_packs_epi32(m0, m1), _mm256_packs_epi32(m2, m3));
            let m = _mm256_permutevar8x32_epi32(m, order);
            bits |= (_mm256_movemask_epi8(m) as u32 as u64) << (32 * h);
        }
        *word = bits ^ flip;
        // SAFETY: moves to the next word's first group, readable if there is one.
        p = unsafe { p.add(8 * step) };
    }
}

/// Sum of the `groups * 8` values of a `u32` stream at width `w` from `src`; `None` without AVX2.
pub fn sum_u32(src: &[u8], w: u32, groups: usize) -> Option<u128> {
    if !has_avx2() {
        return None;
    }
    let plan = Plan32::new(w);
    plan.check(src, w, groups);
    // SAFETY: AVX2 is present; `check` bounds every group's reads.
    Some(unsafe { by_mode!(plan.mode, |M| sum_u32_avx2::<M>(src.as_ptr(), w as usize, plan, groups)) })
}

/// # Safety
/// AVX2; `src + g * step .. + reach` readable for each of the `groups` groups `g`.
#[target_feature(enable = "avx2")]
unsafe fn sum_u32_avx2<const MODE: u8>(src: *const u8, step: usize, plan: &Plan32, groups: usize) -> u128 {
    // SAFETY: AVX2 is present (this function's contract).
    let r = unsafe { Regs32::new::<MODE>(plan) };
    let low = _mm256_set1_epi64x(0xFFFF_FFFF);
    let mut total = 0u128;
    let mut p = src;
    // Each 64-bit lane adds two values below 2^32 a group: 2^30 groups cannot overflow it.
    let mut left = groups;
    while left > 0 {
        let now = left.min(1 << 30);
        let mut acc = _mm256_setzero_si256();
        for _ in 0..now {
            // SAFETY: this group is readable (caller's contract).
            let v = unsafe { r.decode8::<MODE>(p) };
            acc = _mm256_add_epi64(acc, _mm256_and_si256(v, low));
            acc = _mm256_add_epi64(acc, _mm256_srli_epi64::<32>(v));
            // SAFETY: moves to the next group, readable if there is one.
            p = unsafe { p.add(step) };
        }
        let mut lanes = [0u64; 4];
        // SAFETY: `lanes` is 32 bytes.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), acc) };
        total += lanes.iter().map(|&l| l as u128).sum::<u128>();
        left -= now;
    }
    total
}
