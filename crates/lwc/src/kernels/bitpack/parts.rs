//! Lone values read from many packed streams: a column cut into parts of one length, every part packed
//! at its own width. A scattered read finds its part by a shift (or a multiply) and reads one 8-byte load,
//! with no branch on the width and one check of the row, because each part's length, width and bytes
//! are checked once, when the parts are gathered here.

use std::marker::PhantomData;

use super::{packed_len, PackedRef};
use crate::kernels::divisor::EqualParts;
use crate::types::Word;

/// Stands in for the bytes of a zero-width part, whose stream holds none: every field reads 0 from it.
static ZERO_FIELDS: [u8; 8] = [0; 8];

/// One part: its packed bytes (padding included), width, mask and what the caller reads a field with.
#[derive(Clone, Copy)]
struct Part<'a, E> {
    bytes: &'a [u8],
    w: u32,
    mask: u64,
    extra: E,
}

/// Packed streams read as one list of values: part `p` holds values `p · cut.part_len() ..`, every part
/// but the last exactly `cut.part_len()` of them, each part at most 56 bits wide.
pub struct FieldsInParts<'a, E> {
    parts: Vec<Part<'a, E>>,
    cut: EqualParts,
    len: u64,
    /// Every part's width, when they share one: reads then keep it in a register.
    width: Option<u32>,
}

impl<'a, E: Copy> FieldsInParts<'a, E> {
    /// The parts, each with what a field of it is read with (a base, a dictionary); `None` unless every
    /// part but the last holds `part_len` values, the last one at least one and at most that, each is at
    /// most 56 bits wide (a field is then one 8-byte load), and they hold fewer than 2^64 values together
    /// (fewer than `2^64 / part_len` where that is not a power of two: see [`EqualParts::new`]).
    pub fn new<U: Word>(parts: impl IntoIterator<Item = (PackedRef<'a, U>, E)>, part_len: u64) -> Option<Self> {
        let (mut len, mut last) = (0u64, part_len);
        let parts = parts.into_iter();
        let mut gathered = Vec::with_capacity(parts.size_hint().0);
        for (fields, extra) in parts {
            // Only the last part may be short.
            if last != part_len || fields.is_empty() || fields.len() as u64 > part_len || fields.width() > 56 {
                return None;
            }
            last = fields.len() as u64;
            // Zero-width parts take no bytes, so nothing else bounds their lengths.
            len = len.checked_add(last)?;
            let w = fields.width();
            let bytes = if w == 0 { &ZERO_FIELDS[..] } else { fields.bytes() };
            debug_assert!(w == 0 || bytes.len() >= packed_len(fields.len(), w));
            gathered.push(Part { bytes, w, mask: low_mask(w), extra });
        }
        let width = gathered.first().map(|p| p.w).filter(|&w| gathered.iter().all(|p| p.w == w));
        Some(FieldsInParts { parts: gathered, cut: EqualParts::new(part_len, len)?, len, width })
    }

    /// Values in all parts together.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether there is no part.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `out[k] = value(extra of its part, place of rows[k] in its part, field rows[k])`, rows in any order;
    /// `Err(row)` at the first row `>= len()` (`out` written up to it). The place serves parts whose values
    /// add more than one base (a reference per block).
    #[inline]
    pub fn gather<R: Copy + Into<u64>, T>(
        &self,
        rows: &[R],
        out: &mut [T],
        value: impl Fn(E, usize, u64) -> T,
    ) -> Result<(), u64> {
        #[cfg(target_arch = "x86_64")]
        if crate::kernels::cpu::avx2_bmi2() {
            // SAFETY: the CPU has BMI2, checked just above.
            return unsafe { self.gather_bmi2(rows, out, value) };
        }
        self.gather_rows(rows, out, value)
    }

    /// [`FieldsInParts::gather`] with BMI2's shifts by any register (no move of each count to `cl`).
    ///
    /// # Safety
    /// The CPU supports BMI2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "bmi2")]
    unsafe fn gather_bmi2<R: Copy + Into<u64>, T>(
        &self,
        rows: &[R],
        out: &mut [T],
        value: impl Fn(E, usize, u64) -> T,
    ) -> Result<(), u64> {
        self.gather_rows(rows, out, value)
    }

    #[inline(always)]
    fn gather_rows<R: Copy + Into<u64>, T>(
        &self,
        rows: &[R],
        out: &mut [T],
        value: impl Fn(E, usize, u64) -> T,
    ) -> Result<(), u64> {
        match self.width {
            // Every field zero (constant segments): the loop reads no field at all.
            Some(0) => self.gather_at(rows, out, value, |_| (0, 0)),
            Some(w) => self.gather_at(rows, out, value, |_| (w, low_mask(w))),
            None => self.gather_at(rows, out, value, |part| (part.w, part.mask)),
        }
    }

    /// The loop of [`FieldsInParts::gather`], each part's width and mask from `width`.
    #[inline(always)]
    fn gather_at<R: Copy + Into<u64>, T>(
        &self,
        rows: &[R],
        out: &mut [T],
        value: impl Fn(E, usize, u64) -> T,
        width: impl Fn(&Part<'a, E>) -> (u32, u64),
    ) -> Result<(), u64> {
        for (o, &row) in out.iter_mut().zip(rows) {
            let row = row.into();
            if row >= self.len {
                return Err(row);
            }
            // Exact: `row < len`, for which `cut` was made.
            let (part, place) = self.cut.locate(row);
            // SAFETY: `row < len` (checked above), and `len <= parts.len() · cut.part_len()` (checked in
            // `new`).
            let part = unsafe { self.parts.get_unchecked(part as usize) };
            let (w, mask) = width(part);
            let place = place as usize;
            let bit = place * w as usize;
            // SAFETY: `row < len`, so its place in its part is below the part's length (every part but the
            // last holds `cut.part_len()` values, checked in `new`), and a load of 8 bytes at the field's
            // first byte stays inside the stream's padding (`PackedRef` checked its bytes against
            // `packed_len`; a zero-width part reads `ZERO_FIELDS` at offset 0).
            let word = unsafe { part.bytes.as_ptr().add(bit / 8).cast::<u64>().read_unaligned() };
            *o = value(part.extra, place, (u64::from_le(word) >> (bit % 8)) & mask);
        }
        Ok(())
    }
}

/// Parts [`PartsInRegisters`] holds at most: eight AVX-512 registers of 32-bit lanes for their offsets,
/// and as many for each half of their bases.
const REGISTER_PARTS: usize = 128;

/// Parts [`PartsInRegisters`] holds at most without AVX-512: two AVX2 registers a table.
#[cfg(target_arch = "x86_64")]
const AVX2_REGISTER_PARTS: usize = 16;

/// Rows [`PartsInRegisters::gather_then`] reads at a time into a buffer in L1.
const BUFFERED_ROWS: usize = 256;

/// Widest field [`PartsInRegisters`] reads: one 4-byte load at the field's first byte holds it.
const REGISTER_WIDTH: u32 = 25;

impl<'a, E: Copy> FieldsInParts<'a, E> {
    /// The parts ready for [`PartsInRegisters::gather`], each field read plus `base(extra)` of its part;
    /// `None` unless there are at most 128 parts where the CPU has AVX-512F (16 where it has AVX2), each
    /// at most 25 bits wide (a segment's width, often another in the short last one), of a power-of-two
    /// length of at most `2^31` rows whose fields span at most `2^32` bits, their bytes within 2 GiB of
    /// the first, and one of them at least 1 bit wide.
    pub fn in_registers(&self, base: impl Fn(E) -> u64) -> Option<PartsInRegisters<'a>> {
        self.registers(base, 1)
    }

    /// [`FieldsInParts::in_registers`] of parts whose values are `base(extra) + scale(extra) · field`:
    /// `None` also unless every part has one scale, above 1 and below `2^32`.
    pub fn in_registers_scaled(
        &self,
        base: impl Fn(E) -> u64,
        scale: impl Fn(E) -> u64,
    ) -> Option<PartsInRegisters<'a>> {
        let one = scale(self.parts.first()?.extra);
        if one <= 1 || self.parts.iter().any(|p| scale(p.extra) != one) {
            return None;
        }
        self.registers(base, u32::try_from(one).ok()?)
    }

