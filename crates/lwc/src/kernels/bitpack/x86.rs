//! AVX2 decoding. A group of 8 values at width `w <= 32` becomes eight 32-bit lanes: one byte
//! shuffle places the 4 bytes starting at each value's first byte into its lane, one variable shift
//! aligns it, one AND masks it. Values can straddle 5 bytes only at widths 26..=31; there a second
//! shuffle brings the fifth byte, shifted left by `32 - s` (a count of 32 gives 0, which is what a
//! lane with `s = 0` needs). `u16` and `u8` pack the 32-bit lanes down; `u64` at widths up to 56 uses
//! 64-bit lanes, 8 bytes a value.
//!
//! The 256-bit source vector holds 16 bytes from the group's first byte (values 0-3) and 16 bytes
//! from the byte holding value 4 (values 4-7), so every group reads at most [`Plan32::reach_in`] bytes.
//!
//! `u32` decoding has a second path for CPUs with AVX-512 VBMI and VL ([`PERMUTE`], [`PERMUTE_WIDE`]):
//! one 32-byte load from the group's first byte and one `vpermb`, a byte permute across the whole
//! vector, replace the two 16-byte loads, the insert of the high half and the in-lane `vpshufb`.
//! Insert and shuffle both go to port 5 on Intel cores, and that port bounds decoding at widths
//! 15..=32 while the data is in L1; the permute is one port-5 uop for the same work. Measured on a
//! Xeon with VBMI, 1,024 values into L1 at widths 17 to 32 (30 aside): 12.6-13.3 values/ns on the
//! AVX2 path, 14.8-15.4 with `vpermb` (11.6-12.1 and 13.5-14.2 with a base). For 65,536 values,
//! which stream through L2, both paths run alike once the output is prefetched for writing.
use std::arch::x86_64::*;

use super::GatherSource;
use crate::types::Word;

#[inline]
pub fn has_avx2() -> bool {
    crate::kernels::cpu::avx2()
}

/// AVX-512 VBMI with VL: `vpermb` on 256-bit vectors.
#[inline]
pub fn has_vbmi() -> bool {
    crate::kernels::cpu::avx512_vbmi()
}

/// Whether `u32` decoding takes the [`PERMUTE`] modes: the CPU has AVX2 and VBMI (and, in tests, the
/// thread is not held to AVX2 by `cpu::avx2_only`).
#[inline]
fn use_vbmi() -> bool {
    has_avx2() && has_vbmi()
}

/// Whether `u32` decoding at widths up to [`ZMM_WIDTHS`] takes 512-bit vectors ([`unpack_u32_zmm`]): as
/// [`use_vbmi`], on a CPU with AVX-512 F and BW too.
#[inline]
pub(super) fn use_zmm() -> bool {
    use_vbmi() && crate::kernels::cpu::avx512_vbmi_zmm()
}

/// Per-width tables for decoding a group of 8 values of width `1 <= w <= 32` into 32-bit lanes.
#[derive(Clone, Copy)]
pub struct Plan32 {
    shuffle: [u8; 32],
    shuffle5: [u8; 32],
    shr: [u32; 8],
    shl: [u32; 8],
    /// Left shifts that put each value's top bit at bit 31 (see [`filter_u32`]).
    top: [u32; 8],
    /// `vpermb` indices for the [`PERMUTE`] modes: `shuffle` and `shuffle5` counted from the byte the
    /// run's first value starts in, over the whole 32-byte vector instead of each 16-byte half.
    permute: [u8; 32],
    permute5: [u8; 32],
    pub(super) mask: u32,
    /// Where the upper 128-bit half is loaded from: the byte holding lane 4's value, or 0 when one
    /// 16-byte load covers the group (widths up to 14 for runs at a group's start).
    high_base: usize,
    /// See [`Plan32::skip`].
    skip: usize,
    /// [`NARROW`], [`SINGLE`], [`WIDE`] or [`BROADCAST`].
    pub(super) mode: u8,
    /// The mode on CPUs with VBMI: [`PERMUTE`] or [`PERMUTE_WIDE`] where every value's bytes lie in
    /// the 32 from the run's first byte and the plan is neither [`SINGLE`] nor [`BROADCAST`], else `mode`.
    vbmi_mode: u8,
}

/// Two 16-byte loads, 4 bytes a value.
pub const NARROW: u8 = 0;
/// One 16-byte load broadcast to both halves (`w <= 14`), 4 bytes a value.
pub const SINGLE: u8 = 1;
/// Two 16-byte loads, and a fifth byte for values that need it (`26 <= w <= 31`).
pub const WIDE: u8 = 2;
/// One 32-byte load and one `vpermb` (AVX-512 VBMI + VL), 4 bytes a value.
pub const PERMUTE: u8 = 3;
/// As [`PERMUTE`], and a second `vpermb` for the fifth byte of values that need it.
pub const PERMUTE_WIDE: u8 = 4;
/// The run's 8 values all lie in the 4 bytes from its first byte (`w <= 3`, or 4 from a byte's start):
/// those 4 bytes broadcast to every lane, a load with no shuffle, and each lane shifts its own value
/// down. With a shuffle and a shift per 8 values, narrow widths ran at 1.13-1.30x BitPacker8x's time
/// on AMD's Zen 4, whose vertical layout needs shifts alone (our reading: Zen 4 runs shuffles and
/// shifts on the same two of its four vector pipes; the guest measured on had no counters to confirm it).
pub const BROADCAST: u8 = 5;

/// Whether `mode` decodes with `vpermb`, which needs AVX-512 VBMI and VL.
const fn is_permute(mode: u8) -> bool {
    mode == PERMUTE || mode == PERMUTE_WIDE
}

/// Runs `$body` with `$m` bound to the plan's mode as a constant: one of the AVX2 modes, or with
/// `vbmi` first, any mode (the body must then run code compiled with VBMI for [`is_permute`] modes).
macro_rules! by_mode {
    ($mode:expr, |$m:ident| $body:expr) => {
        by_mode!(@arms $mode, $m, $body, SINGLE WIDE BROADCAST)
    };
    (vbmi $mode:expr, |$m:ident| $body:expr) => {
        by_mode!(@arms $mode, $m, $body, SINGLE WIDE BROADCAST PERMUTE PERMUTE_WIDE)
    };
    (@arms $mode:expr, $m:ident, $body:expr, $($k:ident)*) => {
        match $mode {
            $($k => {
                const $m: u8 = $k;
                $body
            })*
            _ => {
                const $m: u8 = NARROW;
                $body
            }
        }
    };
}
pub(super) use by_mode;

/// Every plan, built at compile time: building one per call cost about 30 ns, a third of decoding
/// a block of 1,024 values. Indexed by width, then by the run's first value in its group.
static PLANS32: [[Option<Plan32>; 8]; 33] = {
    let mut plans = [[None; 8]; 33];
    let mut w = 1;
    while w <= 32 {
        let mut first = 0;
        while first < 8 {
            plans[w as usize][first as usize] = Plan32::build(w, first);
            first += 1;
        }
        w += 1;
    }
    plans
};

