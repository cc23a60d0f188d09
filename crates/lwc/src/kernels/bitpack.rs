//! Bit packing in the horizontal layout: value `i` occupies bits `i * w .. (i + 1) * w` of a
//! little-endian byte stream.
//!
//! Why horizontal: reading one value is one unaligned 8-byte load, a shift and a mask, which is what makes
//! `get` and `take` close to a plain array (seed 000's main finding). An interleaved, FastLanes-style
//! layout decodes with simpler SIMD but needs two loads on two cache lines per `get`; measured on this
//! machine it gathered 1,000 random `u32` at 2.3x a plain `Vec`, against 1.2x for this layout.
//!
//! Eight consecutive values take exactly `w` bytes, so decoding walks groups of 8 whose bit offsets are
//! compile-time constants once the width is (see [`with_const_width`]); `u32` at widths up to 25 has an
//! AVX2 path that places each value's bytes with one shuffle and aligns them with one variable shift.
//!
//! Every stream ends with [`PADDING`] zero bytes, so loads of up to 16 bytes at any value's first byte
//! stay in bounds without a branch.

use crate::types::Word;

/// Values per block in block-at-a-time scans.
pub const BLOCK: usize = 1024;

/// Zero bytes after the packed data.
pub const PADDING: usize = 32;

/// Bytes a stream of `n` values at width `w` occupies, padding included (zero when `w == 0`).
pub fn packed_len(n: usize, w: u32) -> usize {
    if w == 0 {
        0
    } else {
        (n * w as usize).div_ceil(8) + PADDING
    }
}

/// Appends `values` packed at width `w`; bits of a value above `w` are dropped.
pub fn pack<U: Word>(values: &[U], w: u32, out: &mut Vec<u8>) {
    assert!(w <= U::BITS, "width {w} exceeds {} bits", U::BITS);
    let start = out.len();
    out.resize(start + packed_len(values.len(), w), 0);
    if w == 0 {
        return;
    }
    let mask = U::low_mask(w).to_u64() as u128;
    let dst = &mut out[start..];
    for (i, &v) in values.iter().enumerate() {
        let bit = i * w as usize;
        let at = bit / 8;
        let word = u128::from_le_bytes(dst[at..at + 16].try_into().expect("16 bytes"));
        let word = word | (v.to_u64() as u128 & mask) << (bit % 8);
        dst[at..at + 16].copy_from_slice(&word.to_le_bytes());
    }
}