    /// [`FieldsInParts::in_registers`] with every field times `scale`.
    fn registers(&self, base: impl Fn(E) -> u64, scale: u32) -> Option<PartsInRegisters<'a>> {
        let avx512 = register_path(self.parts.len())?;
        let widest = self.parts.iter().map(|p| p.w).max()?;
        let part_len = self.cut.part_len();
        // A place and its bit offset are 32-bit lanes: a part of `2^32` rows would have no place mask.
        if widest > REGISTER_WIDTH
            || !part_len.is_power_of_two()
            || part_len > 1 << 31
            || part_len * u64::from(widest) > 1 << 32
        {
            return None;
        }
        // The parts are read from the lowest one's address: every part's address is exposed, so a pointer
        // made from that address may reach each of them. Zero-width parts hold no bytes (see
        // `ZERO_FIELDS`): theirs read the lowest part's first bytes, masked to nothing.
        let lowest = self.parts.iter().filter(|p| p.w > 0).map(|p| p.bytes.as_ptr().expose_provenance()).min()?;
        let (mut offsets, mut widths) = ([0u32; REGISTER_PARTS], [0u32; REGISTER_PARTS]);
        let mut bases = [[0u32; REGISTER_PARTS]; 2];
        for (k, part) in self.parts.iter().enumerate() {
            if part.w > 0 {
                let at = part.bytes.as_ptr().addr() - lowest;
                i32::try_from(at + part.bytes.len()).ok()?;
                (offsets[k], widths[k]) = (at as u32, part.w);
            }
            let b = base(part.extra);
            (bases[0][k], bases[1][k]) = (b as u32, (b >> 32) as u32);
        }
        Some(PartsInRegisters {
            origin: std::ptr::with_exposed_provenance(lowest),
            offsets,
            widths,
            bases,
            scale,
            shift: part_len.trailing_zeros(),
            len: self.len,
            avx512,
            bytes: PhantomData,
        })
    }
}

impl<'a, E: Copy> FieldsInParts<'a, E> {
    /// [`FieldsInParts::gather`] of `u32` rows with `registers`, made from these parts by
    /// [`FieldsInParts::in_registers`] with every base 0: the fields read eight or sixteen at a time, then
    /// each made a value by `value` (a dictionary's entry, a product plus a base). The loads `value` adds
    /// are aligned; the fields' loads at odd byte offsets are what the gather instruction saves.
    ///
    /// # Panics
    /// If `out` and `rows` differ in length.
    pub fn gather_through<T>(
        &self,
        registers: &PartsInRegisters<'a>,
        rows: &[u32],
        out: &mut [T],
        value: impl Fn(E, usize, u64) -> T,
    ) -> Result<(), u64> {
        debug_assert!(registers.len == self.len && 1 << registers.shift == self.cut.part_len());
        let place_mask = (1u32 << registers.shift) - 1;
        registers.gather_then(rows, out, |row, field: u32| {
            let part = &self.parts[(row >> registers.shift) as usize];
            value(part.extra, (row & place_mask) as usize, field.into())
        })
    }
}

/// Whether [`PartsInRegisters`] reads this many parts with AVX-512F (else AVX2); `None` where it cannot.
/// AVX2 where it holds them: ten parts, 1,000 random rows, took 1.23-1.27x a plain gather so and
/// 1.42-1.48x with AVX-512's wider tables (AMD EPYC Zen 5).
fn register_path(parts: usize) -> Option<bool> {
    #[cfg(target_arch = "x86_64")]
    {
        use crate::kernels::cpu;
        if parts <= AVX2_REGISTER_PARTS && cpu::avx2() {
            return Some(false);
        }
        if parts <= REGISTER_PARTS && cpu::avx512f() {
            return Some(true);
        }
    }
    let _ = parts;
    None
}