impl Plan32 {
    pub fn new(w: u32) -> &'static Plan32 {
        Plan32::starting_at(w, 0).expect("every width fits a group that starts at its first value")
    }

    /// Tables for runs of 8 values that start at value `first` (`0..8`) of their group instead of
    /// its first value: lane `k` decodes value `first + k`, counted from the byte holding value
    /// `first` ([`Plan32::skip`] bytes into the group). Runs step `w` bytes like groups, so one
    /// table serves them all. `None` where some value's bytes do not fit its 16-byte half (a few
    /// wide widths at some starts).
    #[inline]
    pub fn starting_at(w: u32, first: u32) -> Option<&'static Plan32> {
        assert!((1..=32).contains(&w) && first < 8, "width {w} out of 1..=32 or start {first} out of 0..8");
        PLANS32[w as usize][first as usize].as_ref()
    }

    const fn build(w: u32, first: u32) -> Option<Plan32> {
        let skip = (first * w / 8) as usize;
        // Bit of lane `k`'s value is `s0 + k * w`, from the first byte the run reads.
        let s0 = first * w % 8;
        let mut straddles = false;
        let mut k = 0;
        while k < 8 {
            straddles |= (s0 + k * w) % 8 + w > 32;
            k += 1;
        }
        let single = !straddles && (s0 + 7 * w) / 8 + 3 < 16;
        let high_base = if single { 0 } else { ((s0 + 4 * w) / 8) as usize };
        let mut plan = Plan32 {
            shuffle: [0; 32],
            shuffle5: [0x80; 32],
            shr: [0; 8],
            shl: [32; 8],
            top: [0; 8],
            permute: [0; 32],
            permute5: [0; 32],
            mask: (((1u64 << w) - 1) as u32),
            high_base,
            skip,
            mode: if single { SINGLE } else { NARROW },
            vbmi_mode: 0,
        };
        // Whether every value's bytes lie in the 32 from the run's first byte.
        let mut permute_fits = true;
        let mut k = 0;
        while k < 8 {
            let bit = s0 + k as u32 * w;
            // Byte of lane `k`'s value within its 16-byte half (lane-relative, as `vpshufb` indexes).
            let byte = (bit / 8) as usize - if k < 4 { 0 } else { high_base };
            let s = bit % 8;
            let straddle = s + w > 32;
            if byte + 3 + straddle as usize >= 16 {
                return None;
            }
            // The same bytes for `vpermb`, counted from the run's first byte over all 32.
            let at = (bit / 8) as usize;
            permute_fits &= at + 3 + (straddle as usize) < 32;
            let mut t = 0;
            while t < 4 {
                plan.shuffle[k * 4 + t] = (byte + t) as u8;
                plan.permute[k * 4 + t] = ((at + t) % 32) as u8;
                t += 1;
            }
            plan.shr[k] = s;
            plan.top[k] = 32u32.saturating_sub(s + w);
            if straddle {
                plan.shuffle5[k * 4] = (byte + 4) as u8;
                // `vpermb` cannot zero a byte, but the shift left by `32 - s >= 25` drops every
                // byte of the lane above its lowest, so all four may hold the fifth byte.
                let mut t = 0;
                while t < 4 {
                    plan.permute5[k * 4 + t] = ((at + 4) % 32) as u8;
                    t += 1;
                }
                plan.shl[k] = 32 - s;
                plan.mode = WIDE;
            }
            k += 1;
        }
        if s0 + 8 * w <= 32 {
            plan.mode = BROADCAST;
            let mut k = 0;
            while k < 8 {
                plan.shr[k] = s0 + k as u32 * w;
                plan.top[k] = 32 - (plan.shr[k] + w);
                k += 1;
            }
        }
        // `SINGLE` loads one 16-byte half without an insert: one port-5 uop, as the permute.
        plan.vbmi_mode = match plan.mode {
            BROADCAST => BROADCAST,
            _ if !permute_fits => plan.mode,
            SINGLE => SINGLE,
            WIDE => PERMUTE_WIDE,
            _ => PERMUTE,
        };
        Some(plan)
    }

    /// Bytes from a group's first byte to the byte holding the run's first value, where its loads
    /// start (0 for runs that start at the group's first value).
    pub fn skip(&self) -> usize {
        self.skip
    }

    /// The plan's modes without and with VBMI: [`NARROW`], [`SINGLE`] or [`WIDE`], then [`PERMUTE`]
    /// or [`PERMUTE_WIDE`] where every value's bytes lie in the 32 from the run's first byte and the
    /// plan is not [`SINGLE`], else the first again.
    #[cfg(test)]
    pub fn modes(&self) -> (u8, u8) {
        (self.mode, self.vbmi_mode)
    }

    /// Bytes a group (or run) reads in `mode` (one of the plan's two), counted from the first byte
    /// it loads.
    #[inline]
    pub fn reach_in(&self, mode: u8) -> usize {
        if mode == BROADCAST {
            4
        } else if is_permute(mode) {
            32
        } else {
            self.high_base + 16
        }
    }

    /// Asserts that `groups` groups, `w` bytes apart from `src`'s start, stay inside `src` in the
    /// plan's AVX2 mode.
    pub(super) fn check(&self, src: &[u8], w: u32, groups: usize) {
        self.check_in(self.mode, src, w, groups)
    }

    /// As [`check`](Self::check), in `mode`.
    #[inline]
    fn check_in(&self, mode: u8, src: &[u8], w: u32, groups: usize) {
        let reach = self.reach_in(mode);
        assert!(groups == 0 || src.len() >= (groups - 1) * w as usize + reach, "source too short");
    }
}

/// [`Plan32`] as registers.
#[derive(Clone, Copy)]
pub(super) struct Regs32 {
    shuffle: __m256i,
    shuffle5: __m256i,
    shr: __m256i,
    shl: __m256i,
    top: __m256i,
    pub(super) mask: __m256i,
    high_base: usize,
}