#[inline(always)]
fn load_u64(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

#[inline(always)]
fn load_u128(bytes: &[u8], at: usize) -> u128 {
    u128::from_le_bytes(bytes[at..at + 16].try_into().expect("16 bytes"))
}

/// Value `i` of a stream at width `w` (`1 <= w <= U::BITS`), with `mask == U::low_mask(w)`.
///
/// # Panics
/// If `packed` is shorter than [`packed_len`] for a stream holding value `i`.
#[inline(always)]
pub fn get<U: Word>(packed: &[u8], w: u32, mask: U, i: usize) -> U {
    let bit = i * w as usize;
    let (at, s) = (bit / 8, (bit % 8) as u32);
    if U::BITS < 64 || w <= 56 {
        U::from_u64(load_u64(packed, at) >> s) & mask
    } else {
        U::from_u64((load_u128(packed, at) >> s) as u64) & mask
    }
}

/// `out[k] = value(positions[k]) + base` for a stream of `n` values at width `w >= 1`, positions in any
/// order. Checks the largest position once, then loads without per-value bounds checks.
///
/// # Panics
/// If a position is `>= n` or `packed` is shorter than [`packed_len`]`(n, w)`.
pub fn gather<U: Word>(packed: &[u8], n: usize, w: u32, base: U, positions: &[u32], out: &mut [U]) {
    assert!((1..=U::BITS).contains(&w) && out.len() == positions.len());
    assert!(packed.len() >= packed_len(n, w), "packed stream too short");
    let max = positions.iter().copied().max().unwrap_or(0) as usize;
    assert!(
        positions.is_empty() || max < n,
        "position {max} out of range for {n} values"
    );
    let mask = U::low_mask(w).to_u64();
    let p = packed.as_ptr();
    for (o, &i) in out.iter_mut().zip(positions) {
        let bit = i as usize * w as usize;
        let (at, s) = (bit / 8, bit % 8);
        // SAFETY: `i < n`, so `at + 16 <= (n * w).div_ceil(8) + PADDING <= packed.len()`.
        let v = unsafe {
            if U::BITS < 64 || w <= 56 {
                (p.add(at).cast::<u64>().read_unaligned() >> s) & mask
            } else {
                ((p.add(at).cast::<u128>().read_unaligned() >> s) as u64) & mask
            }
        };
        *o = U::from_u64(v).wrapping_add(base);
    }
}

/// Decodes whole groups of 8 values; `src` starts at the group's first byte.
#[inline(always)]
fn unpack_groups_scalar<U: Word>(src: &[u8], w: u32, base: U, out: &mut [U]) {
    let mask = U::low_mask(w);
    let wb = w as usize;
    for (g, dst) in out.chunks_exact_mut(8).enumerate() {
        // One bounds check per group; the offsets below are constants once `w` is.
        let group = &src[g * wb..g * wb + wb + 16];
        for (k, o) in dst.iter_mut().enumerate() {
            let bit = k * wb;
            let v = if U::BITS < 64 || w <= 56 {
                U::from_u64(load_u64(group, bit / 8) >> (bit % 8))
            } else {
                U::from_u64((load_u128(group, bit / 8) >> (bit % 8)) as u64)
            };
            *o = (v & mask).wrapping_add(base);
        }
    }
}

/// Runs `$body` with `$w` bound to a compile-time constant equal to the runtime width, so the compiler
/// specializes offsets, shifts and masks per width (arms wider than the word are removed as unreachable).
macro_rules! with_const_width {
    ($U:ty, $width:expr, |$w:ident| $body:expr) => {
        with_const_width!(@arms $U, $width, $w, $body,
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
            33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64)
    };
    (@arms $U:ty, $width:expr, $w:ident, $body:expr, $($n:literal)*) => {
        match $width {
            $(#[allow(unused_comparisons)]
            $n if $n <= <$U as Word>::BITS => {
                const $w: u32 = $n;
                $body
            })*
            other => unreachable!("bit width {other} for a {}-bit word", <$U as Word>::BITS),
        }
    };
}

/// Calls a generic kernel through a copy compiled for AVX2 when the CPU has it (a default build targets
/// baseline x86-64, whose SSE2 halves the vector width).
macro_rules! dispatch_simd {
    ($generic:ident, $avx2:ident, <$U:ident>($($arg:ident: $ty:ty),*) $(-> $ret:ty)?) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        unsafe fn $avx2<$U: Word>($($arg: $ty),*) $(-> $ret)? {
            $generic::<$U>($($arg),*)
        }

        #[inline]
        pub(super) fn dispatch<$U: Word>($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2, checked just above; the function is otherwise safe.
                return unsafe { $avx2::<$U>($($arg),*) };
            }
            $generic::<$U>($($arg),*)
        }
    };
}
pub(crate) use dispatch_simd;

#[inline(always)]
fn unpack_groups_generic<U: Word>(src: &[u8], w: u32, base: U, out: &mut [U]) {
    with_const_width!(U, w, |W| unpack_groups_scalar(src, W, base, out))
}

mod unpack_dispatch {
    use super::*;
    dispatch_simd!(unpack_groups_generic, unpack_groups_avx2, <U>(src: &[u8], w: u32, base: U, out: &mut [U]));
    pub(super) use dispatch as unpack_groups;
}

