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
    pack_offsets(values, U::ZERO, w, out)
}

/// Appends each `value - base` (wrapping) packed at width `w`, bits above `w` dropped: frame of
/// reference's residuals without a vector of them in between.
pub fn pack_offsets<U: Word>(values: &[U], base: U, w: u32, out: &mut Vec<u8>) {
    pack_from_references(values, &[base], u32::MAX, w, out)
}

/// Appends each value minus the reference of its block of `block` values (`references[i / block]`,
/// wrapping) packed at width `w`: for_n's residuals. `block` is a power of two.
///
/// # Panics
/// If `block` is not a power of two or `references` has fewer than `values.len().div_ceil(block)`.
pub fn pack_block_offsets<U: Word>(values: &[U], references: &[U], block: usize, w: u32, out: &mut Vec<u8>) {
    assert!(block.is_power_of_two() && references.len() >= values.len().div_ceil(block));
    if block < 8 {
        // References change inside a group of 8: residuals first.
        let residuals: Vec<U> = values
            .chunks(block)
            .zip(references)
            .flat_map(|(chunk, &r)| chunk.iter().map(move |v| v.wrapping_sub(r)))
            .collect();
        return pack(&residuals, w, out);
    }
    pack_from_references(values, references, block.trailing_zeros(), w, out)
}

/// Packs `values[i] - references[i >> shift]` (a shift of at least 3, so one reference covers each
/// group of 8; shifts of 64 or more mean `references[0]` for all).
///
/// Eight fields of `w` bits are `w` whole bytes, so each group of 8 packs with every shift a
/// compile-time constant once the width is (as decoding does); the last partial group goes through a
/// copy padded with its reference, whose fields are zero as the stream's padding must be.
fn pack_from_references<U: Word>(values: &[U], references: &[U], shift: u32, w: u32, out: &mut Vec<u8>) {
    assert!(w <= U::BITS, "width {w} exceeds {} bits", U::BITS);
    debug_assert!(shift >= 3);
    let start = out.len();
    out.resize(start + packed_len(values.len(), w), 0);
    if w == 0 {
        return;
    }
    let dst = &mut out[start..];
    let whole = values.len() / 8 * 8;
    let (body, tail) = values.split_at(whole);
    // The whole stream, padding included: a group's last store may run up to 7 bytes past its end.
    pack_dispatch::pack_groups(body, references, shift, w, dst);
    if !tail.is_empty() {
        let reference = references[reference_index(whole, shift)];
        let mut last = [reference; 8];
        last[..tail.len()].copy_from_slice(tail);
        let mut packed = [0u8; 8 * 8 + 8];
        pack_dispatch::pack_groups(&last, &[reference], u32::MAX, w, &mut packed);
        let used = (tail.len() * w as usize).div_ceil(8);
        dst[whole / 8 * w as usize..][..used].copy_from_slice(&packed[..used]);
    }
}

/// The index of value `i`'s reference.
#[inline(always)]
fn reference_index(i: usize, shift: u32) -> usize {
    i.checked_shr(shift).unwrap_or(0)
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

/// `out[k] = value(positions[k]) + base` for a stream of `n` values at width `w >= 1`, positions in any
/// order, in a loop specialized for the width. Each position is clamped to the last value before its load
/// and the largest is checked after the loop: one pass over the positions, where a vector max before the
/// loads made two.
///
/// # Panics
/// If a position is `>= n` or `packed` is shorter than [`packed_len`]`(n, w)`. On a panic, `out` may be
/// partly written.
pub fn gather<U: Word>(packed: &[u8], n: usize, w: u32, base: U, positions: &[u32], out: &mut [U]) {
    gather_dispatch(GatherSource { packed, n, w, references: &[base], shift: u32::MAX }, positions, out)
}

/// `out[k] = value(positions[k]) + references[positions[k] / block]` (wrapping): for_n's values at any
/// positions in one pass, each field and its block's reference loaded together, as [`gather`] does for one
/// base. `block` is a power of two.
///
/// # Panics
/// As [`gather`], and if `block` is not a power of two or `references` has fewer than
/// `n.div_ceil(block)`.
pub fn gather_block_offsets<U: Word>(
    packed: &[u8],
    n: usize,
    w: u32,
    references: &[U],
    block: usize,
    positions: &[u32],
    out: &mut [U],
) {
    assert!(block.is_power_of_two() && references.len() >= n.div_ceil(block));
    gather_dispatch(GatherSource { packed, n, w, references, shift: block.trailing_zeros() }, positions, out)
}

/// Where a gather reads: a packed stream of `n` fields at width `w`, each read plus
/// `references[i >> shift]` (`references[0]` for every field where `shift >= 32`).
#[derive(Clone, Copy)]
struct GatherSource<'a, U: Word> {
    packed: &'a [u8],
    n: usize,
    w: u32,
    references: &'a [U],
    shift: u32,
}