impl Regs32 {
    /// The plan's registers for `MODE`: the `vpermb` indices for [`is_permute`] modes, the
    /// `vpshufb` ones otherwise.
    ///
    /// # Safety
    /// The CPU supports AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn new<const MODE: u8>(plan: &Plan32) -> Regs32 {
        let (shuffle, shuffle5) =
            if is_permute(MODE) { (&plan.permute, &plan.permute5) } else { (&plan.shuffle, &plan.shuffle5) };
        // SAFETY: each array is exactly 32 bytes, read unaligned.
        unsafe {
            Regs32 {
                shuffle: _mm256_loadu_si256(shuffle.as_ptr().cast()),
                shuffle5: _mm256_loadu_si256(shuffle5.as_ptr().cast()),
                shr: _mm256_loadu_si256(plan.shr.as_ptr().cast()),
                shl: _mm256_loadu_si256(plan.shl.as_ptr().cast()),
                top: _mm256_loadu_si256(plan.top.as_ptr().cast()),
                mask: _mm256_set1_epi32(plan.mask as i32),
                high_base: plan.high_base,
            }
        }
    }

    /// The 8 values of the group starting at `p`, one per 32-bit lane.
    ///
    /// Not a `target_feature` function: it is inlined into its callers and compiled with their
    /// features, which must include VBMI and VL for [`is_permute`] modes so that `vpermb` inlines.
    ///
    /// # Safety
    /// `p .. p + reach_in(MODE)` is readable; the CPU supports AVX2, and AVX-512 VBMI and VL if
    /// [`is_permute`]`(MODE)`.
    #[inline(always)]
    pub(super) unsafe fn decode8<const MODE: u8>(&self, p: *const u8) -> __m256i {
        // SAFETY: the group's bytes and the CPU features, as the caller guarantees.
        unsafe {
            let v = self.load::<MODE>(p);
            let mut x = _mm256_srlv_epi32(place::<MODE>(v, self.shuffle), self.shr);
            if MODE == WIDE || MODE == PERMUTE_WIDE {
                let fifth = _mm256_sllv_epi32(place::<MODE>(v, self.shuffle5), self.shl);
                x = _mm256_or_si256(x, fifth);
            }
            _mm256_and_si256(x, self.mask)
        }
    }

    /// The group's bytes: 16 from `p` in the low half, 16 from `p + high_base` in the high half;
    /// 32 from `p` in [`is_permute`] modes; the 4 from `p` in every lane in [`BROADCAST`] mode.
    ///
    /// # Safety
    /// `p .. p + reach_in(MODE)` is readable.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn load<const MODE: u8>(&self, p: *const u8) -> __m256i {
        // SAFETY: both 16-byte loads lie in `p .. p + high_base + 16` (caller's contract); in
        // `SINGLE` mode `high_base == 0` and one load fills both halves; in permute modes
        // `reach_in` is 32, the one load; in `BROADCAST` mode it is 4.
        unsafe {
            if MODE == BROADCAST {
                _mm256_set1_epi32(p.cast::<i32>().read_unaligned())
            } else if is_permute(MODE) {
                _mm256_loadu_si256(p.cast())
            } else if MODE == SINGLE {
                _mm256_broadcastsi128_si256(_mm_loadu_si128(p.cast()))
            } else {
                _mm256_loadu2_m128i(p.add(self.high_base).cast(), p.cast())
            }
        }
    }

    /// The 8 values of the group at `p` shifted left so each one's top bit is bit 31, with
    /// lower bits of neighbours below it (not for `WIDE`): `v << (32 - w) + junk`.
    ///
    /// # Safety
    /// As [`decode8`](Self::decode8).
    #[inline(always)]
    pub(super) unsafe fn decode8_top<const MODE: u8>(&self, p: *const u8) -> __m256i {
        // SAFETY: the group's bytes and the CPU features, as the caller guarantees.
        unsafe { _mm256_sllv_epi32(place::<MODE>(self.load::<MODE>(p), self.shuffle), self.top) }
    }
}

/// Bytes of `v` at `idx`: `vpermb` across the vector in [`is_permute`] modes, `v` itself in
/// [`BROADCAST`] mode, else `vpshufb` within each 16-byte half.
///
/// # Safety
/// The CPU supports AVX2, and AVX-512 VBMI and VL if [`is_permute`]`(MODE)`.
#[inline(always)]
unsafe fn place<const MODE: u8>(v: __m256i, idx: __m256i) -> __m256i {
    // SAFETY: the CPU features, as the caller guarantees.
    unsafe {
        if MODE == BROADCAST {
            v
        } else if is_permute(MODE) {
            _mm256_permutexvar_epi8(idx, v)
        } else {
            _mm256_shuffle_epi8(v, idx)
        }
    }
}

/// Decodes `out.len() / 8` whole groups of width `w` from `src` into `out`, adding `base`, when there
/// is an AVX2 kernel for this word and width; returns `false` (touching nothing) otherwise.
pub fn unpack<U: Word>(src: &[u8], w: u32, base: U, out: &mut [U]) -> bool {
    assert!(out.len().is_multiple_of(8) && w >= 1);
    if !has_avx2() {
        return false;
    }
    let groups = out.len() / 8;
    match U::BITS {
        32 => unpack_runs_u32(src, w, Plan32::new(w), base.to_u64() as u32, use_zmm(), bytemuck::cast_slice_mut(out)),
        16 => {
            let plan = Plan32::new(w);
            plan.check(src, w, groups);
            let out: &mut [u16] = bytemuck::cast_slice_mut(out);
            // SAFETY: as above; `w <= 16` so no value spans 5 bytes.
            unsafe {
                by_mode!(plan.mode, |M| unpack_u16::<M>(src.as_ptr(), w as usize, plan, base.to_u64() as u16, out))
            }
        }
        8 => {
            let plan = Plan32::new(w);
            plan.check(src, w, groups);
            let out: &mut [u8] = bytemuck::cast_slice_mut(out);
            // SAFETY: as above; `w <= 8` so no value spans 5 bytes.
            unsafe { by_mode!(plan.mode, |M| unpack_u8::<M>(src.as_ptr(), w as usize, plan, base.to_u64() as u8, out)) }
        }
        64 if w <= 56 => {
            let out: &mut [u64] = bytemuck::cast_slice_mut(out);
            let mut done = 0;
            if use_zmm() {
                // SAFETY: the CPU has AVX-512 F, BW and VBMI (`use_zmm`), and `w <= 56`.
                done = unsafe { unpack_u64_zmm(src, w as usize, base.to_u64(), out) };
            }
            // The groups the 512-bit loop left (the last ones, whose 64-byte loads would pass the stream).
            let (src, out, groups) = (&src[done / 8 * w as usize..], &mut out[done..], groups - done / 8);
            let plan = Plan64::new(w);
            assert!(groups == 0 || src.len() >= (groups - 1) * w as usize + plan.reach(), "source too short");
            // SAFETY: AVX2 is present; the assert above bounds every group's reads.
            unsafe { unpack_u64(src.as_ptr(), w as usize, &plan, base.to_u64(), out) }
        }
        _ => return false,
    }
    true
}

/// Decodes the runs of 8 values of a `u32` stream in values `start .. start + out.len()` whose
/// outputs are 32-byte aligned (64 for the 512-bit loop), from `packed` (the whole stream, `packed_len` checked by the caller);
/// returns how many values come before them and how many they are, for the caller to decode the
/// rest one at a time. `None` (touching nothing) without AVX2, when `out` is too short for a run,
/// or when no plan fits the first run's start in its group.
///
/// Why aligned: a 32-byte store that crosses a cache line costs two, and an output from the
/// allocator is often 16 bytes off, which split every other store: decoding 65,536 values at width
/// 3 ran at 9.9 values/ns into such a buffer and 13.9 into an aligned one.
#[inline]
pub fn unpack_aligned_u32(packed: &[u8], w: u32, base: u32, start: usize, out: &mut [u32]) -> Option<(usize, usize)> {
    if !has_avx2() {
        return None;
    }
    // `u32` slices are 4-byte aligned, so this is a whole number of values below 16. The 512-bit loop
    // stores 64 bytes at a time, which a 32-byte aligned output would split every other time.
    let zmm = use_zmm();
    let align = if zmm { 64 } else { 32 };
    let head = ((out.as_ptr() as usize).wrapping_neg() & (align - 1)) / 4;
    if out.len() < head + 8 {
        return None;
    }
    let first = start + head;
    let plan = Plan32::starting_at(w, (first % 8) as u32)?;
    let body = (out.len() - head) / 8 * 8;
    let src = &packed[first / 8 * w as usize + plan.skip()..];
    unpack_runs_u32(src, w, plan, base, zmm, &mut out[head..head + body]);
    Some((head, body))
}