/// Decodes values `start .. start + out.len()` of a stream of `n` values at width `w`, adding `base`
/// (wrapping) to each.
///
/// # Panics
/// If the range passes `n`, or `packed` is shorter than [`packed_len`]`(n, w)`.
pub fn unpack_range<U: Word>(
    packed: &[u8],
    n: usize,
    w: u32,
    base: U,
    start: usize,
    out: &mut [U],
) {
    let end = start + out.len();
    assert!(end <= n, "range {start}..{end} past {n} values");
    if w == 0 {
        out.fill(base);
        return;
    }
    assert!(packed.len() >= packed_len(n, w), "packed stream too short");
    let mask = U::low_mask(w);
    // Values before the first group boundary and after the last one, one at a time.
    let head = (start.next_multiple_of(8) - start).min(out.len());
    let body = (out.len() - head) / 8 * 8;
    let (head_out, rest) = out.split_at_mut(head);
    let (body_out, tail_out) = rest.split_at_mut(body);
    for (k, o) in head_out.iter_mut().enumerate() {
        *o = get(packed, w, mask, start + k).wrapping_add(base);
    }
    if !body_out.is_empty() {
        let first_group = (start + head) / 8;
        unpack_groups(&packed[first_group * w as usize..], w, base, body_out);
    }
    let tail_start = start + head + body;
    for (k, o) in tail_out.iter_mut().enumerate() {
        *o = get(packed, w, mask, tail_start + k).wrapping_add(base);
    }
}

/// Decodes whole groups (`out.len()` a multiple of 8) from `src`, which starts at the first group's byte.
fn unpack_groups<U: Word>(src: &[u8], w: u32, base: U, out: &mut [U]) {
    #[cfg(target_arch = "x86_64")]
    if U::BITS == 32 && w <= 25 && simd::has_avx2() {
        let out32: &mut [u32] = bytemuck::cast_slice_mut(out);
        let base32 = base.to_u64() as u32;
        simd::unpack_u32(src, w, base32, out32);
        return;
    }
    unpack_dispatch::unpack_groups(src, w, base, out)
}

#[cfg(target_arch = "x86_64")]
mod simd {
    //! AVX2 decoding of `u32` groups: one shuffle places the 4 bytes holding each of 8 values into its
    //! 32-bit lane, one variable shift aligns it, one AND masks it.
    use std::arch::x86_64::*;

    pub fn has_avx2() -> bool {
        std::arch::is_x86_feature_detected!("avx2")
    }

    /// Shuffle and shift vectors for width `w <= 25`: values 0-3 read from the group's first byte, values
    /// 4-7 from byte `4w / 8`, each through 16 bytes, which covers `ceil((7 + 25) / 8) = 4` bytes a value.
    fn tables(w: u32) -> ([u8; 32], [u32; 8], usize) {
        let high_base = (4 * w / 8) as usize;
        let mut shuffle = [0u8; 32];
        let mut shifts = [0u32; 8];
        for k in 0..8 {
            let bit = k as u32 * w;
            let byte = (bit / 8) as usize - if k < 4 { 0 } else { high_base };
            for t in 0..4 {
                shuffle[k * 4 + t] = (byte + t) as u8;
            }
            shifts[k] = bit % 8;
        }
        (shuffle, shifts, high_base)
    }

    pub fn unpack_u32(src: &[u8], w: u32, base: u32, out: &mut [u32]) {
        assert!((1..=25).contains(&w) && out.len() % 8 == 0);
        let groups = out.len() / 8;
        let (_, _, high_base) = tables(w);
        // Every group reads bytes `g * w .. g * w + high_base + 16`.
        assert!(
            groups == 0 || src.len() >= (groups - 1) * w as usize + high_base + 16,
            "source too short"
        );
        assert!(has_avx2());
        // SAFETY: AVX2 is present (asserted above) and the bounds were asserted above.
        unsafe { unpack_u32_avx2(src, w, base, out) }
    }