/// The gather loop for a compile-time width `W`: adds `references[i >> shift]` to field `i` where
/// `BLOCKS`, else `references[0]` to every field. A position past `last` reads value `last`; returns the
/// largest position, for the caller to check.
///
/// # Safety
/// `packed.len() >= packed_len(last + 1, W)`, `out.len() == positions.len()`, and `references` holds the
/// reference of every position up to `last` (`references[0]` where not `BLOCKS`).
#[inline(always)]
unsafe fn gather_const<U: Word, const W: u32, const BLOCKS: bool>(
    packed: &[u8],
    last: u32,
    references: &[U],
    shift: u32,
    positions: &[u32],
    out: &mut [U],
) -> u32 {
    let mask = U::low_mask(W).to_u64();
    let p = packed.as_ptr();
    let base = references[0];
    let mut largest = 0;
    for (o, &i) in out.iter_mut().zip(positions) {
        largest = largest.max(i);
        let i = i.min(last);
        let bit = i as usize * W as usize;
        let (at, s) = (bit / 8, bit % 8);
        // SAFETY: `i <= last`, so the value's first byte `at` satisfies
        // `at + 16 <= (n * W).div_ceil(8) + PADDING <= packed.len()` (caller's contract, `n = last + 1`),
        // and both loads read at most 16 bytes from `at`; the reference is there (caller's contract).
        let (v, add) = unsafe {
            let v = if U::BITS < 64 || W <= 56 {
                (p.add(at).cast::<u64>().read_unaligned() >> s) & mask
            } else {
                ((p.add(at).cast::<u128>().read_unaligned() >> s) as u64) & mask
            };
            (v, if BLOCKS { *references.get_unchecked((i >> shift) as usize) } else { base })
        };
        *o = U::from_u64(v).wrapping_add(add);
    }
    largest
}

/// [`gather_const`] at the source's width, with `last` its last position (positions are `u32`: a stream
/// longer than that has no position past `u32::MAX` to clamp).
///
/// # Safety
/// As [`gather_const`], with `1 <= w <= U::BITS` and `n >= 1`.
#[inline(always)]
unsafe fn gather_generic<U: Word>(source: GatherSource<'_, U>, positions: &[u32], out: &mut [U]) -> u32 {
    let GatherSource { packed, n, w, references, shift } = source;
    let last = (n - 1).min(u32::MAX as usize) as u32;
    // SAFETY: forwarded contract.
    with_const_width!(U, w, |W| unsafe {
        if shift < u32::BITS {
            gather_const::<U, W, true>(packed, last, references, shift, positions, out)
        } else {
            gather_const::<U, W, false>(packed, last, references, shift, positions, out)
        }
    })
}

/// # Safety
/// As [`gather_generic`], and the CPU supports AVX2 and BMI2 (`shrx` instead of a shift through `cl`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi2")]
unsafe fn gather_bmi2<U: Word>(source: GatherSource<'_, U>, positions: &[u32], out: &mut [U]) -> u32 {
    // SAFETY: forwarded contract.
    unsafe { gather_generic(source, positions, out) }
}