/// Decodes for_n's values `start .. start + out.len()` (field plus `references[i >> shift]`) from the
/// first 64-byte aligned output on, in pairs of runs on 512-bit vectors with the references added in
/// register ([`unpack_u32_zmm_blocks`]); returns how many values come before them and how many they are,
/// for the caller to decode the rest another way. `None` (touching nothing) where the CPU lacks the
/// 512-bit path, the width passes [`ZMM_WIDTHS`] (but for whole words, 32), blocks are shorter than 16
/// values or `out` is too short.
///
/// # Panics
/// If `references` has no reference for a value of the range.
pub fn unpack_blocks_u32(
    packed: &[u8],
    w: u32,
    references: &[u32],
    shift: u32,
    start: usize,
    out: &mut [u32],
) -> Option<(usize, usize)> {
    if !zmm_width(w) || shift < 4 || !use_zmm() || !crate::kernels::cpu::avx2_bmi2() {
        return None;
    }
    let head = (out.as_ptr() as usize).wrapping_neg() % 64 / 4;
    if out.len() < head + 16 {
        return None;
    }
    assert!((start + out.len() - 1) >> shift < references.len(), "no reference for value {}", start + out.len() - 1);
    let bit = (start + head) * w as usize;
    // SAFETY: the CPU has AVX-512 F, BW and VBMI (`use_zmm`) and BMI2, `zmm_width(w)` and `shift >= 4`
    // (checked above), the references cover the range (asserted); the kernel bounds its loads by the slice.
    let done = unsafe {
        unpack_u32_zmm_blocks(
            &packed[bit / 8..],
            w as usize,
            (bit % 8) as u32,
            references,
            shift,
            start + head,
            &mut out[head..],
        )
    };
    Some((head, done))
}

/// Decodes `out.len() / 8` runs of 8 values, `w` bytes apart from `src` (which starts at the first
/// byte the first run loads), as `plan` places them, adding `base`. `zmm` is the caller's [`use_zmm`],
/// asked once a decode: each question is a call, which a short decode feels (with this function and its
/// caller inlined too, 1,024 values took 1.58-1.70x BitPacker8x's time against 1.78-1.88x, AMD EPYC
/// Zen 3). It is asked again before any 512-bit instruction, so a wrong `true` costs a call, never an
/// illegal instruction.
#[inline]
fn unpack_runs_u32(src: &[u8], w: u32, plan: &Plan32, base: u32, zmm: bool, out: &mut [u32]) {
    assert!(has_avx2() && out.len().is_multiple_of(8));
    let mut done = 0;
    // Broadcast runs stay on 256-bit vectors: on Zen 4 (whose 512-bit ops take two 256-bit passes)
    // they decoded 65,536 values at widths 1 to 4 in 1.04-1.06x BitPacker8x's time, against 1.14-1.23x
    // through the 512-bit loop.
    if w <= ZMM_WIDTHS && zmm && plan.mode != BROADCAST && use_zmm() {
        // SAFETY: the CPU has AVX-512 F, BW and VBMI (`use_zmm`), and `w <= ZMM_WIDTHS`.
        done = unsafe {
            if base == 0 {
                unpack_u32_zmm::<false>(src, w as usize, plan.shr[0], base, out)
            } else {
                unpack_u32_zmm::<true>(src, w as usize, plan.shr[0], base, out)
            }
        };
    }
    // The runs the 512-bit loop left (the last ones, whose 64-byte loads would pass the stream).
    let (src, out) = (&src[done / 8 * w as usize..], &mut out[done..]);
    let mode = if use_vbmi() { plan.vbmi_mode } else { plan.mode };
    plan.check_in(mode, src, w, out.len() / 8);
    let prefetch = crate::kernels::cpu::software_prefetch();
    // SAFETY: AVX2 is present, and VBMI and VL where `mode` is a permute mode (`use_vbmi`);
    // `check_in` bounds every run's reads in that mode.
    unsafe {
        by_mode!(vbmi mode, |M| if base == 0 {
            unpack_u32::<M, false>(src.as_ptr(), w as usize, plan, base, prefetch, out)
        } else {
            unpack_u32::<M, true>(src.as_ptr(), w as usize, plan, base, prefetch, out)
        })
    }
}

/// [`unpack_u32_body`] compiled with the features `MODE` needs.
///
/// # Safety
/// As [`unpack_u32_body`].
#[inline(always)]
unsafe fn unpack_u32<const MODE: u8, const ADD: bool>(
    src: *const u8,
    step: usize,
    plan: &Plan32,
    base: u32,
    prefetch: bool,
    out: &mut [u32],
) {
    // SAFETY: forwarded contract, which includes the features each copy is compiled with.
    unsafe {
        if is_permute(MODE) {
            unpack_u32_vbmi::<MODE, ADD>(src, step, plan, base, prefetch, out)
        } else {
            unpack_u32_avx2::<MODE, ADD>(src, step, plan, base, prefetch, out)
        }
    }
}

/// Compiles [`unpack_u32_body`] once more as `$name`, with `$features` enabled.
macro_rules! unpack_u32_with {
    ($name:ident, $features:literal) => {
        /// # Safety
        /// As [`unpack_u32_body`], on a CPU with the features this copy is compiled with.
        #[target_feature(enable = $features)]
        unsafe fn $name<const MODE: u8, const ADD: bool>(
            src: *const u8,
            step: usize,
            plan: &Plan32,
            base: u32,
            prefetch: bool,
            out: &mut [u32],
        ) {
            // SAFETY: forwarded contract.
            unsafe { unpack_u32_body::<MODE, ADD>(src, step, plan, base, prefetch, out) }
        }
    };
}

unpack_u32_with!(unpack_u32_avx2, "avx2");
unpack_u32_with!(unpack_u32_vbmi, "avx2,avx512vbmi,avx512vl");

/// How far ahead of the group being decoded [`unpack_u32`] asks for the packed bytes: the hardware
/// prefetcher alone left wide streams waiting on L2 on an Intel Xeon (4% slower at width 20 on 65,536 values;
/// no change at widths 3 and 11).
const PREFETCH_AHEAD: usize = 512;