    #[target_feature(enable = "avx2")]
    unsafe fn unpack_u32_avx2(src: &[u8], w: u32, base: u32, out: &mut [u32]) {
        let (shuffle, shifts, high_base) = tables(w);
        let shuffle = _mm256_loadu_si256(shuffle.as_ptr().cast());
        let shifts = _mm256_loadu_si256(shifts.as_ptr().cast());
        let mask = _mm256_set1_epi32(((1u64 << w) - 1) as i32);
        let base = _mm256_set1_epi32(base as i32);
        let (mut p, step) = (src.as_ptr(), w as usize);
        for dst in out.chunks_exact_mut(8) {
            // SAFETY: `p + high_base + 16 <= src.end` for every group (asserted by the caller), and `dst`
            // holds 8 `u32`.
            let lo = _mm_loadu_si128(p.cast());
            let hi = _mm_loadu_si128(p.add(high_base).cast());
            let v = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi);
            let v = _mm256_and_si256(
                _mm256_srlv_epi32(_mm256_shuffle_epi8(v, shuffle), shifts),
                mask,
            );
            _mm256_storeu_si256(dst.as_mut_ptr().cast(), _mm256_add_epi32(v, base));
            p = p.add(step);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<U: Word>(values: &[U], w: u32) {
        let mut packed = vec![0xAAu8; 3]; // an odd start: the layout needs no alignment
        pack(values, w, &mut packed);
        let packed = &packed[3..];
        assert_eq!(packed.len(), packed_len(values.len(), w));
        let mut out = vec![U::ZERO; values.len()];
        unpack_range(packed, values.len(), w, U::ZERO, 0, &mut out);
        assert_eq!(out, values, "w={w}");
        if w > 0 {
            for (i, &v) in values.iter().enumerate() {
                assert_eq!(get(packed, w, U::low_mask(w), i), v, "get {i} w={w}");
            }
            let positions: Vec<u32> = (0..values.len() as u32).rev().collect();
            let mut gathered = vec![U::ZERO; values.len()];
            gather(packed, values.len(), w, U::ZERO, &positions, &mut gathered);
            assert!(gathered.iter().rev().eq(values.iter()), "gather w={w}");
        }
        for (start, len) in [
            (1, 1030),
            (3, 5),
            (1023, 2),
            (1000, 1500),
            (2047, 1),
            (7, 9),
        ] {
            if start + len <= values.len() {
                let mut part = vec![U::ZERO; len];
                unpack_range(packed, values.len(), w, U::ZERO, start, &mut part);
                assert_eq!(part, &values[start..start + len], "w={w} {start}+{len}");
            }
        }
    }

    fn check_type<U: Word>() {
        for w in 0..=U::BITS {
            for n in [0, 1, 5, 8, 1023, 1024, 1025, 2048 + 77] {
                let values: Vec<U> = (0..n)
                    .map(|i| {
                        U::from_u64((i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)) & U::low_mask(w)
                    })
                    .collect();
                round_trip(&values, w);
            }
            round_trip(&vec![U::low_mask(w); 1500], w);
        }
    }

    #[test]
    fn every_width_of_every_word_round_trips() {
        check_type::<u8>();
        check_type::<u16>();
        check_type::<u32>();
        check_type::<u64>();
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn gather_rejects_positions_past_the_end() {
        let mut packed = Vec::new();
        pack(&[1u32, 2, 3], 2, &mut packed);
        let mut out = [0u32; 1];
        gather(&packed, 3, 2, 0, &[3], &mut out);
    }

    #[test]
    fn base_is_added_wrapping() {
        let values = vec![0u32, 1, 2, 3, 0, 1, 2, 3, 3];
        let mut packed = Vec::new();
        pack(&values, 2, &mut packed);
        let mut out = vec![0u32; 9];
        unpack_range(&packed, 9, 2, u32::MAX, 0, &mut out);
        assert_eq!(out, vec![u32::MAX, 0, 1, 2, u32::MAX, 0, 1, 2, 2]);
    }
}