/// Field `i` plus `references[i >> shift]` (`references[0]` for shifts of 32 or more) at every position.
fn gather_dispatch<U: Word>(source: GatherSource<'_, U>, positions: &[u32], out: &mut [U]) {
    let GatherSource { packed, n, w, references, shift } = source;
    assert!((1..=U::BITS).contains(&w) && out.len() == positions.len());
    assert!(packed.len() >= packed_len(n, w), "packed stream too short");
    assert!(!references.is_empty() && (shift >= u32::BITS || n == 0 || (n - 1) >> shift < references.len()));
    #[cfg(target_arch = "x86_64")]
    let bmi2 = crate::kernels::cpu::avx2_bmi2();
    // SAFETY: AVX2 is present; lengths, width and references checked on entry; the kernel checks the
    // positions itself, a vector at a time.
    #[cfg(target_arch = "x86_64")]
    if bmi2 && unsafe { x86::gather(source, positions, out, crate::kernels::cpu::fast_gathers()) } {
        return;
    }
    if n == 0 {
        assert!(positions.is_empty(), "position {} out of range for 0 values", positions[0]);
        return;
    }
    #[cfg(target_arch = "x86_64")]
    let largest = if bmi2 {
        // SAFETY: AVX2 and BMI2 are present; lengths, width and references checked on entry; `n >= 1`.
        unsafe { gather_bmi2(source, positions, out) }
    } else {
        // SAFETY: as above, without the CPU features.
        unsafe { gather_generic(source, positions, out) }
    };
    // SAFETY: lengths, width and references checked on entry; `n >= 1`.
    #[cfg(not(target_arch = "x86_64"))]
    let largest = unsafe { gather_generic(source, positions, out) };
    assert!((largest as usize) < n, "position {largest} out of range for {n} values");
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
            if crate::kernels::cpu::avx2() {
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

/// Packs whole groups of 8 values into `dst` (`W` bytes a group, and room for 8 more after the last).
#[inline(always)]
fn pack_groups_const<U: Word, const W: u32>(values: &[U], references: &[U], shift: u32, dst: &mut [u8]) {
    let mask = U::low_mask(W).to_u64();
    let wb = W as usize;
    for (g, group) in values.chunks_exact(8).enumerate() {
        let base = references[reference_index(g * 8, shift)];
        // One bounds check per group; the offsets below are constants once `W` is.
        let out = &mut dst[g * wb..g * wb + wb + 8];
        let mut acc = 0u64;
        for (k, &v) in group.iter().enumerate() {
            let field = v.wrapping_sub(base).to_u64() & mask;
            let (word, bit) = ((k * wb) / 64, (k as u32 * W) % 64);
            acc |= field << bit;
            if bit + W >= 64 {
                out[word * 8..word * 8 + 8].copy_from_slice(&acc.to_le_bytes());
                // The bits that did not fit start the next word (none when the field ended the word).
                acc = if bit == 0 { 0 } else { field >> (64 - bit) };
            }
        }
        if !W.is_multiple_of(8) {
            // The group's last, partial word; its zero upper bytes are overwritten by the next group.
            let word = 8 * wb / 64;
            out[word * 8..word * 8 + 8].copy_from_slice(&acc.to_le_bytes());
        }
    }
}

#[inline(always)]
fn pack_groups_generic<U: Word>(values: &[U], references: &[U], shift: u32, w: u32, dst: &mut [u8]) {
    with_const_width!(U, w, |W| pack_groups_const::<U, W>(values, references, shift, dst))
}

with_avx2! {
    /// `out[k] = residuals[k] + base` (wrapping), each residual widened (or cut) to the word: values stored
    /// in whole bytes (`bytepack`), decoded in one pass that vectorizes.
    pub fn widen_offsets[R: Word, U: Word](residuals: &[R], base: U, out: &mut [U]) -> () {
        for (o, &r) in out.iter_mut().zip(residuals) {
            *o = U::from_u64(r.to_u64()).wrapping_add(base);
        }
    }
}

/// `out[k] = word k of `src` + base` (wrapping), `src` holding `out.len()` unaligned little-endian words.
#[inline(always)]
fn add_words_generic<U: Word>(src: &[u8], base: U, out: &mut [U]) {
    for (o, word) in out.iter_mut().zip(src.chunks_exact(U::BITS as usize / 8)) {
        *o = bytemuck::pod_read_unaligned::<U>(word).wrapping_add(base);
    }
}

mod add_words_dispatch {
    use super::*;
    dispatch_simd!(add_words_generic, add_words_avx2, <U>(src: &[u8], base: U, out: &mut [U]));
    pub(super) use dispatch as add_words;
}

mod pack_dispatch {
    use super::*;
    dispatch_simd!(pack_groups_generic, pack_groups_avx2, <U>(values: &[U], references: &[U], shift: u32, w: u32, dst: &mut [u8]));
    pub(super) use dispatch as pack_groups;
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
    if w == U::BITS {
        // Each field is a whole little-endian word: a copy, with the base added on the way.
        let size = U::BITS as usize / 8;
        let words = &packed[start * size..end * size];
        if base == U::ZERO {
            bytemuck::cast_slice_mut::<U, u8>(out).copy_from_slice(words);
        } else {
            add_words_dispatch::add_words(words, base, out);
        }
        return;
    }
    let mask = U::low_mask(w);
    let one_at_a_time = |from: usize, out: &mut [U]| {
        for (k, o) in out.iter_mut().enumerate() {
            *o = get(packed, w, mask, from + k).wrapping_add(base);
        }
    };
    #[cfg(target_arch = "x86_64")]
    if U::BITS == 32 {
        let body = x86::unpack_aligned_u32(packed, w, base.to_u64() as u32, start, bytemuck::cast_slice_mut(out));
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

/// Bytes of values decoded at a time by [`unpack_range_block_offsets`]: 32 KiB, still in L1 (48 KiB on a
/// Zen 5) when the chunk's references are added. Chunks of 2,048 `u32` ran slower than none at all (each
/// call sets its tables up); 8,192 ran 2 % faster than none on 65,535 values.
const REFERENCED_CHUNK_BYTES: usize = 32 << 10;

/// Decodes values `start .. start + out.len()` of a stream whose value `i` is field `i` plus
/// `references[i >> shift]` (wrapping; for_n's values), a chunk at a time: on 512-bit vectors with each
/// reference added in register where the CPU has them (`u32` at widths up to 25, blocks of 16 values or
/// more); else the chunk's fields, then its references added while it is in L1 (a second pass over the
/// output, which cost as much as decoding it on an Intel Xeon).
///
/// # Panics
/// As [`unpack_range`], and if `references` has no reference for a value in the range.
pub fn unpack_range_block_offsets<U: Word>(
    packed: &[u8],
    n: usize,
    w: u32,
    references: &[U],
    shift: u32,
    start: usize,
    out: &mut [U],
) {
    // Chunks after the first start on a 64-byte boundary, so each decodes whole without a head or tail of
    // values one at a time (`unpack_range` decodes up to an aligned output first).
    let lead = (out.as_ptr() as usize).wrapping_neg() % 64 / size_of::<U>();
    let chunk_len = REFERENCED_CHUNK_BYTES / size_of::<U>();
    let (mut at, mut rest) = (start, out);
    assert!(start + rest.len() <= n, "range {start}..{} past {n} values", start + rest.len());
    assert!(packed.len() >= packed_len(n, w), "packed stream too short");
    // The fields of values `from ..`, then their references added.
    let apart = |from: usize, out: &mut [U]| {
        unpack_range(packed, n, w, U::ZERO, from, out);
        add_references_dispatch::add_references(out, from, references, shift);
    };
    while !rest.is_empty() {
        let len = if at == start { lead + chunk_len } else { chunk_len };
        let (chunk, tail) = rest.split_at_mut(len.min(rest.len()));
        #[cfg(target_arch = "x86_64")]
        let in_register = (U::BITS == 32)
            .then(|| {
                let words: &mut [u32] = bytemuck::cast_slice_mut(chunk);
                x86::unpack_blocks_u32(packed, w, bytemuck::cast_slice(references), shift, at, words)
            })
            .flatten();
        #[cfg(not(target_arch = "x86_64"))]
        let in_register: Option<(usize, usize)> = None;
        match in_register {
            // The values before the first aligned pair and after the last one the 512-bit loop decoded.
            Some((head, body)) => {
                let (head_out, after) = chunk.split_at_mut(head);
                apart(at, head_out);
                apart(at + head + body, &mut after[body..]);
            }
            None => apart(at, chunk),
        }
        at += chunk.len();
        rest = tail;
    }
}

/// `values[k] += references[(first + k) >> shift]` (wrapping), a block's run at a time.
#[inline(always)]
fn add_references_generic<U: Word>(values: &mut [U], first: usize, references: &[U], shift: u32) {
    let block = 1usize << shift;
    let (mut at, mut rest) = (first, values);
    while !rest.is_empty() {
        let (run, tail) = rest.split_at_mut((block - at % block).min(rest.len()));
        let reference = references[at >> shift];
        run.iter_mut().for_each(|v| *v = v.wrapping_add(reference));
        at += run.len();
        rest = tail;
    }
}

mod add_references_dispatch {
    use super::*;
    dispatch_simd!(add_references_generic, add_references_avx2, <U>(values: &mut [U], first: usize, references: &[U], shift: u32));
    pub(super) use dispatch as add_references;
}

/// Decodes whole groups (`out.len()` a multiple of 8) from `src`, which starts at the first group's byte.
fn unpack_groups<U: Word>(src: &[u8], w: u32, base: U, out: &mut [U]) {
    #[cfg(target_arch = "x86_64")]
    if x86::has_avx2() && x86::unpack(src, w, base, out) {
        return;
    }
    unpack_dispatch::unpack_groups(src, w, base, out)
}

mod parts;
pub use parts::{FieldsInParts, PartsInRegisters, RegisterLane};

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_scan;

#[cfg(test)]
mod tests;