/// How many values ahead of the quad being stored [`unpack_u32`] asks for the output's lines, for
/// writing: on an Intel Xeon, 65,536 values (256 KiB of output, beyond L1) decoded about 2% faster with a base at
/// width 20, and faster at widths 3 and 11 too; 128 to 512 values measured alike.
const OUT_PREFETCH_AHEAD: usize = 256;

/// The decoding loop, inlined into [`unpack_u32_avx2`] and [`unpack_u32_vbmi`] and compiled with
/// their features.
///
/// # Safety
/// AVX2, and AVX-512 VBMI and VL for [`is_permute`] modes; `src + g * step .. + reach_in(MODE)`
/// readable for each of the `out.len() / 8` groups `g`.
#[inline(always)]
unsafe fn unpack_u32_body<const MODE: u8, const ADD: bool>(
    src: *const u8,
    step: usize,
    plan: &Plan32,
    base: u32,
    prefetch: bool,
    out: &mut [u32],
) {
    // SAFETY: AVX2 is present (this function's contract).
    let (r, base) = unsafe { (Regs32::new::<MODE>(plan), _mm256_set1_epi32(base as i32)) };
    // Frame of reference, fused; skipped (at compile time) when the base is 0.
    // SAFETY: AVX2 is present (this function's contract).
    let add = |v: __m256i| if ADD { unsafe { _mm256_add_epi32(v, base) } } else { v };
    let mut p = src;
    let mut quads = out.chunks_exact_mut(32);
    for dst in &mut quads {
        let d = dst.as_mut_ptr();
        // SAFETY: the four groups are readable (caller's contract) and `dst` holds 32 `u32`.
        unsafe {
            // Hints, which never fault: `wrapping_add` keeps a pointer past the end well defined.
            // Where they pay (`cpu::software_prefetch`); the branch is the same every time.
            if prefetch {
                _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(PREFETCH_AHEAD).cast());
                // The two output lines of the quad `OUT_PREFETCH_AHEAD` values on, asked for in
                // exclusive state (`prefetchw`) so their stores need no read-for-ownership then.
                _mm_prefetch::<_MM_HINT_ET0>(d.wrapping_add(OUT_PREFETCH_AHEAD).cast());
                _mm_prefetch::<_MM_HINT_ET0>(d.wrapping_add(OUT_PREFETCH_AHEAD + 16).cast());
            }
            let v0 = r.decode8::<MODE>(p);
            let v1 = r.decode8::<MODE>(p.add(step));
            let v2 = r.decode8::<MODE>(p.add(2 * step));
            let v3 = r.decode8::<MODE>(p.add(3 * step));
            _mm256_storeu_si256(d.cast(), add(v0));
            _mm256_storeu_si256(d.add(8).cast(), add(v1));
            _mm256_storeu_si256(d.add(16).cast(), add(v2));
            _mm256_storeu_si256(d.add(24).cast(), add(v3));
            p = p.add(4 * step);
        }
    }
    for dst in quads.into_remainder().chunks_exact_mut(8) {
        // SAFETY: as above, one group into 8 `u32`.
        unsafe {
            let v = r.decode8::<MODE>(p);
            _mm256_storeu_si256(dst.as_mut_ptr().cast(), add(v));
            p = p.add(step);
        }
    }
}

/// Widths [`unpack_u32_zmm`] decodes: every value's bits lie in the 4 bytes from its first byte.
pub(super) const ZMM_WIDTHS: u32 = 25;

/// Widths the 512-bit pairs loop decodes: those up to [`ZMM_WIDTHS`], and whole words, each of which starts
/// on a byte (a plain copy for `bitpack`, which takes that path instead; for_n adds its references).
fn zmm_width(w: u32) -> bool {
    (1..=ZMM_WIDTHS).contains(&w) || w == 32
}

/// Decodes pairs of runs (16 values, `2 * w` bytes, the first value at bit `s0 < 8` of `src`'s first byte)
/// 512 bits at a time: one 64-byte load, one `vpermb` over all of it, one shift and one AND for 16 values,
/// half the instructions of two runs on 256-bit vectors, whose ALUs bound decoding in L2 on a CPU with
/// full-width AVX-512 (Zen 5). Decodes the pairs whose 64-byte loads stay inside `src` and returns how
/// many values that was (a multiple of 16), adding `base` where `ADD`.
///
/// # Safety
/// The CPU supports AVX-512 F, BW and VBMI; `w <= ZMM_WIDTHS`.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(super) unsafe fn unpack_u32_zmm<const ADD: bool>(
    src: &[u8],
    w: usize,
    s0: u32,
    base: u32,
    out: &mut [u32],
) -> usize {
    let base = _mm512_set1_epi32(base as i32);
    // SAFETY: forwarded contract.
    unsafe { unpack_u32_zmm_pairs(src, w, s0, out, |_, v| if ADD { _mm512_add_epi32(v, base) } else { v }) }
}

/// [`unpack_u32_zmm`] for for_n's values: value `k` plus `references[(first + k) >> shift]`, in blocks of
/// at least 16 values (`shift >= 4`). The references of 16 blocks at a time sit in one register, and each
/// pair's lanes pick theirs from it with one `vpermd` (lane index shifted down to its block), so a pair
/// spanning two blocks costs what one inside a block does. The reference is added while the pair is in a
/// register instead of in a second pass over the output, which cost as much as the decode. Two
/// broadcast references blended at the lane where the second block begins took 1.6-2.0x a plain copy
/// of 65,535 values (AMD EPYC Zen 5), twice `bitpack`'s time.
///
/// # Safety
/// As [`unpack_u32_zmm`] (`w` may also be 32 with `s0 == 0`), and the CPU supports BMI2 (a shift by any
/// register in one instruction); `shift >= 4`, with a reference for every value of `out`:
/// `(first + out.len() - 1) >> shift < references.len()`.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,bmi2")]
pub(super) unsafe fn unpack_u32_zmm_blocks(
    src: &[u8],
    w: usize,
    s0: u32,
    references: &[u32],
    shift: u32,
    first: usize,
    out: &mut [u32],
) -> usize {
    debug_assert!(shift >= 4 && (out.is_empty() || (first + out.len() - 1) >> shift < references.len()));
    let lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let to_block = _mm_cvtsi32_si128(shift as i32);
    // The window: the references of blocks `held ..` (16 of them, fewer at the end), which cover values
    // below `covered`; `rel` holds the pair's lane indices counted from the window's first value.
    let (mut window, mut rel, mut covered) = (_mm512_setzero_si512(), _mm512_setzero_si512(), 0usize);
    let add = |pair: usize, v| {
        let at = first + pair * 16;
        if at + 15 >= covered {
            let held = at >> shift;
            let loaded = (references.len() - held).min(16);
            // SAFETY: `held` is the block of value `at`, below `first + out.len()`, so it has a reference
            // (contract); the masked load reads only the `loaded` references from there.
            window = unsafe {
                _mm512_maskz_loadu_epi32(((1u32 << loaded) - 1) as u16, references.as_ptr().add(held).cast())
            };
            rel = _mm512_add_epi32(_mm512_set1_epi32((at - (held << shift)) as i32), lanes);
            covered = (held + 16).saturating_mul(1 << shift);
        }
        let reference = _mm512_permutexvar_epi32(_mm512_srl_epi32(rel, to_block), window);
        rel = _mm512_add_epi32(rel, _mm512_set1_epi32(16));
        _mm512_add_epi32(v, reference)
    };
    // SAFETY: forwarded contract.
    unsafe { unpack_u32_zmm_pairs(src, w, s0, out, add) }
}

