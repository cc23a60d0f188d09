//! Bit packing in the horizontal layout: value `i` occupies bits `i * w .. (i + 1) * w` of a
//! little-endian byte stream.
//!
//! Why horizontal: reading one value is one unaligned 8-byte load, a shift and a mask, which is what makes
//! `get` and `take` close to a plain array (seed 000's main finding). An interleaved, FastLanes-style
//! layout decodes with simpler SIMD but needs two loads on two cache lines per `get`; measured on this
//! machine it gathered 1,000 random `u32` at 2.3x a plain `Vec`, against 1.2x for this layout.
//!
//! Eight consecutive values take exactly `w` bytes, so decoding walks groups of 8 whose bit offsets are
//! compile-time constants once the width is (see the `with_const_width` macro); `u32` at widths up to 25
//! has an AVX2 path that places each value's bytes with one shuffle and aligns them with one variable
//! shift, and CPUs with AVX-512 VBMI place them with one `vpermb` from a single load.
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

/// A packed stream whose length was checked once against its width and value count, so reading one
/// value needs a single `i < n` check, like indexing a plain slice.
#[derive(Debug, Clone, Copy)]
pub struct PackedRef<'a, U: Word> {
    bytes: &'a [u8],
    n: usize,
    w: u32,
    mask: U,
}

impl<'a, U: Word> PackedRef<'a, U> {
    /// `None` unless `w <= U::BITS` and `bytes` holds at least [`packed_len`]`(n, w)` bytes.
    pub fn new(bytes: &'a [u8], n: usize, w: u32) -> Option<Self> {
        (w <= U::BITS && bytes.len() >= packed_len(n, w)).then(|| PackedRef { bytes, n, w, mask: U::low_mask(w) })
    }

    /// The packed bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Values in the stream.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether the stream holds no value.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Bits per value.
    pub fn width(&self) -> u32 {
        self.w
    }