/// At most 128 parts (16 without AVX-512) of at most 25 bits each, each field plus its part's base,
/// read eight rows at a time (AVX2, up to 16 parts) or sixteen (AVX-512F): each row's part offset and base
/// are permuted out of registers and its field is gathered by one instruction. Random rows of ten parts
/// of 65,536 fields at 18 bits took 0.46 ns a row with AVX2, against 1.15 for [`FieldsInParts::gather`]'s
/// loop and 0.40 for a plain gather of `u32` (AMD EPYC Zen 5, in L2): that loop's loads at odd byte
/// offsets issue slower than one gather instruction's.
///
/// A column makes it once, when it opens: the tables take a few nanoseconds a part to fill, more than a
/// take of a few rows costs.
#[derive(Clone, Copy)]
pub struct PartsInRegisters<'a> {
    /// The lowest part's first byte, with the provenance of every part (see [`FieldsInParts::in_registers`]).
    origin: *const u8,
    /// Each part's first byte from `origin` (below `2^31`: a gather's lanes are signed).
    offsets: [u32; REGISTER_PARTS],
    /// Each part's width.
    widths: [u32; REGISTER_PARTS],
    /// Each part's base: its low 32 bits, then its high 32 bits.
    bases: [[u32; REGISTER_PARTS]; 2],
    /// What every field is multiplied by before its base is added (a `gcd`'s divisor), 1 for most.
    scale: u32,
    /// `log2` of the parts' length.
    shift: u32,
    len: u64,
    /// Read with AVX-512F (up to 128 parts), else with AVX2 (up to 16).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    avx512: bool,
    /// The parts' bytes, which `origin` reads.
    bytes: PhantomData<&'a [u8]>,
}

// SAFETY: `origin` only reads the parts' bytes, shared `&'a [u8]` slices that any thread may read for `'a`.
unsafe impl Send for PartsInRegisters<'_> {}
// SAFETY: as for `Send`: nothing is written through `origin`.
unsafe impl Sync for PartsInRegisters<'_> {}

/// A lane [`PartsInRegisters`] reads into: a field (times the scale) plus its part's base, wrapping in
/// the lane.
pub trait RegisterLane: Copy {
    /// `base + field`, wrapping in the lane.
    fn add(field: u64, base: u64) -> Self;

    /// Stores `fields + bases` of eight rows at `dst`, the bases' low and high 32-bit halves apart.
    ///
    /// # Safety
    /// The CPU supports AVX2, and `dst` is valid for eight lanes.
    #[cfg(target_arch = "x86_64")]
    unsafe fn store8(fields: __m256i, low: __m256i, high: __m256i, dst: *mut Self);

    /// [`RegisterLane::store8`] of `fields · scale`, fields of at most 25 bits and `scale` in every
    /// 32-bit lane.
    ///
    /// # Safety
    /// As for [`RegisterLane::store8`].
    #[cfg(target_arch = "x86_64")]
    unsafe fn store8_scaled(fields: __m256i, scale: __m256i, low: __m256i, high: __m256i, dst: *mut Self);
}

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