/// The pairs loop of [`unpack_u32_zmm`], `add(pair, values)` applied to each pair's 16 values.
///
/// # Safety
/// As [`unpack_u32_zmm`], where `w` may also be 32 with `s0 == 0`.
#[inline(always)]
unsafe fn unpack_u32_zmm_pairs(
    src: &[u8],
    w: usize,
    s0: u32,
    out: &mut [u32],
    mut add: impl FnMut(usize, __m512i) -> __m512i,
) -> usize {
    debug_assert!(zmm_width(w as u32) && s0 < 8 && (w < 32 || s0 == 0));
    let step = 2 * w;
    let pairs = (out.len() / 16).min(src.len().checked_sub(64).map_or(0, |room| room / step + 1));
    // SAFETY: AVX-512 F, BW and VBMI are present (contract); pair `p` loads `src[p * step ..][..64]`,
    // inside `src` for `p < pairs`, and stores `out[p * 16 ..][..16]`, inside `out`.
    unsafe {
        // Lane `k` holds value `k`, at bit `s0 + k * w`: its 4 bytes from the one holding that bit (at
        // most byte (7 + 15 * 25) / 8 + 3 = 50 of the 64, or 15 * 4 + 3 = 63 for whole words, whose `s0`
        // is 0), shifted right by the bit's place in it.
        // Worked out in registers: a loop over the lanes cost more than decoding a chunk of 2,048 values.
        let lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        let bits =
            _mm512_add_epi32(_mm512_set1_epi32(s0 as i32), _mm512_mullo_epi32(lanes, _mm512_set1_epi32(w as i32)));
        let shr = _mm512_and_si512(bits, _mm512_set1_epi32(7));
        let first = _mm512_mullo_epi32(_mm512_srli_epi32::<3>(bits), _mm512_set1_epi32(0x0101_0101));
        let permute = _mm512_add_epi32(first, _mm512_set1_epi32(0x0302_0100));
        let mask = _mm512_set1_epi32(((1u64 << w) - 1) as i32);
        for pair in 0..pairs {
            let bytes = _mm512_loadu_si512(src.as_ptr().add(pair * step).cast());
            let v = _mm512_and_si512(_mm512_srlv_epi32(_mm512_permutexvar_epi8(permute, bytes), shr), mask);
            _mm512_storeu_si512(out.as_mut_ptr().add(pair * 16).cast(), add(pair, v));
        }
    }
    pairs * 16
}

/// # Safety
/// As [`unpack_u32`], and `w <= 16`.
#[target_feature(enable = "avx2")]
unsafe fn unpack_u16<const MODE: u8>(src: *const u8, step: usize, plan: &Plan32, base: u16, out: &mut [u16]) {
    // SAFETY: AVX2 is present (this function's contract).
    let r = unsafe { Regs32::new::<MODE>(plan) };
    let base = _mm256_set1_epi16(base as i16);
    let mut p = src;
    let mut pairs = out.chunks_exact_mut(16);
    for dst in &mut pairs {
        // SAFETY: two readable groups; `dst` holds 16 `u16`. Values fit 16 bits, so the saturating
        // pack is exact; it interleaves 64-bit quarters, which the permute puts back in order.
        unsafe {
            let a = r.decode8::<MODE>(p);
            let b = r.decode8::<MODE>(p.add(step));
            let v = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi32(a, b));
            _mm256_storeu_si256(dst.as_mut_ptr().cast(), _mm256_add_epi16(v, base));
            p = p.add(2 * step);
        }
    }
    for dst in pairs.into_remainder().chunks_exact_mut(8) {
        // SAFETY: one readable group into 8 `u16` (16 bytes).
        unsafe {
            let a = r.decode8::<MODE>(p);
            let v = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi32(a, a));
            let v = _mm256_add_epi16(v, base);
            _mm_storeu_si128(dst.as_mut_ptr().cast(), _mm256_castsi256_si128(v));
        }
    }
}

/// # Safety
/// As [`unpack_u32`], and `w <= 8`.
#[target_feature(enable = "avx2")]
unsafe fn unpack_u8<const MODE: u8>(src: *const u8, step: usize, plan: &Plan32, base: u8, out: &mut [u8]) {
    debug_assert!(plan.mode == MODE && (MODE == SINGLE || MODE == BROADCAST));
    // SAFETY: AVX2 is present (this function's contract).
    let r = unsafe { Regs32::new::<MODE>(plan) };
    let base_vec = _mm256_set1_epi8(base as i8);
    let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    let mut p = src;
    let mut quads = out.chunks_exact_mut(32);
    for dst in &mut quads {
        // SAFETY: four readable groups; `dst` holds 32 bytes. Values fit 8 bits, so both saturating
        // packs are exact; they leave 32-bit quarters in the order the permute undoes.
        unsafe {
            let a = r.decode8::<MODE>(p);
            let b = r.decode8::<MODE>(p.add(step));
            let c = r.decode8::<MODE>(p.add(2 * step));
            let d = r.decode8::<MODE>(p.add(3 * step));
            let v = _mm256_packus_epi16(_mm256_packus_epi32(a, b), _mm256_packus_epi32(c, d));
            let v = _mm256_permutevar8x32_epi32(v, order);
            _mm256_storeu_si256(dst.as_mut_ptr().cast(), _mm256_add_epi8(v, base_vec));
            p = p.add(4 * step);
        }
    }
    for dst in quads.into_remainder().chunks_exact_mut(8) {
        // SAFETY: one readable group into 8 bytes.
        let v = unsafe { r.decode8::<MODE>(p) };
        let mut lanes = [0u32; 8];
        // SAFETY: `lanes` is 32 bytes.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), v) };
        for (o, l) in dst.iter_mut().zip(lanes) {
            *o = (l as u8).wrapping_add(base);
        }
        // SAFETY: the next group is readable if there is one; only the pointer moves.
        p = unsafe { p.add(step) };
    }
}

/// Tables for `u64` groups at width `w <= 56`: two vectors of 4 values; each 128-bit half holds
/// 2 values loaded from the first one's byte, 8 bytes a value.
pub struct Plan64 {
    shuffle: [[u8; 32]; 2],
    shr: [[u64; 4]; 2],
    pub(super) mask: u64,
    /// Byte offsets of the four 16-byte loads (values 0, 2, 4, 6) from the group's first byte.
    at: [usize; 4],
}