    /// Value `i`.
    ///
    /// # Panics
    /// If `i >= len()`.
    #[inline(always)]
    pub fn get(&self, i: usize) -> U {
        assert!(i < self.n, "value {i} out of range for {} values", self.n);
        if self.w == 0 {
            return U::ZERO;
        }
        let bit = i * self.w as usize;
        let (at, s) = (bit / 8, bit % 8);
        let p = self.bytes.as_ptr();
        // SAFETY: `i < n`, so `at + 16 <= (n * w).div_ceil(8) + PADDING <= bytes.len()`, checked in `new`.
        let v = unsafe {
            if U::BITS < 64 || self.w <= 56 {
                p.add(at).cast::<u64>().read_unaligned() >> s
            } else {
                (p.add(at).cast::<u128>().read_unaligned() >> s) as u64
            }
        };
        U::from_u64(v) & self.mask
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

/// Positions checked at a time by [`gather`]: small enough that the chunk is still in L1 when the
/// unchecked loop reads it again.
const GATHER_CHUNK: usize = 512;

/// `out[k] = value(positions[k]) + base` for a stream of `n` values at width `w >= 1`, positions in any
/// order. Checks the largest position of each chunk of positions once (a vector max over data in L1),
/// then loads without per-value bounds checks, in a loop specialized for the width.
///
/// # Panics
/// If a position is `>= n` or `packed` is shorter than [`packed_len`]`(n, w)`. On a panic, `out` may be
/// partly written.
pub fn gather<U: Word>(packed: &[u8], n: usize, w: u32, base: U, positions: &[u32], out: &mut [U]) {
    gather_dispatch(packed, n, w, base, positions, out)
}

/// The gather loop for a compile-time width `W`.
///
/// # Safety
/// `packed.len() >= packed_len(n, W)`, `out.len() == positions.len()` and every position is `< n`.
#[inline(always)]
unsafe fn gather_const<U: Word, const W: u32>(packed: &[u8], base: U, positions: &[u32], out: &mut [U]) {
    let mask = U::low_mask(W).to_u64();
    let p = packed.as_ptr();
    for (o, &i) in out.iter_mut().zip(positions) {
        let bit = i as usize * W as usize;
        let (at, s) = (bit / 8, bit % 8);
        // SAFETY: `i < n`, so the value's first byte `at` satisfies
        // `at + 16 <= (n * W).div_ceil(8) + PADDING <= packed.len()` (caller's contract), and both
        // loads read at most 16 bytes from `at`.
        let v = unsafe {
            if U::BITS < 64 || W <= 56 {
                (p.add(at).cast::<u64>().read_unaligned() >> s) & mask
            } else {
                ((p.add(at).cast::<u128>().read_unaligned() >> s) as u64) & mask
            }
        };
        *o = U::from_u64(v).wrapping_add(base);
    }
}

/// [`gather_const`] at the runtime width.
///
/// # Safety
/// As [`gather_const`], with `1 <= w <= U::BITS`.
#[inline(always)]
unsafe fn gather_generic<U: Word>(packed: &[u8], w: u32, base: U, positions: &[u32], out: &mut [U]) {
    // SAFETY: forwarded contract.
    with_const_width!(U, w, |W| unsafe { gather_const::<U, W>(packed, base, positions, out) })
}

/// # Safety
/// As [`gather_generic`], and the CPU supports AVX2 and BMI2 (`shrx` instead of a shift through `cl`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi2")]
unsafe fn gather_bmi2<U: Word>(packed: &[u8], w: u32, base: U, positions: &[u32], out: &mut [U]) {
    // SAFETY: forwarded contract.
    unsafe { gather_generic(packed, w, base, positions, out) }
}

fn gather_dispatch<U: Word>(packed: &[u8], n: usize, w: u32, base: U, positions: &[u32], out: &mut [U]) {
    assert!((1..=U::BITS).contains(&w) && out.len() == positions.len());
    assert!(packed.len() >= packed_len(n, w), "packed stream too short");
    #[cfg(target_arch = "x86_64")]
    let bmi2 = simd::has_avx2() && std::arch::is_x86_feature_detected!("bmi2");
    for (pos, dst) in positions.chunks(GATHER_CHUNK).zip(out.chunks_mut(GATHER_CHUNK)) {
        let max = super::positions::max_position(pos) as usize;
        assert!(max < n, "position {max} out of range for {n} values");
        #[cfg(target_arch = "x86_64")]
        if bmi2 {
            // SAFETY: AVX2 and BMI2 are present; positions checked just above, lengths and width on entry.
            unsafe {
                if !simd::gather(packed, n, w, base, pos, dst) {
                    gather_bmi2(packed, w, base, pos, dst);
                }
            }
            continue;
        }
        // SAFETY: positions checked just above, lengths and width on entry.
        unsafe { gather_generic(packed, w, base, pos, dst) }
    }
}

/// [`gather`] by decoding the whole stream into `scratch` first, then gathering from plain words: faster
/// for long position lists (see [`decode_first_pays`]).
///
/// # Panics
/// As [`gather`].
pub fn gather_via_decode<U: Word>(
    packed: &[u8],
    n: usize,
    w: u32,
    base: U,
    positions: &[u32],
    out: &mut [U],
    scratch: &mut Vec<U>,
) {
    assert!(out.len() == positions.len());
    scratch.clear();
    scratch.resize(n, U::ZERO);
    unpack_range(packed, n, w, base, 0, scratch);
    for (o, &i) in out.iter_mut().zip(positions) {
        *o = scratch[i as usize];
    }
}

/// Whether [`gather_via_decode`] beats [`gather`] for `positions` random positions into a stream of `n`
/// values (measured by the `take_crossover` benchmark group).
pub fn decode_first_pays(n: usize, positions: usize) -> bool {
    positions >= n.saturating_mul(DECODE_FIRST_NUM) / DECODE_FIRST_DEN
}

/// [`decode_first_pays`] crossover, `positions / n`.
const DECODE_FIRST_NUM: usize = 1;
const DECODE_FIRST_DEN: usize = 2;

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
pub fn unpack_range<U: Word>(packed: &[u8], n: usize, w: u32, base: U, start: usize, out: &mut [U]) {
    let end = start + out.len();
    assert!(end <= n, "range {start}..{end} past {n} values");
    if w == 0 {
        out.fill(base);
        return;
    }
    assert!(packed.len() >= packed_len(n, w), "packed stream too short");
    let mask = U::low_mask(w);
    let one_at_a_time = |from: usize, out: &mut [U]| {
        for (k, o) in out.iter_mut().enumerate() {
            *o = get(packed, w, mask, from + k).wrapping_add(base);
        }
    };
    #[cfg(target_arch = "x86_64")]
    if U::BITS == 32 {
        let body = simd::unpack_aligned_u32(packed, w, base.to_u64() as u32, start, bytemuck::cast_slice_mut(out));
        if let Some((head, body)) = body {
            one_at_a_time(start, &mut out[..head]);
            one_at_a_time(start + head + body, &mut out[head + body..]);
            return;
        }
    }
    // Values before the first group boundary and after the last one, one at a time.
    let head = (start.next_multiple_of(8) - start).min(out.len());
    let body = (out.len() - head) / 8 * 8;
    let (head_out, rest) = out.split_at_mut(head);
    let (body_out, tail_out) = rest.split_at_mut(body);
    one_at_a_time(start, head_out);
    if !body_out.is_empty() {
        let first_group = (start + head) / 8;
        unpack_groups(&packed[first_group * w as usize..], w, base, body_out);
    }
    one_at_a_time(start + head + body, tail_out);
}

/// Decodes whole groups (`out.len()` a multiple of 8) from `src`, which starts at the first group's byte.
fn unpack_groups<U: Word>(src: &[u8], w: u32, base: U, out: &mut [U]) {
    #[cfg(target_arch = "x86_64")]
    if simd::has_avx2() && simd::unpack(src, w, base, out) {
        return;
    }
    unpack_dispatch::unpack_groups(src, w, base, out)
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod simd {
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

    use crate::types::Word;

    #[inline]
    pub fn has_avx2() -> bool {
        std::arch::is_x86_feature_detected!("avx2")
    }

    /// AVX-512 VBMI with VL: `vpermb` on 256-bit vectors (`std` caches the detection).
    #[inline]
    pub fn has_vbmi() -> bool {
        std::arch::is_x86_feature_detected!("avx512vbmi") && std::arch::is_x86_feature_detected!("avx512vl")
    }

    /// Whether `u32` decoding takes the [`PERMUTE`] modes: the CPU has AVX2 and VBMI (and, in tests, the
    /// thread has not asked for the AVX2 path with `avx2_only`).
    #[inline]
    fn use_vbmi() -> bool {
        #[cfg(test)]
        if AVX2_ONLY.with(|c| c.get()) {
            return false;
        }
        has_avx2() && has_vbmi()
    }

    #[cfg(test)]
    thread_local! {
        static AVX2_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    /// Runs `f` with `u32` decoding on this thread held to the AVX2 path, so tests cover it on CPUs that
    /// have VBMI too.
    #[cfg(test)]
    pub fn avx2_only<R>(f: impl FnOnce() -> R) -> R {
        let before = AVX2_ONLY.with(|c| c.replace(true));
        let r = f();
        AVX2_ONLY.with(|c| c.set(before));
        r
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
        mask: u32,
        /// Where the upper 128-bit half is loaded from: the byte holding lane 4's value, or 0 when one
        /// 16-byte load covers the group (widths up to 14 for runs at a group's start).
        high_base: usize,
        /// See [`Plan32::skip`].
        skip: usize,
        /// [`NARROW`], [`SINGLE`] or [`WIDE`].
        mode: u8,
        /// The mode on CPUs with VBMI: [`PERMUTE`] or [`PERMUTE_WIDE`] where every value's bytes lie in
        /// the 32 from the run's first byte and the plan is not [`SINGLE`], else `mode`.
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

    /// Whether `mode` decodes with `vpermb`, which needs AVX-512 VBMI and VL.
    const fn is_permute(mode: u8) -> bool {
        mode == PERMUTE || mode == PERMUTE_WIDE
    }

    /// Runs `$body` with `$m` bound to the plan's mode as a constant: one of the AVX2 modes, or with
    /// `vbmi` first, any mode (the body must then run code compiled with VBMI for [`is_permute`] modes).
    macro_rules! by_mode {
        ($mode:expr, |$m:ident| $body:expr) => {
            by_mode!(@arms $mode, $m, $body, SINGLE WIDE)
        };
        (vbmi $mode:expr, |$m:ident| $body:expr) => {
            by_mode!(@arms $mode, $m, $body, SINGLE WIDE PERMUTE PERMUTE_WIDE)
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
            // `SINGLE` loads one 16-byte half without an insert: one port-5 uop, as the permute.
            plan.vbmi_mode = match plan.mode {
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
        pub fn reach_in(&self, mode: u8) -> usize {
            if is_permute(mode) {
                32
            } else {
                self.high_base + 16
            }
        }

        /// Asserts that `groups` groups, `w` bytes apart from `src`'s start, stay inside `src` in the
        /// plan's AVX2 mode.
        fn check(&self, src: &[u8], w: u32, groups: usize) {
            self.check_in(self.mode, src, w, groups)
        }

        /// As [`check`](Self::check), in `mode`.
        fn check_in(&self, mode: u8, src: &[u8], w: u32, groups: usize) {
            let reach = self.reach_in(mode);
            assert!(groups == 0 || src.len() >= (groups - 1) * w as usize + reach, "source too short");
        }
    }

    /// [`Plan32`] as registers.
    #[derive(Clone, Copy)]
    struct Regs32 {
        shuffle: __m256i,
        shuffle5: __m256i,
        shr: __m256i,
        shl: __m256i,
        top: __m256i,
        mask: __m256i,
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
        unsafe fn new<const MODE: u8>(plan: &Plan32) -> Regs32 {
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
        unsafe fn decode8<const MODE: u8>(&self, p: *const u8) -> __m256i {
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
        /// 32 from `p` in [`is_permute`] modes.
        ///
        /// # Safety
        /// `p .. p + reach_in(MODE)` is readable.
        #[inline]
        #[target_feature(enable = "avx2")]
        unsafe fn load<const MODE: u8>(&self, p: *const u8) -> __m256i {
            // SAFETY: both 16-byte loads lie in `p .. p + high_base + 16` (caller's contract); in
            // `SINGLE` mode `high_base == 0` and one load fills both halves; in permute modes
            // `reach_in` is 32, the one load.
            unsafe {
                if is_permute(MODE) {
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
        unsafe fn decode8_top<const MODE: u8>(&self, p: *const u8) -> __m256i {
            // SAFETY: the group's bytes and the CPU features, as the caller guarantees.
            unsafe { _mm256_sllv_epi32(place::<MODE>(self.load::<MODE>(p), self.shuffle), self.top) }
        }
    }

    /// Bytes of `v` at `idx`: `vpermb` across the vector in [`is_permute`] modes, else `vpshufb` within
    /// each 16-byte half.
    ///
    /// # Safety
    /// The CPU supports AVX2, and AVX-512 VBMI and VL if [`is_permute`]`(MODE)`.
    #[inline(always)]
    unsafe fn place<const MODE: u8>(v: __m256i, idx: __m256i) -> __m256i {
        // SAFETY: the CPU features, as the caller guarantees.
        unsafe {
            if is_permute(MODE) {
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
            32 => unpack_runs_u32(src, w, Plan32::new(w), base.to_u64() as u32, bytemuck::cast_slice_mut(out)),
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
                unsafe { unpack_u8(src.as_ptr(), w as usize, plan, base.to_u64() as u8, out) }
            }
            64 if w <= 56 => {
                let plan = Plan64::new(w);
                assert!(groups == 0 || src.len() >= (groups - 1) * w as usize + plan.reach(), "source too short");
                let out: &mut [u64] = bytemuck::cast_slice_mut(out);
                // SAFETY: AVX2 is present; the assert above bounds every group's reads.
                unsafe { unpack_u64(src.as_ptr(), w as usize, &plan, base.to_u64(), out) }
            }
            _ => return false,
        }
        true
    }

    /// Decodes the runs of 8 values of a `u32` stream in values `start .. start + out.len()` whose
    /// outputs are 32-byte aligned, from `packed` (the whole stream, `packed_len` checked by the caller);
    /// returns how many values come before them and how many they are, for the caller to decode the
    /// rest one at a time. `None` (touching nothing) without AVX2, when `out` is too short for a run,
    /// or when no plan fits the first run's start in its group.
    ///
    /// Why aligned: a 32-byte store that crosses a cache line costs two, and an output from the
    /// allocator is often 16 bytes off, which split every other store: decoding 65,536 values at width
    /// 3 ran at 9.9 values/ns into such a buffer and 13.9 into an aligned one.
    pub fn unpack_aligned_u32(
        packed: &[u8],
        w: u32,
        base: u32,
        start: usize,
        out: &mut [u32],
    ) -> Option<(usize, usize)> {
        if !has_avx2() {
            return None;
        }
        // `u32` slices are 4-byte aligned, so this is a whole number of values below 8.
        let head = (out.as_ptr() as usize).wrapping_neg() % 32 / 4;
        if out.len() < head + 8 {
            return None;
        }
        let first = start + head;
        let plan = Plan32::starting_at(w, (first % 8) as u32)?;
        let body = (out.len() - head) / 8 * 8;
        let src = &packed[first / 8 * w as usize + plan.skip()..];
        unpack_runs_u32(src, w, plan, base, &mut out[head..head + body]);
        Some((head, body))
    }

    /// Decodes `out.len() / 8` runs of 8 values, `w` bytes apart from `src` (which starts at the first
    /// byte the first run loads), as `plan` places them, adding `base`.
    fn unpack_runs_u32(src: &[u8], w: u32, plan: &Plan32, base: u32, out: &mut [u32]) {
        assert!(has_avx2() && out.len().is_multiple_of(8));
        let mode = if use_vbmi() { plan.vbmi_mode } else { plan.mode };
        plan.check_in(mode, src, w, out.len() / 8);
        // SAFETY: AVX2 is present, and VBMI and VL where `mode` is a permute mode (`use_vbmi`);
        // `check_in` bounds every run's reads in that mode.
        unsafe {
            by_mode!(vbmi mode, |M| if base == 0 {
                unpack_u32::<M, false>(src.as_ptr(), w as usize, plan, base, out)
            } else {
                unpack_u32::<M, true>(src.as_ptr(), w as usize, plan, base, out)
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
        out: &mut [u32],
    ) {
        // SAFETY: forwarded contract, which includes the features each copy is compiled with.
        unsafe {
            if is_permute(MODE) {
                unpack_u32_vbmi::<MODE, ADD>(src, step, plan, base, out)
            } else {
                unpack_u32_avx2::<MODE, ADD>(src, step, plan, base, out)
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
                out: &mut [u32],
            ) {
                // SAFETY: forwarded contract.
                unsafe { unpack_u32_body::<MODE, ADD>(src, step, plan, base, out) }
            }
        };
    }

    unpack_u32_with!(unpack_u32_avx2, "avx2");
    unpack_u32_with!(unpack_u32_vbmi, "avx2,avx512vbmi,avx512vl");

    /// How far ahead of the group being decoded [`unpack_u32`] asks for the packed bytes: the hardware
    /// prefetcher alone left wide streams waiting on L2 (4% slower at width 20 on 65,536 values;
    /// no change at widths 3 and 11).
    const PREFETCH_AHEAD: usize = 512;

    /// How many values ahead of the quad being stored [`unpack_u32`] asks for the output's lines, for
    /// writing: 65,536 values (256 KiB of output, beyond L1) decoded about 2% faster with a base at
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
                _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(PREFETCH_AHEAD).cast());
                // The two output lines of the quad `OUT_PREFETCH_AHEAD` values on, asked for in
                // exclusive state (`prefetchw`) so their stores need no read-for-ownership then.
                _mm_prefetch::<_MM_HINT_ET0>(d.wrapping_add(OUT_PREFETCH_AHEAD).cast());
                _mm_prefetch::<_MM_HINT_ET0>(d.wrapping_add(OUT_PREFETCH_AHEAD + 16).cast());
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
    unsafe fn unpack_u8(src: *const u8, step: usize, plan: &Plan32, base: u8, out: &mut [u8]) {
        debug_assert_eq!(plan.mode, SINGLE);
        // SAFETY: AVX2 is present (this function's contract).
        let r = unsafe { Regs32::new::<SINGLE>(plan) };
        let base_vec = _mm256_set1_epi8(base as i8);
        let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
        let mut p = src;
        let mut quads = out.chunks_exact_mut(32);
        for dst in &mut quads {
            // SAFETY: four readable groups; `dst` holds 32 bytes. Values fit 8 bits, so both saturating
            // packs are exact; they leave 32-bit quarters in the order the permute undoes.
            unsafe {
                let a = r.decode8::<SINGLE>(p);
                let b = r.decode8::<SINGLE>(p.add(step));
                let c = r.decode8::<SINGLE>(p.add(2 * step));
                let d = r.decode8::<SINGLE>(p.add(3 * step));
                let v = _mm256_packus_epi16(_mm256_packus_epi32(a, b), _mm256_packus_epi32(c, d));
                let v = _mm256_permutevar8x32_epi32(v, order);
                _mm256_storeu_si256(dst.as_mut_ptr().cast(), _mm256_add_epi8(v, base_vec));
                p = p.add(4 * step);
            }
        }
        for dst in quads.into_remainder().chunks_exact_mut(8) {
            // SAFETY: one readable group into 8 bytes.
            let v = unsafe { r.decode8::<SINGLE>(p) };
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
        mask: u64,
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
    /// Gathers `out[k] = value(positions[k]) + base` with AVX2 gather instructions when there is a kernel
    /// for this word and width (`u32` at widths up to 25: one 4-byte load a value; `u64` up to 56: one
    /// 8-byte load); returns `false` (touching nothing) otherwise.
    ///
    /// # Safety
    /// AVX2 is present; every position is `< n`; `packed.len() >= packed_len(n, w)`, `w >= 1` and
    /// `out.len() == positions.len()`.
    pub unsafe fn gather<U: Word>(packed: &[u8], n: usize, w: u32, base: U, positions: &[u32], out: &mut [U]) -> bool {
        // Byte offsets go through 32-bit signed lanes in the `u32` kernel.
        let offsets_fit = (n as u64) * (w as u64) < 1 << 31;
        match U::BITS {
            32 if w <= 25 && offsets_fit => {
                let out: &mut [u32] = bytemuck::cast_slice_mut(out);
                // SAFETY: forwarded contract; `w + 7 <= 32`, so a 4-byte load at a value's first byte holds it.
                unsafe { gather_u32(packed.as_ptr(), w, base.to_u64() as u32, positions, out) };
                true
            }
            64 if w <= 56 => {
                let out: &mut [u64] = bytemuck::cast_slice_mut(out);
                // SAFETY: forwarded contract; `w + 7 <= 64`, so an 8-byte load at a value's first byte holds it.
                unsafe { gather_u64(packed.as_ptr(), w, base.to_u64(), positions, out) };
                true
            }
            _ => false,
        }
    }

    /// # Safety
    /// As [`gather`], with `w <= 25` and byte offsets below `2^31`.
    #[target_feature(enable = "avx2")]
    unsafe fn gather_u32(p: *const u8, w: u32, base: u32, positions: &[u32], out: &mut [u32]) {
        let width = _mm256_set1_epi32(w as i32);
        let seven = _mm256_set1_epi32(7);
        let mask = _mm256_set1_epi32(((1u64 << w) - 1) as i32);
        let base_v = _mm256_set1_epi32(base as i32);
        let mut pos = positions.chunks_exact(8);
        let mut dst = out.chunks_exact_mut(8);
        for (pos, dst) in (&mut pos).zip(&mut dst) {
            // SAFETY: `pos` and `dst` hold 8 lanes; each lane's byte offset is that of a value `< n`, and
            // the padding after the packed data covers a 4-byte load there.
            unsafe {
                let bit = _mm256_mullo_epi32(_mm256_loadu_si256(pos.as_ptr().cast()), width);
                let at = _mm256_srli_epi32::<3>(bit);
                let v = _mm256_i32gather_epi32::<1>(p.cast(), at);
                let v = _mm256_and_si256(_mm256_srlv_epi32(v, _mm256_and_si256(bit, seven)), mask);
                _mm256_storeu_si256(dst.as_mut_ptr().cast(), _mm256_add_epi32(v, base_v));
            }
        }
        let mask = mask_u64(w);
        for (&i, o) in pos.remainder().iter().zip(dst.into_remainder()) {
            // SAFETY: as above, one value.
            *o = ((unsafe { load_at(p, i as u64 * w as u64) } & mask) as u32).wrapping_add(base);
        }
    }

    /// # Safety
    /// As [`gather`], with `w <= 56`.
    #[target_feature(enable = "avx2")]
    unsafe fn gather_u64(p: *const u8, w: u32, base: u64, positions: &[u32], out: &mut [u64]) {
        let width = _mm256_set1_epi64x(w as i64);
        let seven = _mm256_set1_epi64x(7);
        let mask = _mm256_set1_epi64x(mask_u64(w) as i64);
        let base_v = _mm256_set1_epi64x(base as i64);
        let mut pos = positions.chunks_exact(4);
        let mut dst = out.chunks_exact_mut(4);
        for (pos, dst) in (&mut pos).zip(&mut dst) {
            // SAFETY: as in `gather_u32`, 4 lanes of 8-byte loads.
            unsafe {
                let idx = _mm256_cvtepu32_epi64(_mm_loadu_si128(pos.as_ptr().cast()));
                let bit = _mm256_mul_epu32(idx, width);
                let at = _mm256_srli_epi64::<3>(bit);
                let v = _mm256_i64gather_epi64::<1>(p.cast(), at);
                let v = _mm256_and_si256(_mm256_srlv_epi64(v, _mm256_and_si256(bit, seven)), mask);
                _mm256_storeu_si256(dst.as_mut_ptr().cast(), _mm256_add_epi64(v, base_v));
            }
        }
        let mask = mask_u64(w);
        for (&i, o) in pos.remainder().iter().zip(dst.into_remainder()) {
            // SAFETY: as above, one value.
            *o = (unsafe { load_at(p, i as u64 * w as u64) } & mask).wrapping_add(base);
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
        for (start, len) in [(1, 1030), (3, 5), (1023, 2), (1000, 1500), (2047, 1), (7, 9)] {
            if start + len <= values.len() {
                let mut part = vec![U::ZERO; len];
                unpack_range(packed, values.len(), w, U::ZERO, start, &mut part);
                assert_eq!(part, &values[start..start + len], "w={w} {start}+{len}");
            }
        }
    }

    /// Every decoding path against the others at width `w`: the dispatched `unpack_range` (AVX2 where
    /// the CPU has it), the scalar group decoder, `get`, the scalar and dispatched `gather`, and
    /// `gather_via_decode`, with a base that wraps, over odd starts and lengths.
    fn paths_agree<U: Word>(values: &[U], w: u32) {
        let n = values.len();
        let mut buf = vec![0x55u8; 5];
        pack(values, w, &mut buf);
        // An exact-length slice at an odd address: any read past the padding would panic or fail.
        let packed = &buf[5..];
        let base = U::MAX; // wraps every nonzero value
        let expect: Vec<U> = values.iter().map(|&v| v.wrapping_add(base)).collect();
        if w > 0 && n >= 8 {
            // The scalar group decoder, also on CPUs where `unpack_range` takes the AVX2 path.
            let groups = n / 8 * 8;
            let mut scalar = vec![U::ZERO; groups];
            unpack_groups_generic(packed, w, base, &mut scalar);
            assert_eq!(scalar, expect[..groups], "scalar groups w={w}");
            let mut dispatched = vec![U::ZERO; groups];
            unpack_groups(packed, w, base, &mut dispatched);
            assert_eq!(dispatched, expect[..groups], "dispatched groups w={w}");
        }
        for start in [0, 1, 3, 7, 8, 9, 61] {
            for len in [0, 1, 7, 9, 15, 17, 31, 33, 63, 100, 257] {
                let len = len.min(n.saturating_sub(start));
                if start + len > n {
                    continue;
                }
                let mut part = vec![U::ZERO; len];
                unpack_range(packed, n, w, base, start, &mut part);
                assert_eq!(part, expect[start..start + len], "w={w} {start}+{len}");
            }
            // Up to the very last value.
            if start <= n {
                let mut part = vec![U::ZERO; n - start];
                unpack_range(packed, n, w, base, start, &mut part);
                assert_eq!(part, expect[start..], "w={w} {start}..");
            }
        }
        if w == 0 || n == 0 {
            return;
        }
        let mask = U::low_mask(w);
        assert_eq!(get(packed, w, mask, 0), values[0]);
        assert_eq!(get(packed, w, mask, n - 1), values[n - 1]);
        // Positions with repeats, the first and the last, more than one gather chunk.
        let positions: Vec<u32> = (0..GATHER_CHUNK as u32 * 2 + 13)
            .map(|k| match k % 5 {
                0 => 0,
                1 => n as u32 - 1,
                _ => k.wrapping_mul(2_654_435_761) % n as u32,
            })
            .collect();
        let want: Vec<U> = positions.iter().map(|&i| expect[i as usize]).collect();
        let mut got = vec![U::ZERO; positions.len()];
        gather(packed, n, w, base, &positions, &mut got);
        assert_eq!(got, want, "gather w={w}");
        got.fill(U::ZERO);
        // SAFETY: width in range, `packed` is a whole stream of `n` values, equal lengths, positions `< n`.
        unsafe { gather_generic(packed, w, base, &positions, &mut got) };
        assert_eq!(got, want, "scalar gather w={w}");
        got.fill(U::ZERO);
        let mut scratch = Vec::new();
        gather_via_decode(packed, n, w, base, &positions, &mut got, &mut scratch);
        assert_eq!(got, want, "gather via decode w={w}");
    }

    #[test]
    fn all_paths_agree_for_every_width_of_every_word() {
        fn run<U: Word>() {
            for w in 0..=U::BITS {
                for n in [1, 7, 8, 9, 31, 32, 33, 64 + 7, 200, 1024 + 9] {
                    let values: Vec<U> = (0..n as u64)
                        .map(|i| U::from_u64(i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17)))
                        .map(|v| v & U::low_mask(w))
                        .collect();
                    paths_agree(&values, w);
                }
                // All ones: every bit of every value set, including each value's top byte.
                paths_agree(&[U::low_mask(w); 77], w);
            }
        }
        run::<u8>();
        run::<u16>();
        on_every_u32_path(run::<u32>);
        run::<u64>();
    }

    /// Runs `f` on every `u32` decoding path this CPU has: the default one (the VBMI permute modes where
    /// the CPU has them), then, on a CPU with VBMI, the AVX2 path it would otherwise skip.
    fn on_every_u32_path(f: impl Fn()) {
        f();
        #[cfg(target_arch = "x86_64")]
        if simd::has_vbmi() {
            simd::avx2_only(f);
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn simd_tables_stay_inside_their_halves() {
        use simd::{NARROW, PERMUTE, PERMUTE_WIDE, SINGLE, WIDE};
        for w in 1..=32 {
            let plan = simd::Plan32::new(w); // asserts every index lies in its 16-byte half
            let (mode, vbmi_mode) = plan.modes();
            for m in [mode, vbmi_mode] {
                assert!(plan.reach_in(m) <= w as usize + PADDING, "w={w} mode={m}");
            }
            // Groups at their first value: the widths each mode serves (fifth bytes only at 26..=31,
            // where a value can start at bit `33 - w` or above of its first byte).
            let want = match w {
                1..=14 => (SINGLE, SINGLE),
                _ if mode == WIDE => (WIDE, PERMUTE_WIDE),
                _ => (NARROW, PERMUTE),
            };
            assert_eq!((mode, vbmi_mode), want, "w={w}");
            assert!(mode != WIDE || (26..=31).contains(&w), "w={w}");
        }
        for w in 1..=56 {
            let plan = simd::Plan64::new(w);
            assert!(plan.reach() <= w as usize + PADDING);
        }
    }

    /// `u32` decoding into outputs at every offset from a 32-byte boundary, from every start within a
    /// group, at every width: the aligned runs (whatever their start in their group), the values one
    /// at a time around them, and the group path where no plan fits.
    #[test]
    fn u32_decodes_at_every_output_alignment_and_start() {
        on_every_u32_path(u32_decodes_at_every_output_alignment_and_start_on_this_path);
    }

    fn u32_decodes_at_every_output_alignment_and_start_on_this_path() {
        for w in 1..=32 {
            let n = 300;
            let values: Vec<u32> = (0..n as u64)
                .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 17) as u32 & u32::low_mask(w))
                .collect();
            let mut buf = vec![0x55u8; 1];
            pack(&values, w, &mut buf);
            let packed = &buf[1..]; // exact length at an odd address
            let mut out = vec![0u32; n + 16];
            let aligned = (out.as_ptr() as usize).wrapping_neg() % 32 / 4;
            for base in [0, u32::MAX - 2] {
                for offset in 0..8 {
                    let at = aligned + offset;
                    for start in 0..9 {
                        for len in [0, 1, 7, 8, 9, 15, 16, 17, 23, 24, 69, n - start] {
                            let dst = &mut out[at..at + len];
                            unpack_range(packed, n, w, base, start, dst);
                            let want = values[start..start + len].iter().map(|v| v.wrapping_add(base));
                            assert!(dst.iter().copied().eq(want), "w={w} offset={offset} start={start} len={len}");
                        }
                    }
                }
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn most_run_starts_have_a_plan() {
        // Phase 0 fits every width (`Plan32::new` panics otherwise); a later start can push a wide
        // value's bytes past its half, and those fall back to group-aligned runs.
        for w in 1..=32 {
            simd::Plan32::new(w);
            for first in 0..8 {
                let plan = simd::Plan32::starting_at(w, first);
                assert!(plan.is_some() || w >= 26, "w={w} first={first}");
                // A run's reads end within the padding after its group's bytes, in either mode.
                if let Some(p) = plan {
                    let (mode, vbmi_mode) = p.modes();
                    for m in [mode, vbmi_mode] {
                        assert!(p.skip() + p.reach_in(m) <= w as usize + PADDING, "w={w} first={first} mode={m}");
                    }
                    // The permute modes fit every run that has a plan up to width 30.
                    assert!(w > 30 || mode == simd::SINGLE || vbmi_mode >= simd::PERMUTE, "w={w} first={first}");
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn gather_rejects_a_bad_position_in_a_later_chunk() {
        let values = vec![1u32; 2000];
        let mut packed = Vec::new();
        pack(&values, 5, &mut packed);
        let mut positions = vec![3u32; 1500];
        positions[1400] = 2000;
        let mut out = vec![0u32; 1500];
        gather(&packed, 2000, 5, 0, &positions, &mut out);
    }

    #[test]
    fn decode_first_crossover() {
        assert!(!decode_first_pays(65_536, 1000));
        assert!(decode_first_pays(65_536, 1_000_000));
    }

    fn check_type<U: Word>() {
        for w in 0..=U::BITS {
            for n in [0, 1, 5, 8, 1023, 1024, 1025, 2048 + 77] {
                let values: Vec<U> = (0..n)
                    .map(|i| U::from_u64((i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)) & U::low_mask(w))
                    .collect();
                round_trip(&values, w);
            }
            round_trip(&[U::low_mask(w); 1500], w);
        }
    }

    #[test]
    fn every_width_of_every_word_round_trips() {
        check_type::<u8>();
        check_type::<u16>();
        on_every_u32_path(check_type::<u32>);
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
    fn packed_ref_checks_once_and_reads_every_value() {
        for w in [0u32, 1, 31, 32] {
            let values: Vec<u32> = (0..1000u32).map(|i| i.wrapping_mul(2_654_435_761) & u32::low_mask(w)).collect();
            let mut packed = Vec::new();
            pack(&values, w, &mut packed);
            assert!(PackedRef::<u32>::new(&packed[..packed.len().saturating_sub(1)], 1000, w).is_none() || w == 0);
            let r = PackedRef::<u32>::new(&packed, 1000, w).unwrap();
            assert!(values.iter().enumerate().all(|(i, &v)| r.get(i) == v));
        }
        for w in [57u32, 64] {
            let values: Vec<u64> = (0..100u64).map(|i| u64::MAX - i).map(|v| v & u64::low_mask(w)).collect();
            let mut packed = Vec::new();
            pack(&values, w, &mut packed);
            let r = PackedRef::<u64>::new(&packed, 100, w).unwrap();
            assert_eq!(r.get(99), values[99]);
        }
        assert!(PackedRef::<u8>::new(&[0; 64], 1, 9).is_none());
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn packed_ref_rejects_reads_past_the_end() {
        let mut packed = Vec::new();
        pack(&[1u16, 2, 3], 2, &mut packed);
        PackedRef::<u16>::new(&packed, 3, 2).unwrap().get(3);
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