impl RegisterLane for u32 {
    #[inline(always)]
    fn add(field: u64, base: u64) -> u32 {
        base.wrapping_add(field) as u32
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn store8(fields: __m256i, low: __m256i, _: __m256i, dst: *mut u32) {
        // SAFETY: the caller's contract.
        unsafe { _mm256_storeu_si256(dst.cast(), _mm256_add_epi32(fields, low)) }
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn store8_scaled(fields: __m256i, scale: __m256i, low: __m256i, high: __m256i, dst: *mut u32) {
        // SAFETY: the caller's contract. The product wraps in the lane, as the value does.
        unsafe { Self::store8(_mm256_mullo_epi32(fields, scale), low, high, dst) }
    }
}

impl RegisterLane for u64 {
    #[inline(always)]
    fn add(field: u64, base: u64) -> u64 {
        base.wrapping_add(field)
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn store8(fields: __m256i, low: __m256i, high: __m256i, dst: *mut u64) {
        // SAFETY: the caller's contract.
        unsafe {
            let sum = _mm256_add_epi32(fields, low);
            // The low halves carry where their sum wrapped below the field: `kept` is -1 where it did not.
            let kept = _mm256_cmpeq_epi32(_mm256_max_epu32(sum, fields), sum);
            let high = _mm256_add_epi32(high, _mm256_add_epi32(kept, _mm256_set1_epi32(1)));
            // Halves paired into 64-bit lanes: rows 0, 1, 4, 5 and 2, 3, 6, 7, then put in order.
            let (first, second) = (_mm256_unpacklo_epi32(sum, high), _mm256_unpackhi_epi32(sum, high));
            _mm256_storeu_si256(dst.cast(), _mm256_permute2x128_si256::<0x20>(first, second));
            _mm256_storeu_si256(dst.add(4).cast(), _mm256_permute2x128_si256::<0x31>(first, second));
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn store8_scaled(fields: __m256i, scale: __m256i, low: __m256i, high: __m256i, dst: *mut u64) {
        // Products of up to 57 bits: their low halves, and their high halves from the products of the
        // even lanes and of the odd ones, each in its own 64-bit lane.
        let product_low = _mm256_mullo_epi32(fields, scale);
        let even = _mm256_mul_epu32(fields, scale);
        let odd = _mm256_mul_epu32(_mm256_srli_epi64::<32>(fields), scale);
        let product_high = _mm256_blend_epi32::<0b1010_1010>(_mm256_srli_epi64::<32>(even), odd);
        // SAFETY: the caller's contract.
        unsafe { Self::store8(product_low, low, _mm256_add_epi32(high, product_high), dst) }
    }
}

impl PartsInRegisters<'_> {
    /// `out[k] = field(rows[k]) · scale + base of its part` (wrapping in the lane); `Err(row)` at the first
    /// row `>= len` (`out` written before it).
    ///
    /// # Panics
    /// If `out` and `rows` differ in length.
    pub fn gather<L: RegisterLane>(&self, rows: &[u32], out: &mut [L]) -> Result<(), u64> {
        assert_eq!(rows.len(), out.len(), "one output per row");
        // SAFETY: `in_registers` made `self` only where the CPU has AVX2, and `avx512` only where it has
        // AVX-512F.
        #[cfg(target_arch = "x86_64")]
        let done = unsafe {
            match (self.avx512, self.scale != 1) {
                (true, false) => self.gather_avx512::<L, false>(rows, out),
                (true, true) => self.gather_avx512::<L, true>(rows, out),
                (false, false) => self.gather_avx2::<L, false>(rows, out),
                (false, true) => self.gather_avx2::<L, true>(rows, out),
            }
        };
        #[cfg(not(target_arch = "x86_64"))]
        let done = 0;
        for (o, &row) in out[done..].iter_mut().zip(&rows[done..]) {
            *o = self.read(row)?;
        }
        Ok(())
    }

    /// What every field is multiplied by before its base is added: 1 unless made by
    /// [`FieldsInParts::in_registers_scaled`].
    pub fn scale(&self) -> u32 {
        self.scale
    }

    /// `out[k] = make(rows[k], field times scale plus base of rows[k])`, the lanes read a block at a time
    /// into a buffer in L1; `Err(row)` at the first row `>= len` (`out` written before it).
    ///
    /// # Panics
    /// If `out` and `rows` differ in length.
    #[inline]
    pub fn gather_then<L: RegisterLane + Default, V>(
        &self,
        rows: &[u32],
        out: &mut [V],
        make: impl Fn(u32, L) -> V,
    ) -> Result<(), u64> {
        assert_eq!(rows.len(), out.len(), "one output per row");
        let mut buffer = [L::default(); BUFFERED_ROWS];
        for (rows, out) in rows.chunks(BUFFERED_ROWS).zip(out.chunks_mut(BUFFERED_ROWS)) {
            let lanes = &mut buffer[..rows.len()];
            let read = self.gather(rows, lanes);
            // Up to the row past the parts, where there is one.
            let good = read.err().map_or(rows.len(), |bad| rows.iter().position(|&r| u64::from(r) == bad).unwrap_or(0));
            for ((o, &row), &lane) in out.iter_mut().zip(rows).zip(&lanes[..good]) {
                *o = make(row, lane);
            }
            read?;
        }
        Ok(())
    }

    /// Field `row` times the scale, plus its part's base.
    #[inline(always)]
    fn read<L: RegisterLane>(&self, row: u32) -> Result<L, u64> {
        if u64::from(row) >= self.len {
            return Err(row.into());
        }
        let (part, place) = ((row >> self.shift) as usize, row & ((1 << self.shift) - 1));
        let w = self.widths[part];
        let bit = place as usize * w as usize;
        // SAFETY: `row < len`, so its part is one of `offsets` (a part of `2^shift` rows each, the last
        // one at most that) and `place` is below that part's length. `in_registers` made `origin` with
        // the provenance of every part, whose bytes lie at `origin + offsets[part]`, and a part of `n`
        // fields holds `packed_len(n, w)` bytes (checked by `FieldsInParts::new`): the 4 bytes read from
        // the field's first byte lie in its padding at worst. A zero-width part reads the first bytes of
        // the lowest part, which is at least 1 bit wide and so holds its padding.
        let word = unsafe { self.origin.add(self.offsets[part] as usize + bit / 8).cast::<u32>().read_unaligned() };
        let field = (u32::from_le(word) >> (bit % 8)) & low_mask(w) as u32;
        let base = u64::from(self.bases[1][part]) << 32 | u64::from(self.bases[0][part]);
        Ok(L::add(u64::from(field) * u64::from(self.scale), base))
    }

    /// [`PartsInRegisters::gather`] sixteen rows at a time, until fewer than sixteen are left or a block
    /// holds a row past the parts; returns the rows read.
    ///
    /// # Safety
    /// The CPU supports AVX-512F; `out.len() == rows.len()`.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn gather_avx512<L: RegisterLane, const SCALED: bool>(&self, rows: &[u32], out: &mut [L]) -> usize {
        // SAFETY: each table holds 128 lanes: eight registers.
        let table = |t: &[u32; REGISTER_PARTS]| -> [__m512i; 8] {
            std::array::from_fn(|k| unsafe { _mm512_loadu_si512(t.as_ptr().add(16 * k).cast()) })
        };
        let (offsets, widths) = (table(&self.offsets), table(&self.widths));
        let (low, high) = (table(&self.bases[0]), table(&self.bases[1]));
        let (bit5, bit6) = (_mm512_set1_epi32(32), _mm512_set1_epi32(64));
        // Entry `part` of a table: a two-register permute picks among 32 entries (bits 0 to 4), then bits
        // 5 and 6 pick among those four.
        let pick = |t: &[__m512i; 8], part: __m512i| {
            let quarter = |k: usize| _mm512_permutex2var_epi32(t[2 * k], part, t[2 * k + 1]);
            let (b5, b6) = (_mm512_test_epi32_mask(part, bit5), _mm512_test_epi32_mask(part, bit6));
            let first = _mm512_mask_blend_epi32(b5, quarter(0), quarter(1));
            _mm512_mask_blend_epi32(b6, first, _mm512_mask_blend_epi32(b5, quarter(2), quarter(3)))
        };
        let (seven, ones, bits) = (_mm512_set1_epi32(7), _mm512_set1_epi32(-1), _mm512_set1_epi32(32));
        let scale = _mm256_set1_epi32(self.scale as i32);
        let place_mask = _mm512_set1_epi32(((1u64 << self.shift) - 1) as i32);
        let count = _mm_cvtsi32_si128(self.shift as i32);
        // No `u32` row is past the parts where `len` exceeds them all.
        let limit = u32::try_from(self.len).ok().map(|len| _mm512_set1_epi32(len as i32));
        let mut done = 0;
        for (pos, dst) in rows.chunks_exact(16).zip(out.chunks_exact_mut(16)) {
            // SAFETY: `pos` holds 16 lanes.
            let row = unsafe { _mm512_loadu_si512(pos.as_ptr().cast()) };
            if limit.is_some_and(|limit| _mm512_cmpge_epu32_mask(row, limit) != 0) {
                break;
            }
            let part = _mm512_srl_epi32(row, count);
            let width = pick(&widths, part);
            let bit = _mm512_mullo_epi32(_mm512_and_si512(row, place_mask), width);
            let at = _mm512_add_epi32(pick(&offsets, part), _mm512_srli_epi32::<3>(bit));
            // `w` ones: none where a part is zero-width (a shift by 32 clears the lane).
            let mask = _mm512_srlv_epi32(ones, _mm512_sub_epi32(bits, width));
            // SAFETY: as in `gather_avx2`.
            let field = unsafe { _mm512_i32gather_epi32::<1>(at, self.origin.cast()) };
            let field = _mm512_and_si512(_mm512_srlv_epi32(field, _mm512_and_si512(bit, seven)), mask);
            let (low, high) = (pick(&low, part), pick(&high, part));
            let halves = |v: __m512i| (_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v));
            let ((f0, f1), (l0, l1), (h0, h1)) = (halves(field), halves(low), halves(high));
            // SAFETY: AVX2 is present (AVX-512F includes it); `dst` holds 16 lanes.
            unsafe {
                store8::<L, SCALED>(f0, scale, l0, h0, dst.as_mut_ptr());
                store8::<L, SCALED>(f1, scale, l1, h1, dst.as_mut_ptr().add(8));
            }
            done += 16;
        }
        done
    }

    /// [`PartsInRegisters::gather`] eight rows at a time, until fewer than eight are left or a block holds
    /// a row past the parts; returns the rows read.
    ///
    /// # Safety
    /// The CPU supports AVX2; `out.len() == rows.len()`, and there are at most 16 parts.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn gather_avx2<L: RegisterLane, const SCALED: bool>(&self, rows: &[u32], out: &mut [L]) -> usize {
        // SAFETY: each table holds 16 lanes or more: two registers.
        let table = |t: &[u32; REGISTER_PARTS]| unsafe {
            let p = t.as_ptr().cast::<__m256i>();
            (_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1)))
        };
        let (offsets, widths) = (table(&self.offsets), table(&self.widths));
        let (low, high) = (table(&self.bases[0]), table(&self.bases[1]));
        let (seven, ones, bits) = (_mm256_set1_epi32(7), _mm256_set1_epi32(-1), _mm256_set1_epi32(32));
        let scale = _mm256_set1_epi32(self.scale as i32);
        let place_mask = _mm256_set1_epi32(((1u64 << self.shift) - 1) as i32);
        let count = _mm_cvtsi32_si128(self.shift as i32);
        // A row is past the parts where `max(row, len) == row`; no `u32` row is where `len` exceeds them all.
        let limit = u32::try_from(self.len).ok().map(|len| _mm256_set1_epi32(len as i32));
        let mut done = 0;
        for (pos, dst) in rows.chunks_exact(8).zip(out.chunks_exact_mut(8)) {
            // SAFETY: `pos` holds 8 lanes.
            let row = unsafe { _mm256_loadu_si256(pos.as_ptr().cast()) };
            if let Some(limit) = limit {
                let over = _mm256_cmpeq_epi32(_mm256_max_epu32(row, limit), row);
                if _mm256_testz_si256(over, over) == 0 {
                    break;
                }
            }
            let part = _mm256_srl_epi32(row, count);
            // Bit 3 of a part (parts 8 to 15) picks the second register: the sign bit, shifted up, blends.
            let upper = _mm256_castsi256_ps(_mm256_slli_epi32::<28>(part));
            let pick = |(first, second): (__m256i, __m256i)| {
                let (first, second) =
                    (_mm256_permutevar8x32_epi32(first, part), _mm256_permutevar8x32_epi32(second, part));
                _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(first), _mm256_castsi256_ps(second), upper))
            };
            let width = pick(widths);
            let bit = _mm256_mullo_epi32(_mm256_and_si256(row, place_mask), width);
            let at = _mm256_add_epi32(pick(offsets), _mm256_srli_epi32::<3>(bit));
            // `w` ones: none where a part is zero-width (a shift by 32 clears the lane).
            let mask = _mm256_srlv_epi32(ones, _mm256_sub_epi32(bits, width));
            // SAFETY: every row is below `len` (checked just above), so each lane's byte lies in its part
            // with 4 bytes readable from it (see `read`), and its offset from `origin` fits `i32`.
            let field = unsafe { _mm256_i32gather_epi32::<1>(self.origin.cast(), at) };
            let field = _mm256_and_si256(_mm256_srlv_epi32(field, _mm256_and_si256(bit, seven)), mask);
            // SAFETY: AVX2 is present; `dst` holds 8 lanes.
            unsafe { store8::<L, SCALED>(field, scale, pick(low), pick(high), dst.as_mut_ptr()) };
            done += 8;
        }
        done
    }
}