impl Plan64 {
    pub fn new(w: u32) -> Plan64 {
        assert!((1..=56).contains(&w), "width {w} out of 1..=56");
        let at = [0, 2, 4, 6].map(|k| (k * w / 8) as usize);
        let mut plan = Plan64 { shuffle: [[0; 32]; 2], shr: [[0; 4]; 2], mask: (1u64 << w) - 1, at };
        for k in 0..8usize {
            let bit = k as u32 * w;
            let byte = (bit / 8) as usize - at[k / 2];
            assert!(byte + 7 < 16 && bit % 8 + w <= 64);
            let (vec, lane) = (k / 4, k % 4);
            for t in 0..8 {
                plan.shuffle[vec][lane * 8 + t] = (byte + t) as u8;
            }
            plan.shr[vec][lane] = (bit % 8) as u64;
        }
        plan
    }

    pub fn reach(&self) -> usize {
        self.at[3] + 16
    }
}

/// # Safety
/// AVX2; `src + g * step .. + reach` readable for each of the `out.len() / 8` groups `g`.
#[target_feature(enable = "avx2")]
unsafe fn unpack_u64(src: *const u8, step: usize, plan: &Plan64, base: u64, out: &mut [u64]) {
    // SAFETY: the tables are 32 bytes each, read unaligned.
    let (s0, s1, r0, r1) = unsafe {
        (
            _mm256_loadu_si256(plan.shuffle[0].as_ptr().cast()),
            _mm256_loadu_si256(plan.shuffle[1].as_ptr().cast()),
            _mm256_loadu_si256(plan.shr[0].as_ptr().cast()),
            _mm256_loadu_si256(plan.shr[1].as_ptr().cast()),
        )
    };
    let mask = _mm256_set1_epi64x(plan.mask as i64);
    let base = _mm256_set1_epi64x(base as i64);
    let at = plan.at;
    let mut p = src;
    for dst in out.chunks_exact_mut(8) {
        // SAFETY: the four loads lie in `p .. p + reach` (caller's contract); `dst` holds 8 `u64`.
        unsafe {
            let a = _mm256_loadu2_m128i(p.add(at[1]).cast(), p.add(at[0]).cast());
            let b = _mm256_loadu2_m128i(p.add(at[3]).cast(), p.add(at[2]).cast());
            let a = _mm256_and_si256(_mm256_srlv_epi64(_mm256_shuffle_epi8(a, s0), r0), mask);
            let b = _mm256_and_si256(_mm256_srlv_epi64(_mm256_shuffle_epi8(b, s1), r1), mask);
            let d = dst.as_mut_ptr();
            _mm256_storeu_si256(d.cast(), _mm256_add_epi64(a, base));
            _mm256_storeu_si256(d.add(4).cast(), _mm256_add_epi64(b, base));
            p = p.add(step);
        }
    }
}

/// Decodes groups of 8 `u64` values at width `w <= 56` (`w` bytes a group, from `src`'s first byte) 512
/// bits at a time: one 64-byte load, one `vpermb` that puts each value's 8 bytes in its lane, one shift,
/// one AND and the base for 8 values, where [`unpack_u64`] needs four loads and two of each. Decodes the
/// groups whose 64-byte loads stay inside `src` and returns how many values that was (a multiple of 8).
///
/// # Safety
/// The CPU supports AVX-512 F, BW and VBMI; `1 <= w <= 56`.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(super) unsafe fn unpack_u64_zmm(src: &[u8], w: usize, base: u64, out: &mut [u64]) -> usize {
    debug_assert!((1..=56).contains(&w));
    let groups = (out.len() / 8).min(src.len().checked_sub(64).map_or(0, |room| room / w + 1));
    // SAFETY: AVX-512 F, BW and VBMI are present (contract); group `g` loads `src[g * w ..][..64]`, inside
    // `src` for `g < groups`, and stores `out[g * 8 ..][..8]`, inside `out`.
    unsafe {
        // Lane `k` holds value `k`, at bit `k * w`: its 8 bytes from the one holding that bit (at most
        // byte 7 * 56 / 8 + 7 = 56 of the 64; its bits end within them), shifted by the bit's place in it.
        let bits = _mm512_mul_epu32(_mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7), _mm512_set1_epi64(w as i64));
        let shr = _mm512_and_si512(bits, _mm512_set1_epi64(7));
        // Each lane's first byte copied into all 8 of its bytes, plus 0, 1, …, 7.
        let (low, high) = (0, 0x0808_0808_0808_0808);
        let spread = _mm512_setr_epi64(low, high, low, high, low, high, low, high);
        let first = _mm512_shuffle_epi8(_mm512_srli_epi64::<3>(bits), spread);
        let permute = _mm512_add_epi64(first, _mm512_set1_epi64(0x0706_0504_0302_0100));
        let mask = _mm512_set1_epi64(((1u64 << w) - 1) as i64);
        let base = _mm512_set1_epi64(base as i64);
        for g in 0..groups {
            let bytes = _mm512_loadu_si512(src.as_ptr().add(g * w).cast());
            let v = _mm512_and_si512(_mm512_srlv_epi64(_mm512_permutexvar_epi8(permute, bytes), shr), mask);
            _mm512_storeu_si512(out.as_mut_ptr().add(g * 8).cast(), _mm512_add_epi64(v, base));
        }
    }
    groups * 8
}

/// Gathers `out[k] = value(positions[k]) + references[positions[k] >> shift]` (`references[0]` for every
/// value where `shift >= 32`) with AVX2 gather instructions when there is a kernel for this word and width
/// (`u32` at widths up to 25: one 4-byte load a value; `u64` up to 56: one 8-byte load) and the
/// instructions pay; returns `false` (touching nothing) otherwise. Positions are checked against `n` a
/// vector at a time, before their loads.
///
/// Without `fast_gathers` (AMD), only `u32` fields with one reference go here. On the Zen 4 EPYC a loop
/// of scalar loads beat two gathers per 8 values (a field and its block's reference) in most cases, by up
/// to 50 %, and lost by up to 15 % in the rest (10^3 random positions at width 20); it beat 64-bit gathers
/// by up to 50 %, but for 10^3 random positions over one base (5 % slower). One 32-bit gather per 8 values
/// still won at wide fields (1.0x against 1.4x a plain gather at width 20).
///
/// # Panics
/// If a position is `>= n` (`out` may then be partly written).
///
/// # Safety
/// AVX2 is present; `packed.len() >= packed_len(n, w)`, `w >= 1`, `out.len() == positions.len()`, and
/// `references` holds the reference of every position below `n`.
pub(super) unsafe fn gather<U: Word>(
    source: GatherSource<'_, U>,
    positions: &[u32],
    out: &mut [U],
    fast_gathers: bool,
) -> bool {
    let GatherSource { packed, n, w, references, shift } = source;
    // Byte offsets go through 32-bit signed lanes in the `u32` kernel.
    let offsets_fit = (n as u64) * (w as u64) < 1 << 31;
    let blocks = shift < u32::BITS;
    match U::BITS {
        32 if w <= 25 && offsets_fit && (fast_gathers || !blocks) => {
            let (out, references): (&mut [u32], &[u32]) =
                (bytemuck::cast_slice_mut(out), bytemuck::cast_slice(references));
            // SAFETY: forwarded contract; `w + 7 <= 32`, so a 4-byte load at a value's first byte holds it;
            // the reference indices `position >> shift` are below `n < 2^31`.
            unsafe {
                if blocks {
                    gather_u32::<true>(packed.as_ptr(), n, w, references, shift, positions, out)
                } else {
                    gather_u32::<false>(packed.as_ptr(), n, w, references, shift, positions, out)
                }
            };
            true
        }
        64 if w <= 56 && fast_gathers => {
            let (out, references): (&mut [u64], &[u64]) =
                (bytemuck::cast_slice_mut(out), bytemuck::cast_slice(references));
            // SAFETY: forwarded contract; `w + 7 <= 64`, so an 8-byte load at a value's first byte holds it.
            unsafe {
                if blocks {
                    gather_u64::<true>(packed.as_ptr(), n, w, references, shift, positions, out)
                } else {
                    gather_u64::<false>(packed.as_ptr(), n, w, references, shift, positions, out)
                }
            };
            true
        }
        _ => false,
    }
}

/// # Safety
/// As [`gather`], with `w <= 25` and byte offsets below `2^31`.
#[target_feature(enable = "avx2")]
unsafe fn gather_u32<const BLOCKS: bool>(
    p: *const u8,
    n: usize,
    w: u32,
    references: &[u32],
    shift: u32,
    positions: &[u32],
    out: &mut [u32],
) {
    let width = _mm256_set1_epi32(w as i32);
    let seven = _mm256_set1_epi32(7);
    let mask = _mm256_set1_epi32(((1u64 << w) - 1) as i32);
    let base = references[0];
    let base_v = _mm256_set1_epi32(base as i32);
    let count = _mm_cvtsi32_si128(shift as i32);
    let r = references.as_ptr();
    // `n < 2^31` here: a lane is out of range where `max(lane, n) == lane`.
    let limit = _mm256_set1_epi32(n as i32);
    let mut pos = positions.chunks_exact(8);
    let mut dst = out.chunks_exact_mut(8);
    for (pos, dst) in (&mut pos).zip(&mut dst) {
        // SAFETY: `pos` and `dst` hold 8 lanes; each lane's byte offset is that of a value `< n` (checked
        // first), and the padding after the packed data covers a 4-byte load there; each lane's reference
        // exists.
        unsafe {
            let idx = _mm256_loadu_si256(pos.as_ptr().cast());
            let over = _mm256_cmpeq_epi32(_mm256_max_epu32(idx, limit), idx);
            if _mm256_testz_si256(over, over) == 0 {
                out_of_range(pos, n);
            }
            let bit = _mm256_mullo_epi32(idx, width);
            let at = _mm256_srli_epi32::<3>(bit);
            let v = _mm256_i32gather_epi32::<1>(p.cast(), at);
            let v = _mm256_and_si256(_mm256_srlv_epi32(v, _mm256_and_si256(bit, seven)), mask);
            let add = if BLOCKS { _mm256_i32gather_epi32::<4>(r.cast(), _mm256_srl_epi32(idx, count)) } else { base_v };
            _mm256_storeu_si256(dst.as_mut_ptr().cast(), _mm256_add_epi32(v, add));
        }
    }
    let mask = mask_u64(w);
    out_of_range(pos.remainder(), n);
    for (&i, o) in pos.remainder().iter().zip(dst.into_remainder()) {
        // SAFETY: as above, one value.
        let (v, add) =
            unsafe { (load_at(p, i as u64 * w as u64), if BLOCKS { *r.add((i >> shift) as usize) } else { base }) };
        *o = ((v & mask) as u32).wrapping_add(add);
    }
}

/// # Safety
/// As [`gather`], with `w <= 56`.
#[target_feature(enable = "avx2")]
unsafe fn gather_u64<const BLOCKS: bool>(
    p: *const u8,
    n: usize,
    w: u32,
    references: &[u64],
    shift: u32,
    positions: &[u32],
    out: &mut [u64],
) {
    let width = _mm256_set1_epi64x(w as i64);
    let seven = _mm256_set1_epi64x(7);
    let mask = _mm256_set1_epi64x(mask_u64(w) as i64);
    let base = references[0];
    let base_v = _mm256_set1_epi64x(base as i64);
    let count = _mm_cvtsi32_si128(shift as i32);
    let r = references.as_ptr();
    let mut pos = positions.chunks_exact(4);
    let mut dst = out.chunks_exact_mut(4);
    // Positions are `u32`: none reaches a limit of `2^32` or more.
    let limit = _mm256_set1_epi64x(n.min(1 << 32) as i64);
    for (pos, dst) in (&mut pos).zip(&mut dst) {
        // SAFETY: as in `gather_u32`, 4 lanes of 8-byte loads.
        unsafe {
            let idx = _mm256_cvtepu32_epi64(_mm_loadu_si128(pos.as_ptr().cast()));
            if _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(limit, idx))) != 0b1111 {
                out_of_range(pos, n);
            }
            let bit = _mm256_mul_epu32(idx, width);
            let at = _mm256_srli_epi64::<3>(bit);
            let v = _mm256_i64gather_epi64::<1>(p.cast(), at);
            let v = _mm256_and_si256(_mm256_srlv_epi64(v, _mm256_and_si256(bit, seven)), mask);
            let add = if BLOCKS { _mm256_i64gather_epi64::<8>(r.cast(), _mm256_srl_epi64(idx, count)) } else { base_v };
            _mm256_storeu_si256(dst.as_mut_ptr().cast(), _mm256_add_epi64(v, add));
        }
    }
    let mask = mask_u64(w);
    out_of_range(pos.remainder(), n);
    for (&i, o) in pos.remainder().iter().zip(dst.into_remainder()) {
        // SAFETY: as above, one value.
        let (v, add) =
            unsafe { (load_at(p, i as u64 * w as u64), if BLOCKS { *r.add((i >> shift) as usize) } else { base }) };
        *o = (v & mask).wrapping_add(add);
    }
}

/// Panics at the first of `positions` that is `>= n`, as the portable gather's check does.
#[cold]
#[inline(never)]
fn out_of_range(positions: &[u32], n: usize) {
    if let Some(&p) = positions.iter().find(|&&p| p as usize >= n) {
        panic!("position {p} out of range for {n} values");
    }
}

fn mask_u64(w: u32) -> u64 {
    u64::MAX >> (64 - w)
}

/// The 8 bytes at bit offset `bit`'s byte, shifted down to that bit.
///
/// # Safety
/// The 8 bytes are readable.
#[inline(always)]
unsafe fn load_at(p: *const u8, bit: u64) -> u64 {
    // SAFETY: the caller's contract.
    unsafe { p.add((bit / 8) as usize).cast::<u64>().read_unaligned() >> (bit % 8) }
}