/// [`RegisterLane::store8`], of the fields times `scale` where `SCALED`.
///
/// # Safety
/// As for [`RegisterLane::store8`].
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn store8<L: RegisterLane, const SCALED: bool>(
    fields: __m256i,
    scale: __m256i,
    low: __m256i,
    high: __m256i,
    dst: *mut L,
) {
    // SAFETY: the caller's contract.
    unsafe {
        match SCALED {
            true => L::store8_scaled(fields, scale, low, high, dst),
            false => L::store8(fields, low, high, dst),
        }
    }
}

/// The mask of a field `w <= 56` bits wide.
#[inline(always)]
fn low_mask(w: u32) -> u64 {
    (1u64 << w) - 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::bitpack::pack;
    use std::ops::Range;

    fn packed(values: &[u64], w: u32) -> Vec<u8> {
        let mut out = Vec::new();
        pack(values, w, &mut out);
        out
    }

    #[test]
    fn gathers_across_parts_of_any_width_as_the_values_are() {
        // Parts of 8 values at widths 0, 3, 56 and 17, the last one short.
        let shift = 3;
        let widths = [0u32, 3, 56, 17];
        let lens = [8usize, 8, 8, 5];
        let values: Vec<Vec<u64>> = widths
            .iter()
            .zip(lens)
            .map(|(&w, n)| (0..n as u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) & u64::low_mask(w)).collect())
            .collect();
        let bytes: Vec<Vec<u8>> = values.iter().zip(widths).map(|(v, w)| packed(v, w)).collect();
        let refs = bytes
            .iter()
            .zip(&values)
            .zip(widths)
            .enumerate()
            .map(|(p, ((b, v), w))| (PackedRef::<u64>::new(b, v.len(), w).unwrap(), 1000 * p as u64));
        let parts = FieldsInParts::new(refs, 1 << shift).unwrap();
        assert_eq!(parts.len(), 29);
        let expected = |row: u64| values[(row >> shift) as usize][(row & 7) as usize] + 1000 * (row >> shift);
        let rows: Vec<u64> = (0..29).rev().chain([7, 8, 0, 28, 16, 16]).collect();
        let mut out = vec![0u64; rows.len()];
        parts.gather(&rows, &mut out, |base, _, field| base + field).unwrap();
        assert_eq!(out, rows.iter().map(|&r| expected(r)).collect::<Vec<_>>());
        // u32 row ids read the same.
        let narrow: Vec<u32> = rows.iter().map(|&r| r as u32).collect();
        let mut again = vec![0u64; rows.len()];
        parts.gather(&narrow, &mut again, |base, _, field| base + field).unwrap();
        assert_eq!(again, out);
        // Parts of one width read as parts of many do, zero-width ones included.
        for w in [0, 9] {
            let fields: Vec<u64> = (0..8).map(|i| (i * 37) & u64::low_mask(w)).collect();
            let bytes = packed(&fields, w);
            let same = (0..3u64).map(|p| (PackedRef::<u64>::new(&bytes, 8, w).unwrap(), 100 * p));
            let parts = FieldsInParts::new(same, 1 << shift).unwrap();
            let rows = [23u64, 0, 9, 17, 8, 7];
            let mut out = [0u64; 6];
            parts.gather(&rows, &mut out, |base, _, field| base + field).unwrap();
            let expected = rows.map(|r| 100 * (r >> shift) + fields[(r & 7) as usize]);
            assert_eq!(out, expected, "width {w}");
        }
        // The first row past the end is named, and the rows before it are written.
        let mut out = vec![0u64; 3];
        assert_eq!(parts.gather(&[3u64, 29, 1], &mut out, |base, _, field| base + field), Err(29));
        assert_eq!(out[0], expected(3));
        assert_eq!(parts.gather(&[u64::MAX], &mut out[..1], |base, _, field| base + field), Err(u64::MAX));
    }

    #[test]
    fn gathers_across_parts_of_a_length_not_a_power_of_two() {
        // Parts of 5 values at widths 3, 0, 11 and 7, the last one short: field `13 · row + 1` cut to its
        // part's width, each part's base 100 times its index, and each value's place read too.
        let widths = [3u32, 0, 11, 7];
        let lens = [5usize, 5, 5, 2];
        let field = |row: u64, w: u32| (row * 13 + 1) & u64::low_mask(w);
        let bytes: Vec<Vec<u8>> = widths
            .iter()
            .zip(lens)
            .enumerate()
            .map(|(p, (&w, n))| packed(&(0..n as u64).map(|i| field(5 * p as u64 + i, w)).collect::<Vec<_>>(), w))
            .collect();
        let refs = bytes.iter().zip(widths).zip(lens).enumerate();
        let parts = refs.map(|(p, ((b, w), n))| (PackedRef::<u64>::new(b, n, w).unwrap(), 100 * p as u64));
        let parts = FieldsInParts::new(parts, 5).unwrap();
        assert_eq!(parts.len(), 17);
        let rows: Vec<u64> = (0..17).rev().chain([4, 5, 9, 10, 15, 16, 0]).collect();
        let mut out = vec![0u64; rows.len()];
        parts.gather(&rows, &mut out, |base, place, f| base + f + 1000 * place as u64).unwrap();
        let expected = |r: u64| 100 * (r / 5) + field(r, widths[(r / 5) as usize]) + 1000 * (r % 5);
        assert_eq!(out, rows.iter().map(|&r| expected(r)).collect::<Vec<_>>());
        assert_eq!(parts.gather(&[16u64, 17], &mut out[..2], |base, _, f| base + f), Err(17));
        assert!(FieldsInParts::new([(PackedRef::<u64>::new(&bytes[0], 5, 3).unwrap(), ())], 4).is_none());
    }

    #[test]
    fn refuses_parts_it_cannot_read_with_one_load() {
        let short = packed(&[1, 2, 3], 2);
        let full = packed(&[1; 8], 2);
        let wide = packed(&[1; 8], 57);
        fn part(b: &[u8], n: usize, w: u32) -> (PackedRef<'_, u64>, ()) {
            (PackedRef::new(b, n, w).unwrap(), ())
        }
        let new = |parts: Vec<(PackedRef<'_, u64>, ())>| FieldsInParts::new(parts, 8).is_some();
        assert!(new(vec![part(&full, 8, 2), part(&short, 3, 2)]));
        assert!(!new(vec![part(&short, 3, 2), part(&full, 8, 2)]), "a short part before the last");
        assert!(!new(vec![part(&full, 8, 2), part(&wide, 8, 57)]), "a part wider than 56 bits");
        assert!(!new(vec![part(&full, 8, 2), part(&[], 0, 0)]), "an empty part");
        let long = packed(&[1; 9], 2);
        assert!(!new(vec![part(&long, 9, 2)]), "a part longer than the length of a part");
        assert!(FieldsInParts::new([(PackedRef::<u64>::new(&full, 8, 2).unwrap(), ())], 0).is_none());
        // Zero-width parts of 2^63 values each: two are 2^64 values, which no row id can address.
        let huge = || (PackedRef::<u64>::new(&[], 1 << 63, 0).unwrap(), ());
        assert!(FieldsInParts::new([huge()], 1 << 63).is_some());
        assert!(FieldsInParts::new([huge(), huge()], 1 << 63).is_none(), "more values than row ids");
        // Parts of 3 · 2^30 values: two of them are more rows than its reciprocal divides exactly
        // (`rows · 3 · 2^30` past 2^64).
        let odd = |n: usize| (PackedRef::<u64>::new(&[], n, 0).unwrap(), ());
        assert!(FieldsInParts::new([odd(3 << 30), odd(3 << 30)], 3 << 30).is_none());
        assert!(FieldsInParts::new([odd(3 << 30), odd(1 << 20)], 3 << 30).is_some());
        let none = FieldsInParts::<()>::new(std::iter::empty::<(PackedRef<'_, u64>, ())>(), 8).unwrap();
        assert!(none.is_empty());
        assert_eq!(none.gather(&[0u64], &mut [0u64], |_, _, f| f), Err(0));
    }

    /// Parts of `part_len` fields at width `w` (the last one `last` long) in one allocation, as a column's
    /// segments lie in its file, field `register_field(row)`: the bytes, and each part's range of them
    /// and length.
    fn parts_of(count: usize, part_len: usize, last: usize, w: impl Fn(usize) -> u32) -> (Vec<u8>, Vec<Span>) {
        let (mut bytes, mut parts) = (Vec::new(), Vec::new());
        for p in 0..count {
            let (n, w) = (if p + 1 == count { last } else { part_len }, w(p));
            let start = bytes.len();
            bytes.extend(packed(&(0..n).map(|i| register_field(p * part_len + i, w)).collect::<Vec<_>>(), w));
            parts.push((start..bytes.len(), n, w));
        }
        (bytes, parts)
    }

    /// A part's bytes, length and width.
    type Span = (Range<usize>, usize, u32);

    /// The parts of `parts_of`, each with its base.
    fn fields_of<'a>(bytes: &'a [u8], spans: &[Span], part_len: usize) -> FieldsInParts<'a, u64> {
        let refs = spans.iter().enumerate().map(|(p, (span, n, w))| {
            let fields =
                if *w == 0 { PackedRef::<u64>::new(&[], *n, 0) } else { PackedRef::new(&bytes[span.clone()], *n, *w) };
            (fields.unwrap(), register_base(p))
        });
        FieldsInParts::new(refs, part_len as u64).unwrap()
    }

    fn register_field(row: usize, w: u32) -> u64 {
        (row as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 7 & u64::low_mask(w)
    }

    /// Bases whose low halves lie near `2^32`, so that many fields carry into the high half, and whose
    /// high halves differ from part to part.
    fn register_base(part: usize) -> u64 {
        (part as u64).wrapping_mul(0x8000_0001_0000_0001).wrapping_add(0xffff_ff00 - ((part as u64) << 20))
    }

    #[test]
    fn parts_in_registers_read_as_the_loop_does() {
        if !crate::kernels::cpu::avx2() {
            return;
        }
        crate::kernels::on_every_path(parts_in_registers_agree);
    }

    fn parts_in_registers_agree() {
        let mut rng = crate::stats::SplitMix(11);
        // One part, eight (one AVX2 register) and up to sixteen (two), then up to 128 (AVX-512's eight
        // registers), the last one short or full, at the widths around a byte and the widest; parts of
        // one width, and of several with a zero-width part among them.
        let counts = [(1, 1), (3, 7), (8, 8), (9, 9), (13, 17), (16, 24), (16, 25), (2, 3)];
        let counts = counts.into_iter().chain([(17, 11), (32, 5), (33, 6), (64, 20), (100, 25), (128, 13)]);
        for ((count, w), mixed) in counts.flat_map(|c| [(c, false), (c, true)]) {
            let width = |p: usize| match (mixed, p % 5) {
                (false, _) => w,
                (true, 3) => 0,
                (true, k) => w - (k as u32).min(w - 1),
            };
            let (part_len, last) = (64, if count % 2 == 0 { 64 } else { 37 });
            let (bytes, spans) = parts_of(count, part_len, last, width);
            let parts = fields_of(&bytes, &spans, part_len);
            let Some(registers) = parts.in_registers(|b| b) else {
                assert!(count > 16 && !crate::kernels::cpu::avx512f(), "{count} parts of {w} bits");
                continue;
            };
            let len = parts.len();
            let expected = |r: u32| {
                let (p, i) = (r as usize / part_len, r as usize % part_len);
                register_base(p).wrapping_add(register_field(p * part_len + i, width(p)))
            };
            // Lengths that leave each tail of a register, every row in range; `u64` lanes and `u32` ones
            // (the sum's low half).
            for n in [0usize, 1, 7, 8, 9, 31, 200] {
                let rows: Vec<u32> = (0..n).map(|_| (rng.next() % len) as u32).collect();
                let (mut wide, mut narrow) = (vec![0u64; n], vec![0u32; n]);
                registers.gather(&rows, &mut wide).unwrap();
                registers.gather(&rows, &mut narrow).unwrap();
                let expected: Vec<u64> = rows.iter().map(|&r| expected(r)).collect();
                assert_eq!(wide, expected, "{count} parts, {w} bits");
                assert_eq!(narrow, expected.iter().map(|&v| v as u32).collect::<Vec<_>>(), "{count} parts, {w} bits");
            }
            // A row past the parts, in a full register or in the tail: named, the rows before it written.
            for (n, bad) in [(20usize, 3usize), (20, 17), (8, 7), (16, 8)] {
                let mut rows: Vec<u32> = (0..n).map(|_| (rng.next() % len) as u32).collect();
                rows[bad] = len as u32 + (bad as u32 % 2) * 1000;
                let mut out = vec![0u64; n];
                assert_eq!(registers.gather(&rows, &mut out), Err(u64::from(rows[bad])));
                assert_eq!(out[..bad], rows[..bad].iter().map(|&r| expected(r)).collect::<Vec<_>>()[..]);
            }
            assert_eq!(registers.gather(&[u32::MAX], &mut [0u32]), Err(u64::from(u32::MAX)));
            // Fields times one scale, up to 32 bits (products of up to 57 bits), then the base.
            for scale in [3u64, 100, 0xffff_fff1] {
                let scaled = parts.in_registers_scaled(|b| b, |_| scale).unwrap();
                let rows: Vec<u32> = (0..203).map(|_| (rng.next() % len) as u32).collect();
                let (mut wide, mut narrow) = (vec![0u64; rows.len()], vec![0u32; rows.len()]);
                scaled.gather(&rows, &mut wide).unwrap();
                scaled.gather(&rows, &mut narrow).unwrap();
                let expected: Vec<u64> = rows
                    .iter()
                    .map(|&r| {
                        let (p, i) = (r as usize / part_len, r as usize % part_len);
                        register_base(p).wrapping_add(register_field(p * part_len + i, width(p)) * scale)
                    })
                    .collect();
                assert_eq!(wide, expected, "{count} parts, {w} bits, scale {scale}");
                assert_eq!(narrow, expected.iter().map(|&v| v as u32).collect::<Vec<_>>(), "scale {scale}");
            }
            // Fields read with every base 0, then made values by the caller as the loop makes them (its
            // part's base and the place too): past one buffer, and up to a row past the parts.
            let fields = parts.in_registers(|_| 0).unwrap();
            let value = |base: u64, place: usize, field: u64| base ^ (place as u64) << 40 ^ field;
            let mut rows: Vec<u32> = (0..700).map(|_| (rng.next() % len) as u32).collect();
            let (mut through, mut looped) = (vec![0u64; rows.len()], vec![0u64; rows.len()]);
            parts.gather_through(&fields, &rows, &mut through, value).unwrap();
            parts.gather(&rows, &mut looped, value).unwrap();
            assert_eq!(through, looped, "{count} parts, {w} bits, through registers");
            rows[300] = len as u32;
            assert_eq!(parts.gather_through(&fields, &rows, &mut through, value), Err(len));
            assert_eq!(through[..300], looped[..300]);
        }
    }

    #[test]
    fn parts_in_registers_refuse_what_they_cannot_hold() {
        let fits_widths = |count: usize, part_len: usize, w: &dyn Fn(usize) -> u32| {
            let (bytes, spans) = parts_of(count, part_len, part_len, w);
            fields_of(&bytes, &spans, part_len).in_registers(|b| b).is_some()
        };
        let fits = |count: usize, part_len: usize, w: u32| fits_widths(count, part_len, &|_| w);
        assert_eq!(fits(16, 64, 25), crate::kernels::cpu::avx2());
        assert_eq!(fits(17, 64, 25), crate::kernels::cpu::avx512f());
        assert_eq!(fits(128, 64, 25), crate::kernels::cpu::avx512f());
        assert!(!fits(129, 64, 8), "more parts than eight registers hold");
        crate::kernels::cpu::avx2_only(|| assert!(!fits(17, 64, 8), "more parts than two registers hold"));
        assert!(!fits(4, 64, 26), "a field past one 4-byte load");
        assert!(!fits(4, 48, 8), "a length not a power of two");
        // One short part of a length whose 1-bit fields span 2^32 bits: its rows have no 32-bit place mask.
        let (bytes, spans) = parts_of(1, 8, 8, |_| 1);
        assert!(fields_of(&bytes, &spans, 1 << 32).in_registers(|b| b).is_none(), "parts of 2^32 rows");
        assert_eq!(fields_of(&bytes, &spans, 1 << 31).in_registers(|b| b).is_some(), crate::kernels::cpu::avx2());
        assert!(!fits(4, 64, 0), "zero-width parts alone, which the loop reads without a load");
        assert_eq!(fits_widths(4, 64, &|p| 3 * p as u32), crate::kernels::cpu::avx2(), "widths 0 to 9");
        assert!(!fits_widths(4, 64, &|p| 24 + p as u32), "a part past one 4-byte load among others");
        // Scaled: one scale for every part, above 1 and below 2^32.
        let (bytes, spans) = parts_of(4, 64, 64, |_| 9);
        let parts = fields_of(&bytes, &spans, 64);
        assert_eq!(parts.in_registers_scaled(|b| b, |_| 7).is_some(), crate::kernels::cpu::avx2());
        assert!(parts.in_registers_scaled(|b| b, |_| 1).is_none(), "a scale of 1");
        assert!(parts.in_registers_scaled(|b| b, |_| 1 << 32).is_none(), "a scale past 32 bits");
        assert!(parts.in_registers_scaled(|b| b, |b| 2 + b % 2).is_none(), "a scale for each part");
    }
}
