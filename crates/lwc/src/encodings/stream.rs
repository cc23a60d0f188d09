//! The reading half every encoding shares: the operation set of an opened stream ([`StreamOps`], with
//! block-at-a-time defaults for what an encoding cannot do better on its encoded form), how a view is
//! opened from bytes ([`OpenStream`]), and a child stream behind a trait object ([`WordStream`]).

use std::sync::Arc;

use super::bitpack::{Frame, Packed};
use super::pfor::Exceptions;
use super::sequence::{wrapping_times, EqualRuns};
use super::{Cascade, StreamView};
use crate::bitmap::Bitmap;
use crate::bytes::Reader;
use crate::error::Result;
use crate::kernels::{
    bitpack::{FieldsInParts, PartsInRegisters, BLOCK},
    divisor::EqualParts,
    lookup,
    positions::{self, has_dense_block},
    radix::{Chunks, Digits, DigitsInParts},
    scan,
};
use crate::selection::Selection;
use crate::types::{LwcInt, Word};

/// How a stream reads a lone value where it lies, for a caller that reads many of them from many streams
/// (a column's scattered rows): found once, then read without a dispatch a value (see
/// [`OpenStream::in_place`]). It borrows only the stream's bytes, so a caller may keep it as long as them.
#[derive(Clone)]
pub(crate) enum InPlace<'a, T: LwcInt> {
    /// Packed fields plus a base (`bitpack`, `for`).
    Frame(Frame<'a, T>),
    /// Packed fields times a divisor, plus a base (`gcd` over `bitpack` or `for` quotients: the base is
    /// the reference plus the divisor times the quotients' base).
    Scaled { frame: Frame<'a, T>, divisor: u64 },
    /// Packed fields plus a reference per block of `2^shift` values (`for_n`).
    Blocks { residuals: Packed<'a, T::Unsigned>, references: &'a [T], shift: u32 },
    /// Packed codes into a dictionary (`dict` over `bitpack` or `for` codes).
    Coded { codes: Frame<'a, u32>, dictionary: &'a [T] },
    /// Packed fields plus a base, where a field equal to `marker` may be an exception (`pfor`).
    Patched { frame: Frame<'a, T>, marker: T::Unsigned, exceptions: Arc<Exceptions<'a, T::Unsigned>> },
    /// Digits of a base packed into words, plus a reference (`radix`); the digits' reads are the view's,
    /// copied.
    Digits { words: &'a [u64], digits: Digits, reference: T },
    /// `first + step · run`, the run of a row found by `runs` (`sequence`, and `rle` of equal runs over a
    /// `sequence`).
    Stepped { first: T, step: T::Unsigned, runs: EqualRuns },
    /// The values themselves (`plain`).
    Values(&'a [T]),
}

impl<'a, T: LwcInt> InPlace<'a, T> {
    /// The packed fields, where that is what the stream is.
    pub fn frame(&self) -> Option<Frame<'a, T>> {
        match self {
            InPlace::Frame(frame) => Some(*frame),
            _ => None,
        }
    }

    /// The packed codes and their dictionary, where that is what the stream is.
    fn coded(&self) -> Option<(Frame<'a, u32>, &'a [T])> {
        match self {
            InPlace::Coded { codes, dictionary } => Some((*codes, *dictionary)),
            _ => None,
        }
    }

    /// The values themselves, where that is what the stream is.
    fn values(&self) -> Option<&'a [T]> {
        match self {
            InPlace::Values(values) => Some(*values),
            _ => None,
        }
    }

    /// Value `i` (`i` below the stream's length).
    #[inline(always)]
    pub fn get(&self, i: usize) -> T {
        match self {
            InPlace::Frame(frame) => frame.get(i),
            InPlace::Scaled { frame, divisor } => scaled(frame.base, *divisor, frame.fields.get(i).to_u64()),
            InPlace::Blocks { residuals, references, shift } => T::add_offset(references[i >> shift], residuals.get(i)),
            InPlace::Coded { codes, dictionary } => lookup::entry(dictionary, codes.get(i)),
            InPlace::Patched { frame, marker, exceptions } => {
                T::add_offset(frame.base, exceptions.patched(i, frame.fields.get(i), *marker))
            }
            InPlace::Digits { words, digits, reference } => digit_value(digits, words, *reference, i),
            InPlace::Stepped { first, step, runs } => stepped_value(*first, *step, runs, i as u64),
            InPlace::Values(values) => values[i],
        }
    }
}

/// Value `row` of [`InPlace::Stepped`].
#[inline(always)]
fn stepped_value<T: LwcInt>(first: T, step: T::Unsigned, runs: &EqualRuns, row: u64) -> T {
    T::add_offset(first, wrapping_times(step, runs.run_of(row) as usize))
}

/// What [`InPlace::Stepped`] reads: its first value, step and runs.
pub(crate) type Stepped<T> = (T, <T as LwcInt>::Unsigned, EqualRuns);

/// Parts of `part_len` rows (`len` in all) as one, where each continues the first's values and runs: of
/// one step, each part's first value the first part's run that holds its first row.
fn continued<T: LwcInt>(parts: &[Stepped<T>], part_len: u64, len: u64) -> Option<Stepped<T>> {
    let (&(first, step, runs), rest) = parts.split_first()?;
    let mut last = runs.run_of(runs.rows().saturating_sub(1));
    for (k, (part_first, part_step, part_runs)) in rest.iter().enumerate() {
        let run = runs.continued_at((k as u64 + 1).checked_mul(part_len)?, part_runs)?;
        let value = T::add_offset(first, wrapping_times(step, run as usize));
        if *part_step != step || *part_first != value {
            return None;
        }
        last = run + part_runs.run_of(part_runs.rows().saturating_sub(1));
    }
    Some((first, step, runs.extended(len, last)?))
}

/// A radix part's words and reference.
pub(crate) type DigitPart<'a, T> = (&'a [u64], T);

/// What a part with a reference per block adds to a field: its references and the shift from a place to
/// its reference, or, with no references (a frame), its one base.
type Reference<'a, T> = (&'a [T], u32, T);

/// Many streams read in place as one list, cut into parts (a column's segments), sorted out once by how
/// their values lie: a caller that keeps it reads a few rows at a time without collecting the parts'
/// readers again. Collected on every take, 92 segments' readers took 60-75 % of a warm take of 100
/// random rows of l_orderkey (AMD EPYC Zen 3).
pub(crate) enum InPlaceParts<'a, T: LwcInt> {
    /// The values themselves (`plain`), in parts of `cut.part_len()` values (every part but the last),
    /// `len` in all.
    Values { parts: Vec<&'a [T]>, cut: EqualParts, len: u64 },
    /// Packed fields plus a base (`bitpack`, `for`, `constant`).
    Frames(FieldsInParts<'a, T>),
    /// Packed fields times a divisor plus a base (`gcd`), frames among them (a divisor of 1).
    Scaled(FieldsInParts<'a, (T, u64)>),
    /// Packed fields plus a reference per block (`for_n`), frames among them.
    Referenced(FieldsInParts<'a, Reference<'a, T>>),
    /// Packed codes into a dictionary (`dict`).
    Coded(FieldsInParts<'a, &'a [T]>),
    /// Packed fields plus a base, some of them exceptions (`pfor`), frames among them: each part's base,
    /// marker (past every field for a frame) and index in `exceptions`.
    Patched { fields: FieldsInParts<'a, (T, u64, u32)>, exceptions: Vec<Arc<Exceptions<'a, T::Unsigned>>> },
    /// Arithmetic values (`sequence`, `rle` of equal runs over one) in parts of `cut.part_len()` values,
    /// `len` in all: each part's first value, step and runs.
    Stepped { parts: Vec<Stepped<T>>, cut: EqualParts, len: u64 },
    /// Radix parts of one base: its digits, and each part's words and reference, so a reader keeps the
    /// base's constants out of its loop; read eight rows at a time where the CPU has the lanes for it
    /// (see [`DigitsInParts`]).
    Digits(Digits, Vec<DigitPart<'a, T>>, Option<Box<DigitsInParts<'a>>>),
    /// Any other mix, or parts not cut evenly: each part read as it is.
    Each(Vec<InPlace<'a, T>>),
}

impl<'a, T: LwcInt> InPlaceParts<'a, T> {
    /// The parts in order, `len` values in all; `part_len` where every part but the last holds that many
    /// values (at least one in the last). Parts that all read one way and at most 56 bits wide
    /// ([`FieldsInParts`]) then read a row with one load and no match on the kind.
    pub fn new(parts: Vec<InPlace<'a, T>>, part_len: Option<u64>, len: u64) -> Self {
        if let Some(uniform) = part_len.and_then(|part_len| Self::uniform(&parts, part_len)) {
            return uniform;
        }
        if let Some(InPlace::Digits { digits: first, .. }) = parts.first() {
            let one_base = all_or_none(&parts, |part| match part {
                InPlace::Digits { words, digits, reference } if digits.base() == first.base() => {
                    Some((*words, *reference))
                }
                _ => None,
            });
            if let Some(one_base) = one_base {
                let in_lanes = part_len.zip(Chunks::new(first.base())).and_then(|(part_len, chunks)| {
                    let bits: Vec<_> = one_base.iter().map(|&(words, r)| (words, r.to_bits().to_u64())).collect();
                    DigitsInParts::new(&chunks, &bits, part_len, len).map(Box::new)
                });
                return InPlaceParts::Digits(first.clone(), one_base, in_lanes);
            }
        }
        InPlaceParts::Each(parts)
    }

    /// The parts read from registers, a gather of `u32` rows eight or sixteen at a time (see
    /// [`InPlaceParts::gather_in_registers`]), where they are packed fields that
    /// [`FieldsInParts::in_registers`] holds. Frames of 4- or 8-byte values add their bases there too;
    /// codes, scaled fields and fields with exceptions are made values after the gather. Fields under a
    /// reference per block are not: read so, 1,000 random rows of TPC-H keys (`for_n`, 13 to 92 segments)
    /// took 4.1-5.1x a plain gather where the loop of [`InPlaceParts::gather`] took 4.1-4.7x (`lwc-bench
    /// keys`, AMD EPYC Zen 5).
    pub fn in_registers(&self) -> Option<PartsInRegisters<'a>> {
        match self {
            InPlaceParts::Frames(frames) if matches!(size_of::<T>(), 4 | 8) => {
                frames.in_registers(|base| base.to_bits().to_u64())
            }
            InPlaceParts::Frames(frames) => frames.in_registers(|_| 0),
            // One divisor in every part (a column of `gcd` segments): the products and bases are added
            // there too.
            InPlaceParts::Scaled(scaled) if matches!(size_of::<T>(), 4 | 8) => {
                let bits = |(base, _): (T, u64)| base.to_bits().to_u64();
                scaled.in_registers_scaled(bits, |(_, divisor)| divisor).or_else(|| scaled.in_registers(|_| 0))
            }
            InPlaceParts::Scaled(scaled) => scaled.in_registers(|_| 0),
            InPlaceParts::Coded(coded) => coded.in_registers(|_| 0),
            InPlaceParts::Patched { fields, .. } => fields.in_registers(|_| 0),
            _ => None,
        }
    }

    /// Whether `u32` rows are computed, not loaded: arithmetic parts that continue one another, with
    /// runs [`crate::kernels::lookup::stepped`] reads. A take of any rows in any order is then cheapest
    /// so (1,000 random rows of ps_partkey, 80,000 in two `rle(sequence, sequence)` segments: 0.4-0.5x a
    /// plain gather, AMD EPYC Zen 5).
    pub fn computes(&self) -> bool {
        match self {
            InPlaceParts::Stepped { parts, .. } => {
                matches!(parts.as_slice(), [(_, _, runs)] if runs.in_u32().is_some())
            }
            _ => false,
        }
    }

    /// Parts of `part_len` values that all read one way, `None` otherwise.
    fn uniform(parts: &[InPlace<'a, T>], part_len: u64) -> Option<Self> {
        if let Some(values) = all_or_none(parts, InPlace::values) {
            let len = values.iter().try_fold(0u64, |len, part| len.checked_add(part.len() as u64))?;
            let cut = EqualParts::new(part_len, len)?;
            return Some(InPlaceParts::Values { parts: values, cut, len });
        }
        if let Some(stepped) = all_or_none(parts, |part| match part {
            InPlace::Stepped { first, step, runs } => Some((*first, *step, *runs)),
            _ => None,
        }) {
            // Rows are located by the cut alone: every part but the last holds `part_len` of them.
            let (last, full) = stepped.split_last()?;
            if full.iter().any(|(_, _, runs)| runs.rows() != part_len) || last.2.rows() > part_len {
                return None;
            }
            let len = stepped.iter().map(|(_, _, runs)| runs.rows()).sum();
            // Parts that continue one another (ids, a key repeated a fixed number of times, cut into
            // segments) read as one: no part to find a row.
            if let Some(whole) = continued(&stepped, part_len, len) {
                let cut = EqualParts::new(len.checked_next_power_of_two()?, len)?;
                return Some(InPlaceParts::Stepped { parts: vec![whole], cut, len });
            }
            let cut = EqualParts::new(part_len, len)?;
            return Some(InPlaceParts::Stepped { parts: stepped, cut, len });
        }
        if let Some(frames) = all_or_none(parts, |part| part.frame().map(|frame| (frame.fields.fields(), frame.base))) {
            return FieldsInParts::new(frames, part_len).map(InPlaceParts::Frames);
        }
        if parts.iter().any(|part| matches!(part, InPlace::Scaled { .. })) {
            let scaled = all_or_none(parts, |part| match part {
                InPlace::Scaled { frame, divisor } => Some((frame.fields.fields(), (frame.base, *divisor))),
                InPlace::Frame(frame) => Some((frame.fields.fields(), (frame.base, 1))),
                _ => None,
            })?;
            return FieldsInParts::new(scaled, part_len).map(InPlaceParts::Scaled);
        }
        if parts.iter().any(|part| matches!(part, InPlace::Blocks { .. })) {
            let referenced = all_or_none(parts, |part| match part {
                InPlace::Blocks { residuals, references, shift } => {
                    Some((residuals.fields(), (*references, *shift, T::default())))
                }
                InPlace::Frame(frame) => Some((frame.fields.fields(), (&[][..], 0, frame.base))),
                _ => None,
            })?;
            return FieldsInParts::new(referenced, part_len).map(InPlaceParts::Referenced);
        }
        if parts.iter().any(|part| matches!(part, InPlace::Patched { .. })) {
            let none = Arc::new(Exceptions::none());
            let patched = all_or_none(parts, |part| match part {
                InPlace::Patched { frame, marker, exceptions } => Some((*frame, marker.to_u64(), exceptions.clone())),
                InPlace::Frame(frame) => Some((*frame, u64::MAX, none.clone())),
                _ => None,
            })?;
            let fields = patched.iter().enumerate();
            let fields = fields.map(|(k, (frame, marker, _))| (frame.fields.fields(), (frame.base, *marker, k as u32)));
            let fields = FieldsInParts::new(fields, part_len)?;
            let exceptions = patched.into_iter().map(|(_, _, exceptions)| exceptions).collect();
            return Some(InPlaceParts::Patched { fields, exceptions });
        }
        let coded =
            all_or_none(parts, |part| part.coded().map(|(codes, dictionary)| (codes.fields.fields(), dictionary)))?;
        FieldsInParts::new(coded, part_len).map(InPlaceParts::Coded)
    }

    /// `out[k] = to_value(value rows[k])`, rows in any order, where the parts are cut evenly and read one
    /// way; `Err(row)` at the first row past them. `None`, writing nothing, for [`InPlaceParts::Digits`] and
    /// [`InPlaceParts::Each`], whose rows the caller locates.
    #[inline]
    pub fn gather<R: Copy + Into<u64> + 'static, V>(
        &self,
        rows: &[R],
        out: &mut [V],
        to_value: impl Fn(T) -> V,
    ) -> Option<Result<(), u64>> {
        Some(match self {
            InPlaceParts::Values { parts, cut, len } => gather_in_parts(parts, *cut, *len, rows, out, |part, place| {
                part.get(place as usize).map(|&v| to_value(v))
            }),
            InPlaceParts::Stepped { parts, cut, len } => match parts.as_slice() {
                [(first, step, runs)] => gather_stepped(*first, *step, runs, *len, rows, out, to_value),
                _ => gather_in_parts(parts, *cut, *len, rows, out, |&(first, step, runs), place| {
                    Some(to_value(stepped_value(first, step, &runs, place)))
                }),
            },
            InPlaceParts::Frames(frames) => {
                frames.gather(rows, out, |base, _, field| to_value(frame_value(base, field)))
            }
            InPlaceParts::Scaled(scaled) => scaled.gather(rows, out, scaled_value(to_value)),
            InPlaceParts::Referenced(referenced) => referenced.gather(rows, out, referenced_value(to_value)),
            InPlaceParts::Coded(coded) => coded.gather(rows, out, coded_value(to_value)),
            InPlaceParts::Patched { fields, exceptions } => {
                fields.gather(rows, out, patched_value(exceptions, to_value))
            }
            InPlaceParts::Digits(..) | InPlaceParts::Each(_) => return None,
        })
    }

    /// [`InPlaceParts::gather`] of `u32` rows with `registers`, made by [`InPlaceParts::in_registers`]
    /// from these parts.
    pub fn gather_in_registers<V>(
        &self,
        registers: &PartsInRegisters<'a>,
        rows: &[u32],
        out: &mut [V],
        to_value: impl Fn(T) -> V,
    ) -> Result<(), u64> {
        // Lanes that are values: frames of 4- or 8-byte values, and scaled ones of one divisor.
        let values = match self {
            InPlaceParts::Frames(_) => matches!(size_of::<T>(), 4 | 8),
            InPlaceParts::Scaled(_) => registers.scale() > 1,
            _ => false,
        };
        if values {
            let from_lane = |lane: u64| to_value(T::from_bits(T::Unsigned::from_u64(lane)));
            return match size_of::<T>() {
                4 => registers.gather_then(rows, out, |_, lane: u32| from_lane(lane.into())),
                _ => registers.gather_then(rows, out, |_, lane| from_lane(lane)),
            };
        }
        match self {
            InPlaceParts::Frames(frames) => {
                frames.gather_through(registers, rows, out, |base, _, field| to_value(frame_value(base, field)))
            }
            InPlaceParts::Scaled(scaled) => scaled.gather_through(registers, rows, out, scaled_value(to_value)),
            InPlaceParts::Coded(coded) => coded.gather_through(registers, rows, out, coded_value(to_value)),
            InPlaceParts::Patched { fields, exceptions } => {
                fields.gather_through(registers, rows, out, patched_value(exceptions, to_value))
            }
            _ => unreachable!("in_registers makes registers of packed fields only"),
        }
    }
}

/// A frame's value: its base plus a field.
#[inline(always)]
fn frame_value<T: LwcInt>(base: T, field: u64) -> T {
    T::add_offset(base, T::Unsigned::from_u64(field))
}

/// A scaled frame's value (a `gcd` value): its base plus the divisor times a field, wrapping.
#[inline(always)]
pub(crate) fn scaled<T: LwcInt>(base: T, divisor: u64, field: u64) -> T {
    T::add_offset(base, T::Unsigned::from_u64(field.wrapping_mul(divisor)))
}

/// How a part of fields times a divisor reads a field.
#[inline(always)]
fn scaled_value<T: LwcInt, V>(to_value: impl Fn(T) -> V) -> impl Fn((T, u64), usize, u64) -> V {
    move |(base, divisor), _, field| to_value(scaled(base, divisor, field))
}

/// How a part with a reference per block reads a field at a place.
#[inline(always)]
fn referenced_value<'a, T: LwcInt, V>(to_value: impl Fn(T) -> V) -> impl Fn(Reference<'a, T>, usize, u64) -> V {
    move |(references, block_shift, base), place, field| {
        // A frame has no references, and every place reads its base.
        let reference = references.get(place >> block_shift).copied().unwrap_or(base);
        to_value(frame_value(reference, field))
    }
}

/// How a part of codes reads a code: its dictionary's entry (a code is at most 32 bits wide).
#[inline(always)]
fn coded_value<'a, T: LwcInt, V>(to_value: impl Fn(T) -> V) -> impl Fn(&'a [T], usize, u64) -> V {
    move |dictionary, _, code| to_value(lookup::entry(dictionary, code as u32))
}

/// How a part of fields, some of them exceptions, reads a field at a place: a field equal to its part's
/// marker is looked up among the part's exceptions.
#[inline(always)]
fn patched_value<'e, 'a: 'e, T: LwcInt, V>(
    exceptions: &'e [Arc<Exceptions<'a, T::Unsigned>>],
    to_value: impl Fn(T) -> V + 'e,
) -> impl Fn((T, u64, u32), usize, u64) -> V + 'e {
    move |(base, marker, part), place, field| {
        // The part's exceptions are found only for a field on the marker: most rows load nothing more.
        let patched = || exceptions[part as usize].residual_of(place).map(|residual| residual.to_u64());
        let field = if field == marker { patched().unwrap_or(field) } else { field };
        to_value(frame_value(base, field))
    }
}

/// Value `i` of a radix stream: its digit `i` above the reference.
#[inline(always)]
pub(crate) fn digit_value<T: LwcInt>(digits: &Digits, words: &[u64], reference: T, i: usize) -> T {
    T::add_offset(reference, T::Unsigned::from_u64(digits.get(words, i)))
}

/// `read` of every item, or `None` at the first it gives none for. Allocated once at its length: a take of
/// a few rows paid for what collecting into an `Option<Vec>` reallocates on the way.
pub(crate) fn all_or_none<'i, I, X>(items: &'i [I], read: impl Fn(&'i I) -> Option<X>) -> Option<Vec<X>> {
    let mut all = Vec::with_capacity(items.len());
    for item in items {
        all.push(read(item)?);
    }
    Some(all)
}

/// [`InPlaceParts::gather`] of parts cut by `cut`, `len` values in all, each value `read(part, place)`
/// (`plain` parts: a gather with one more load a row, that of its part).
fn gather_in_parts<P, R: Copy + Into<u64>, V>(
    parts: &[P],
    cut: EqualParts,
    len: u64,
    rows: &[R],
    out: &mut [V],
    read: impl Fn(&P, u64) -> Option<V>,
) -> Result<(), u64> {
    for (o, &row) in out.iter_mut().zip(rows) {
        let row = row.into();
        if row >= len {
            return Err(row);
        }
        let (part, place) = cut.locate(row);
        // Located below `len`, so in range; checked all the same, as this loop has no unsafe code.
        let Some(value) = parts.get(part as usize).and_then(|part| read(part, place)) else { return Err(row) };
        *o = value;
    }
    Ok(())
}

/// `out[k] = ` value `rows[k]` of one run of arithmetic values `len` long: the rows checked in a pass of
/// their own first, so the loop that reads them holds no exit.
fn gather_stepped<T: LwcInt, R: Copy + Into<u64> + 'static, V>(
    first: T,
    step: T::Unsigned,
    runs: &EqualRuns,
    len: u64,
    rows: &[R],
    out: &mut [V],
    to_value: impl Fn(T) -> V,
) -> Result<(), u64> {
    let first_past = || rows.iter().map(|&row| row.into()).find(|&row| row >= len).unwrap_or(len);
    if let (Some(rows), Some(runs)) = (positions::as_u32(rows), runs.in_u32()) {
        let value = |bits| to_value(T::from_bits(bits));
        let inside = lookup::stepped(first.to_bits(), step, runs, rows, out, value);
        return inside.then_some(()).ok_or_else(first_past);
    }
    if rows.iter().fold(0, |max, &row| row.into().max(max)) >= len {
        return Err(first_past());
    }
    for (o, &row) in out.iter_mut().zip(rows) {
        *o = to_value(stepped_value(first, step, runs, row.into()));
    }
    Ok(())
}

/// The sum, min and max of some values (their count is the caller's): what aggregates of a selection
/// add up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SumMinMax<T> {
    pub sum: i128,
    pub min: Option<T>,
    pub max: Option<T>,
}

impl<T: LwcInt> SumMinMax<T> {
    pub const EMPTY: SumMinMax<T> = SumMinMax { sum: 0, min: None, max: None };

    pub fn of(values: &[T]) -> SumMinMax<T> {
        SumMinMax { sum: T::sum(values), min: values.iter().min().copied(), max: values.iter().max().copied() }
    }

    pub fn merge(self, other: SumMinMax<T>) -> SumMinMax<T> {
        let pick = |a: Option<T>, b: Option<T>, f: fn(T, T) -> T| match (a, b) {
            (Some(a), Some(b)) => Some(f(a, b)),
            (a, b) => a.or(b),
        };
        SumMinMax {
            sum: self.sum + other.sum,
            min: pick(self.min, other.min, T::min),
            max: pick(self.max, other.max, T::max),
        }
    }
}

/// How a view is opened: its bytes validated once, for a stream of `n` values `depth` streams deep (child
/// streams open at `depth + 1`; the reader bounds the depth). What a view says of itself for the cascade
/// it was written with comes with it.
pub(crate) trait OpenStream<'a, T: LwcInt>: Sized {
    fn open(r: &mut Reader<'a>, n: usize, depth: usize) -> Result<Self>;

    /// The stream as packed fields plus a base, when that is what it is (`for`, `bitpack`): for readers
    /// that read a few values at a time in a loop and so would pay a dispatch per value. It borrows the
    /// stream's bytes, not the view.
    fn frame(&self) -> Option<Frame<'a, T>> {
        None
    }

    /// How the stream reads a lone value where it lies, when it does so without decoding anything else
    /// or dispatching on a child: its [`OpenStream::frame`] by default. Like the frame it outlives the
    /// view, so a column gathers its segments' readers once.
    fn in_place(&self) -> Option<InPlace<'a, T>> {
        self.frame().map(InPlace::Frame)
    }

    /// The encoding's parameter as the bytes say (for_n's block, delta's stride), `None` without one.
    fn parameter(&self) -> Option<u32> {
        None
    }

    /// The cascades of the child streams, in the encoding's child order.
    fn child_cascades(&self) -> Vec<Cascade> {
        Vec::new()
    }
}

/// Large views sit behind a box, so the dispatch enum stays small.
impl<'a, T: LwcInt, V: OpenStream<'a, T>> OpenStream<'a, T> for Box<V> {
    fn open(r: &mut Reader<'a>, n: usize, depth: usize) -> Result<Self> {
        Ok(Box::new(V::open(r, n, depth)?))
    }
    fn parameter(&self) -> Option<u32> {
        (**self).parameter()
    }
    fn child_cascades(&self) -> Vec<Cascade> {
        (**self).child_cascades()
    }
    fn frame(&self) -> Option<Frame<'a, T>> {
        (**self).frame()
    }
    fn in_place(&self) -> Option<InPlace<'a, T>> {
        (**self).in_place()
    }
}

/// Positions in one block of [`BLOCK`] values from which decoding the block beats reading them one by
/// one: with gathers at about 0.8 ns a position and a block decode at about 75 ns, the crossover sits
/// near 250 (`lwc-bench access`, take 10^4 sorted: 150 a block, 2.1x faster read one by one than
/// with a threshold of 96).
pub(crate) const DENSE_BLOCK: usize = 256;

/// The operations every encoded stream answers. Positions passed in are `< len()`; callers check.
pub(crate) trait StreamOps<T: LwcInt> {
    /// Values in the stream.
    fn len(&self) -> usize;

    /// `out = values[start .. start + out.len()]`.
    fn decode_into(&self, start: usize, out: &mut [T]);

    /// For streams of float latents: `out` = the floats' bits (not their latents) of rows
    /// `start .. start + out.len()`, for encodings that read floats back directly (`alp`), which saves the
    /// two passes from floats to latents and back. `false` (out untouched) from the others.
    fn decode_floats_into(&self, _start: usize, _out: &mut [T]) -> bool {
        false
    }

    /// One value, O(1).
    fn get(&self, i: usize) -> T;

    /// The sum of values `start .. start + len` wrapping in the unsigned word: what a walk over deltas adds
    /// to move past them without writing them out. Decoded a chunk at a time, unless the encoding sums
    /// its encoded form (packed fields and their base).
    fn wrapping_sum(&self, start: usize, len: usize) -> T {
        wrapping_sum_decoded(self, start, len)
    }

    /// Whether [`StreamOps::wrapping_sum`] sums the encoded form where it lies instead of decoding: packed
    /// fields and their base (their [`OpenStream::frame`]), and what reads as them.
    fn sums_in_place(&self) -> bool {
        false
    }

    /// About how many values one [`StreamOps::get`] decodes or probes: 1 where a value is read in place;
    /// a stride's walk for `delta`, a search for `rle`, a block's decompression for `lz4`. A take weighs
    /// its positions by it against decoding what they span ([`StreamOps::take_bounded`]), so no take costs much
    /// more than decoding and gathering.
    fn get_cost(&self) -> usize {
        1
    }

    /// About what one [`StreamOps::rank`] costs, in the unit of [`StreamOps::get_cost`]: a bisection's gets,
    /// each probe priced at [`PROBE_COST`] for waiting on the one before; an encoding that ranks without
    /// probing says so (a sequence divides).
    fn rank_cost(&self) -> usize {
        self.get_cost() + self.len().max(1).ilog2() as usize * PROBE_COST
    }

    /// How many values are at most `value`, in a stream whose values ascend (run ends): a search, by
    /// bisection over [`StreamOps::get`] unless the encoding finds it faster (a sequence divides, delta
    /// searches its data points and walks one stride).
    fn rank(&self, value: T) -> usize {
        // Without a branch on the comparison (a select instead), which unpredictable values would
        // mispredict. The rank lies in `base ..= base + size`.
        let (mut base, mut size) = (0, self.len());
        if size == 0 {
            return 0;
        }
        while size > 1 {
            let half = size / 2;
            base = if self.get(base + half) <= value { base + half } else { base };
            size -= half;
        }
        base + usize::from(self.get(base) <= value)
    }

    /// `out[k] = values[positions[k]]`, positions in any order.
    fn take_into(&self, positions: &[u32], out: &mut [T]) {
        for (o, &p) in out.iter_mut().zip(positions) {
            *o = self.get(p as usize);
        }
    }

    /// As [`StreamOps::take_into`] for ascending positions: a block holding at least [`DENSE_BLOCK`]
    /// of them (fewer where a get costs more, see [`StreamOps::get_cost`]) is decoded once into a buffer
    /// that stays in L1 and picked from; the positions between dense blocks are read value by value, in
    /// one call. A list with that many positions in each block it spans, on average, goes by
    /// [`StreamOps::take_sorted_windowed`] instead: decoding all it spans then costs no more than its
    /// gets, and windows of several blocks save a probe, a search and a call per block (50 % match
    /// vectors of the TPC-H keys under `for` and `for_n`: 0.66-1.07x the time, AMD EPYC Zen 4).
    fn take_sorted_into(&self, positions: &[u32], out: &mut [T]) {
        let dense_block = (DENSE_BLOCK / self.get_cost()).max(1);
        if let (Some(&first), Some(&last)) = (positions.first(), positions.last()) {
            let blocks = (last as usize / BLOCK - first as usize / BLOCK) + 1;
            if positions.len() >= blocks.saturating_mul(dense_block) {
                return self.take_sorted_windowed(positions, out);
            }
        }
        if !has_dense_block(positions, BLOCK as u32, dense_block) {
            return self.take_into(positions, out);
        }
        let mut buf = [T::default(); BLOCK];
        let (mut k, mut sparse_from) = (0, 0);
        while k < positions.len() {
            let end = (positions[k] as usize / BLOCK + 1) * BLOCK;
            // One probe says whether the block is dense; sparse runs are short, so step over them.
            let dense = positions.get(k + dense_block - 1).is_some_and(|&p| (p as usize) < end);
            if !dense {
                while k < positions.len() && (positions[k] as usize) < end {
                    k += 1;
                }
                continue;
            }
            let run = positions[k..].partition_point(|&p| (p as usize) < end);
            // Skipped when empty: a call with no positions still costs a dispatch, about a third of
            // what picking a dense block's positions does.
            if sparse_from < k {
                self.take_into(&positions[sparse_from..k], &mut out[sparse_from..k]);
            }
            let start = end - BLOCK;
            let len = (self.len() - start).min(BLOCK);
            self.decode_into(start, &mut buf[..len]);
            lookup::pick(&buf[..len], start as u32, &positions[k..k + run], &mut out[k..k + run]);
            k += run;
            sparse_from = k;
        }
        if sparse_from < positions.len() {
            self.take_into(&positions[sparse_from..], &mut out[sparse_from..]);
        }
    }

    /// Sets bit `i` of `out` (all clear on entry) for every value with `lo <= value <= hi`.
    fn filter_range(&self, lo: T, hi: T, out: &mut Bitmap) {
        let span = hi.offset_from(lo);
        self.for_each_block(|start, block| {
            scan::filter_range_plain(
                bytemuck::cast_slice(block),
                lo.to_bits(),
                span,
                &mut out.words_mut()[start / 64..],
            );
        });
    }

    /// Sets bit `i` of `out` for every value in `set` (sorted, distinct, non-empty).
    fn filter_in(&self, set: &[T], out: &mut Bitmap) {
        let membership = scan::Membership::new(set);
        self.for_each_block(|start, block| membership.filter(block, &mut out.words_mut()[start / 64..]));
    }

    /// Sum of all values.
    fn sum(&self) -> i128 {
        let mut sum = 0;
        self.for_each_block(|_, block| sum += T::sum(block));
        sum
    }

    /// The sum of all (`None`) or the selected values read as floats, for streams of float latents whose
    /// encoding sums on its encoded form (`alp`); `None` from the others, whose values the caller decodes.
    fn float_sum(&self, _selection: Option<&Selection>) -> Option<f64> {
        None
    }

    /// Sum, min and max of the selected values.
    fn aggregate(&self, selection: &Selection) -> SumMinMax<T> {
        let mut acc = SumMinMax::EMPTY;
        self.for_each_selected(selection, |values| acc = acc.merge(SumMinMax::of(values)));
        acc
    }

    /// Calls `f` with the selected values, in order, up to [`BLOCK`] at a time: a bitmap's blocks are
    /// decoded and compacted, a position list taken with [`StreamOps::take_sorted_bounded`].
    fn for_each_selected(&self, selection: &Selection, mut f: impl FnMut(&[T])) {
        let mut picked = [T::default(); BLOCK];
        match selection {
            Selection::Positions(p) => {
                for chunk in p.chunks(BLOCK) {
                    self.take_sorted_bounded(chunk, &mut picked[..chunk.len()]);
                    f(&picked[..chunk.len()]);
                }
            }
            Selection::Bitmap(bits) => self.for_each_block(|start, block| {
                let words = &bits.words()[start / 64..(start + block.len()).div_ceil(64)];
                let n = compact_selected(block, words, &mut picked);
                f(&picked[..n]);
            }),
        }
    }

    /// About what [`StreamOps::take_into`] of `k` positions in any order costs, in the unit of
    /// [`StreamOps::get_cost`]: `k` gets, unless the encoding's own take does something else (`delta` sorts
    /// long lists and walks them).
    fn unsorted_take_cost(&self, k: usize) -> usize {
        k.saturating_mul(self.get_cost())
    }

    /// How [`StreamOps::take_bounded`] takes `k` positions in any order: by their gets, or by a decode of
    /// the stream, whichever its estimates say costs less; or sorted (a copy) and taken so, where that
    /// costs less than both. The sorted take's estimate is the least sure of the three (a block decode of
    /// `delta` run ends measured 1.5x its estimate), so it is taken only where it wins by a third: an
    /// estimate that far off then costs no more than the other plan. (A margin of half kept `rle` over
    /// o_orderkey from sorting 1,024 positions, priced within 10 % of what the sorted take and a decode
    /// measured, and decoding took 2.2x the time.)
    fn take_plan(&self, k: usize) -> TakePlan {
        let n = self.len();
        let (gets, decode) = (self.unsorted_take_cost(k), self.decode_cost(n));
        // One position has nothing to share a walk with.
        if k > 1 {
            let sorted = k.saturating_mul(SORT_COST).saturating_add(self.sorted_take_cost(k, n));
            if sorted.saturating_mul(3) < gets.min(decode).saturating_mul(2) {
                return TakePlan::Sorted;
            }
        }
        if gets < decode {
            TakePlan::Gets
        } else {
            TakePlan::Decode
        }
    }

    /// Whether [`StreamOps::take_bounded`] of `k` positions in any order decodes the whole stream into one
    /// buffer and gathers from it. Bucketing costs about 2 ns a position, a decode into a buffer of the
    /// whole stream about 0.07 ns a value more than one into a reused window (fresh pages): the crossover
    /// lies near n / 26.
    fn take_decodes_whole(&self, k: usize) -> bool {
        self.take_plan(k) == TakePlan::Decode && k >= self.len() / 32
    }

    /// [`StreamOps::take_into`] that costs at most about a decode of the stream and a gather: where the
    /// positions' gets would decode more values than the stream holds, the stream is decoded once (a
    /// window at a time for short lists) and the positions gathered from it.
    /// Every stream's take goes through here (the dispatch calls it, and encodings do not override it),
    /// so an encoding whose gets walk or search has no cliff, however many positions come.
    ///
    /// Where a sorted take shares work between its positions (`rle` walks its run ends once, `delta` its
    /// strides) and that, with a sort of a copy of the list, costs less than either
    /// ([`StreamOps::take_plan`]), the list is sorted, taken so, and put back in the caller's order.
    fn take_bounded(&self, positions: &[u32], out: &mut [T]) {
        let (n, k) = (self.len(), positions.len());
        match self.take_plan(k) {
            TakePlan::Sorted => return take_by_sorting(self, positions, out),
            TakePlan::Gets => return self.take_into(positions, out),
            TakePlan::Decode => {}
        }
        if self.take_decodes_whole(k) {
            let mut values = vec![T::default(); n];
            self.decode_into(0, &mut values);
            for (o, &p) in out.iter_mut().zip(positions) {
                *o = values[p as usize];
            }
            return;
        }
        // Few positions: grouped by window, then each window that holds any is decoded once and its
        // positions gathered, in the caller's order within it. A window is a power of two, so a position
        // finds its window by a shift; it is longer where a decode starts with a long seek (see
        // [`window_len`]): `delta(65536)` took 1,000 random rows of ps_partkey in 1.6x its decode and a
        // gather when each of a segment's eight windows summed the deltas from its one data point.
        let shift = window_len(DECODE_WINDOW, self.get_cost()).min(n).next_power_of_two().trailing_zeros();
        let size = 1usize << shift;
        let windows = n.div_ceil(size);
        let (starts, order) = group_by_window(positions, shift, windows);
        let mut window = vec![T::default(); n.min(size)];
        for w in 0..windows {
            let picks = &order[starts[w] as usize..starts[w + 1] as usize];
            if picks.is_empty() {
                continue;
            }
            let start = w * size;
            let window = &mut window[..(n - start).min(size)];
            self.decode_into(start, window);
            for &i in picks {
                out[i as usize] = window[positions[i as usize] as usize - start];
            }
        }
    }

    /// About how many values a sorted take of `k` positions spanning `span` rows decodes or probes:
    /// `k` gets, unless the encoding walks its positions and shares work between them (`delta`).
    fn sorted_take_cost(&self, k: usize, _span: usize) -> usize {
        k.saturating_mul(self.get_cost())
    }

    /// About what decoding `rows` rows costs, in the unit of [`StreamOps::sorted_take_cost`] and
    /// [`StreamOps::get_cost`]: a value decoded by a kernel (about 0.2 ns), so `rows` unless the encoding
    /// does more per row (`rle`, `varint`).
    fn decode_cost(&self, rows: usize) -> usize {
        rows
    }

    /// What [`StreamOps::take_sorted_bounded`] of `k` positions spanning `span` rows costs: the
    /// encoding's own sorted take, or a decode of the span where that costs less. The dispatch's sorted
    /// take is the bounded one, so a parent prices a child's take so.
    fn sorted_take_bounded_cost(&self, k: usize, span: usize) -> usize {
        self.sorted_take_cost(k, span).min(self.decode_cost(span))
    }

    /// [`StreamOps::take_sorted_into`] that costs at most about a decode of the rows the positions span
    /// and a gather: where their gets would decode more values than that, the positions are taken by
    /// [`StreamOps::take_sorted_windowed`].
    fn take_sorted_bounded(&self, positions: &[u32], out: &mut [T]) {
        let (Some(&first), Some(&last)) = (positions.first(), positions.last()) else { return };
        let span = (last - first) as usize + 1;
        if self.sorted_take_cost(positions.len(), span) < self.decode_cost(span) {
            return self.take_sorted_into(positions, out);
        }
        self.take_sorted_windowed(positions, out);
    }

    /// Ascending positions read by decoding what they span a window at a time and picking from it. A
    /// window starts at the block of its first position (whole kernel groups) and holds
    /// [`PICK_WINDOW_BYTES`] of values, or more where the decode of one starts with a long seek (a get's
    /// worth: `delta`'s data points far apart), so that seeking costs at most about an eighth of
    /// decoding: `delta(65536)` took 50 % match vectors of the TPC-H keys in 0.6-0.76x the time with
    /// windows of the whole segment as with windows of 8,192 values.
    fn take_sorted_windowed(&self, positions: &[u32], out: &mut [T]) {
        let (Some(&first), Some(&last)) = (positions.first(), positions.last()) else { return };
        let span = (last - first) as usize + 1;
        let size = window_len(PICK_WINDOW_BYTES / size_of::<T>(), self.get_cost());
        let mut window = vec![T::default(); (span + BLOCK).min(size)];
        let mut k = 0;
        while k < positions.len() {
            let start = positions[k] as usize / BLOCK * BLOCK;
            let window = &mut window[..(last as usize + 1 - start).min(size)];
            self.decode_into(start, window);
            let end = start + window.len();
            let run = positions[k..].partition_point(|&p| (p as usize) < end);
            lookup::pick(window, start as u32, &positions[k..k + run], &mut out[k..k + run]);
            k += run;
        }
    }

    /// [`StreamOps::aggregate`] with the bound of [`StreamOps::take_bounded`]: a position list whose gets
    /// would decode more values than the stream holds is aggregated as a bitmap, served in one pass.
    fn aggregate_bounded(&self, selection: &Selection) -> SumMinMax<T> {
        match selection {
            Selection::Positions(p) if p.len().saturating_mul(self.get_cost()) >= self.len() => {
                self.aggregate(&Selection::Bitmap(Bitmap::from_positions(p, self.len())))
            }
            _ => self.aggregate(selection),
        }
    }

    /// Calls `f(start, values)` for consecutive blocks of up to [`BLOCK`] values (starts are multiples of it).
    fn for_each_block(&self, mut f: impl FnMut(usize, &[T])) {
        let mut buf = [T::default(); BLOCK];
        for start in (0..self.len()).step_by(BLOCK) {
            let n = (self.len() - start).min(BLOCK);
            self.decode_into(start, &mut buf[..n]);
            f(start, &buf[..n]);
        }
    }
}

/// Moves the values of `block` whose bits are set in `words` (value `i` at bit `i % 64` of word `i / 64`)
/// to the front of `out`, in order, and says how many. Dense words copy branch-free (a filter that keeps
/// most rows leaves few words all ones), sparse ones visit their set bits.
fn compact_selected<T: Copy>(block: &[T], words: &[u64], out: &mut [T]) -> usize {
    let mut k = 0;
    for (chunk, &w) in block.chunks(64).zip(words) {
        if w == u64::MAX && chunk.len() == 64 {
            out[k..k + 64].copy_from_slice(chunk);
            k += 64;
        } else if w.count_ones() >= 16 {
            for (i, &v) in chunk.iter().enumerate() {
                out[k] = v;
                k += ((w >> i) & 1) as usize;
            }
        } else {
            let mut w = w;
            while w != 0 {
                out[k] = chunk[w.trailing_zeros() as usize];
                k += 1;
                w &= w - 1;
            }
        }
    }
    k
}

/// [`StreamOps::wrapping_sum`] by decoding a chunk at a time: for encodings that cannot sum their encoded
/// form, or only sometimes.
pub(crate) fn wrapping_sum_decoded<T: LwcInt>(stream: &(impl StreamOps<T> + ?Sized), start: usize, len: usize) -> T {
    const CHUNK: usize = 64;
    let mut buf = [T::default(); CHUNK];
    let mut sum = T::Unsigned::ZERO;
    for from in (start..start + len).step_by(CHUNK) {
        let chunk = &mut buf[..(start + len - from).min(CHUNK)];
        stream.decode_into(from, chunk);
        sum = chunk.iter().fold(sum, |s, v| s.wrapping_add(v.to_bits()));
    }
    T::from_bits(sum)
}

/// How a take of positions in any order goes (see [`StreamOps::take_plan`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TakePlan {
    /// Each position by its get ([`StreamOps::take_into`]).
    Gets,
    /// Sorted, taken so, and put back ([`take_by_sorting`]).
    Sorted,
    /// The stream decoded and the positions gathered from it.
    Decode,
}

/// Values a take decodes at a time: `base`, or more where the decode of a window starts with a long seek
/// (about a get, `get_cost`: `delta`'s data points far apart), so that seeking costs at most about an
/// eighth of decoding.
fn window_len(base: usize, get_cost: usize) -> usize {
    base.max(get_cost.saturating_mul(8))
}

/// The indices of `positions` grouped by window of `2^shift` values, ascending within each, and
/// where each of the `windows` groups starts (`windows + 1` bounds): a counting sort. It runs over four
/// quarters of the list at once, each counting into and placing from counters of its own, so that
/// positions in one window one after another do not each wait for the store of the one before: 2.5-2.6 ns
/// a position against 3.5-3.8 in one chain, where a take of 10^3 random positions of `lz4` cost 1.5-1.6x
/// its decode and a gather (AMD EPYC Zen 3). Quarter `q`'s indices come before quarter `q + 1`'s in every
/// window, so each group stays in the caller's order.
fn group_by_window(positions: &[u32], shift: u32, windows: usize) -> (Vec<u32>, Vec<u32>) {
    const QUARTERS: usize = 4;
    let quarter = positions.len().div_ceil(QUARTERS).max(1);
    let mut parts = positions.chunks(quarter);
    let parts: [&[u32]; QUARTERS] = std::array::from_fn(|_| parts.next().unwrap_or(&[]));
    // The lengths the four share step by step; the longer quarters' ends go after, one chain each.
    let shared = parts.iter().map(|part| part.len()).min().unwrap_or(0);
    let window = |p: u32| (p as usize) >> shift;
    let mut next = vec![[0u32; QUARTERS]; windows];
    for j in 0..shared {
        for (q, part) in parts.iter().enumerate() {
            next[window(part[j])][q] += 1;
        }
    }
    for (q, part) in parts.iter().enumerate() {
        for &p in &part[shared..] {
            next[window(p)][q] += 1;
        }
    }
    // Counts to first slots: window by window, quarter by quarter.
    let mut starts = Vec::with_capacity(windows + 1);
    let mut slot = 0;
    for counters in &mut next {
        starts.push(slot);
        for counter in counters.iter_mut() {
            (*counter, slot) = (slot, slot + *counter);
        }
    }
    starts.push(slot);
    let mut order = vec![0u32; positions.len()];
    let mut place = |q: usize, j: usize| {
        let counter = &mut next[window(parts[q][j])][q];
        order[*counter as usize] = (q * quarter + j) as u32;
        *counter += 1;
    };
    for j in 0..shared {
        for q in 0..QUARTERS {
            place(q, j);
        }
    }
    for (q, part) in parts.iter().enumerate() {
        for j in shared..part.len() {
            place(q, j);
        }
    }
    (starts, order)
}

/// `out[k] = values[positions[k]]` for positions in any order, taken in ascending order: (position, index)
/// pairs are sorted, the positions taken by [`StreamOps::take_sorted_into`], and each value put back at
/// its index.
pub(crate) fn take_by_sorting<T: LwcInt>(stream: &(impl StreamOps<T> + ?Sized), positions: &[u32], out: &mut [T]) {
    let mut order: Vec<u64> = positions.iter().enumerate().map(|(i, &p)| (p as u64) << 32 | i as u64).collect();
    order.sort_unstable();
    let sorted: Vec<u32> = order.iter().map(|&o| (o >> 32) as u32).collect();
    let mut values = vec![T::default(); sorted.len()];
    stream.take_sorted_into(&sorted, &mut values);
    for (&o, v) in order.iter().zip(values) {
        out[o as u32 as usize] = v;
    }
}

/// What sorting a position costs for [`take_by_sorting`], in values decoded by a kernel: about 15 ns
/// against about 0.2 ns a decoded value (`take` in `examples/delta.rs`).
pub(crate) const SORT_COST: usize = 75;

/// What one probe of a search costs, in values decoded by a kernel ([`StreamOps::get_cost`]'s unit): each
/// probe waits for the load before it, about 8 ns once the data outgrows L1 (16 probes of 65,000 run ends
/// took 133 ns a position, Intel Xeon) against about 0.25 ns a decoded value. Priced as one value, a take
/// of 10^4 random rows of `rle` bisected its ends where decoding the segment cost a tenth as much.
const PROBE_COST: usize = 32;

/// Values decoded at a time where a take decodes what its positions span: large enough that encodings
/// whose decode starts with a search (run ends) search rarely, small enough to stay in L2 and, at 64 KiB
/// of `u64`, to come from the allocator's free lists rather than fresh pages.
const DECODE_WINDOW: usize = 8 * BLOCK;

/// Bytes of values decoded at a time where a sorted take picks from windows: half of a 32 KiB L1 data
/// cache, so that the window stays there beside the streams of positions and outputs. Windows of 4,096
/// `u32` took 50 % match vectors of o_orderkey under `for` in 0.8x the time of windows of 8,192, which
/// fill it (AMD EPYC Zen 4).
const PICK_WINDOW_BYTES: usize = 16 * 1024;

/// A child stream of unsigned words (`T::Unsigned`: deltas, exception bits, quotients), behind a trait object.
///
/// A view cannot hold a `StreamView<'a, T::Unsigned>` field: the compiler's implied-bounds inference
/// follows `T::Unsigned::Unsigned...` through the recursive `StreamView` without seeing that the
/// projection is idempotent, and stops with "overflow computing implied lifetime bounds". A trait
/// object ends that walk; calling through it costs the same indirect jump as `StreamView`'s match.
pub(crate) struct WordStream<'a, U: LwcInt> {
    stream: Box<dyn DynStream<U> + Send + Sync + 'a>,
    /// The view's frame, taken before the view went behind `dyn`, where its lifetime is lost.
    frame: Option<Frame<'a, U>>,
}

impl<'a, U: LwcInt> WordStream<'a, U> {
    /// Opens a child stream of `n` values that sits `depth` streams deep.
    pub fn open_nested(r: &mut Reader<'a>, n: usize, depth: usize) -> Result<Self> {
        let view = StreamView::<U>::open_nested(r, n, depth)?;
        Ok(WordStream { frame: view.frame(), stream: Box::new(view) })
    }

    /// The cascade the stream was written with.
    pub fn cascade(&self) -> Cascade {
        self.stream.cascade()
    }

    /// See [`OpenStream::frame`]: like the frame of any view, it outlives the view.
    pub fn frame(&self) -> Option<Frame<'a, U>> {
        self.frame
    }
}

/// [`StreamOps`] without its generic method, so it can sit behind `dyn`, and the cascade.
trait DynStream<U: LwcInt> {
    fn len(&self) -> usize;
    fn decode_into(&self, start: usize, out: &mut [U]);
    fn get(&self, i: usize) -> U;
    fn get_cost(&self) -> usize;
    fn wrapping_sum(&self, start: usize, len: usize) -> U;
    fn sums_in_place(&self) -> bool;
    fn sorted_take_cost(&self, k: usize, span: usize) -> usize;
    fn decode_cost(&self, rows: usize) -> usize;
    fn take_into(&self, positions: &[u32], out: &mut [U]);
    fn take_sorted_into(&self, positions: &[u32], out: &mut [U]);
    fn filter_range(&self, lo: U, hi: U, out: &mut Bitmap);
    fn filter_in(&self, set: &[U], out: &mut Bitmap);
    fn sum(&self) -> i128;
    fn aggregate(&self, selection: &Selection) -> SumMinMax<U>;
    fn cascade(&self) -> Cascade;
}

impl<U: LwcInt> DynStream<U> for StreamView<'_, U> {
    fn len(&self) -> usize {
        StreamOps::len(self)
    }
    fn decode_into(&self, start: usize, out: &mut [U]) {
        StreamOps::decode_into(self, start, out)
    }
    fn get(&self, i: usize) -> U {
        StreamOps::get(self, i)
    }
    fn get_cost(&self) -> usize {
        StreamOps::get_cost(self)
    }
    fn wrapping_sum(&self, start: usize, len: usize) -> U {
        StreamOps::wrapping_sum(self, start, len)
    }
    fn sums_in_place(&self) -> bool {
        StreamOps::sums_in_place(self)
    }
    fn sorted_take_cost(&self, k: usize, span: usize) -> usize {
        StreamOps::sorted_take_cost(self, k, span)
    }
    fn decode_cost(&self, rows: usize) -> usize {
        StreamOps::decode_cost(self, rows)
    }
    fn take_into(&self, positions: &[u32], out: &mut [U]) {
        StreamOps::take_into(self, positions, out)
    }
    fn take_sorted_into(&self, positions: &[u32], out: &mut [U]) {
        StreamOps::take_sorted_into(self, positions, out)
    }
    fn filter_range(&self, lo: U, hi: U, out: &mut Bitmap) {
        StreamOps::filter_range(self, lo, hi, out)
    }
    fn filter_in(&self, set: &[U], out: &mut Bitmap) {
        StreamOps::filter_in(self, set, out)
    }
    fn sum(&self) -> i128 {
        StreamOps::sum(self)
    }
    fn aggregate(&self, selection: &Selection) -> SumMinMax<U> {
        StreamOps::aggregate(self, selection)
    }
    fn cascade(&self) -> Cascade {
        StreamView::cascade(self)
    }
}

impl<U: LwcInt> StreamOps<U> for WordStream<'_, U> {
    fn len(&self) -> usize {
        self.stream.len()
    }
    fn decode_into(&self, start: usize, out: &mut [U]) {
        self.stream.decode_into(start, out)
    }
    #[inline(always)]
    fn get(&self, i: usize) -> U {
        self.stream.get(i)
    }
    fn get_cost(&self) -> usize {
        self.stream.get_cost()
    }
    fn wrapping_sum(&self, start: usize, len: usize) -> U {
        self.stream.wrapping_sum(start, len)
    }
    fn sums_in_place(&self) -> bool {
        self.stream.sums_in_place()
    }
    fn sorted_take_cost(&self, k: usize, span: usize) -> usize {
        self.stream.sorted_take_cost(k, span)
    }
    fn decode_cost(&self, rows: usize) -> usize {
        self.stream.decode_cost(rows)
    }
    fn take_into(&self, positions: &[u32], out: &mut [U]) {
        self.stream.take_into(positions, out)
    }
    fn take_sorted_into(&self, positions: &[u32], out: &mut [U]) {
        self.stream.take_sorted_into(positions, out)
    }
    fn filter_range(&self, lo: U, hi: U, out: &mut Bitmap) {
        self.stream.filter_range(lo, hi, out)
    }
    fn filter_in(&self, set: &[U], out: &mut Bitmap) {
        self.stream.filter_in(set, out)
    }
    fn sum(&self) -> i128 {
        self.stream.sum()
    }
    fn aggregate(&self, selection: &Selection) -> SumMinMax<U> {
        self.stream.aggregate(selection)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::Writer;
    use crate::encodings::test_shapes::l_orderkey;
    use crate::encodings::{encode_stream, StreamView};

    /// Every index lands in its position's window, each window's indices ascend, and none is lost, for
    /// lists shorter than four, of lengths four does not divide, and over windows left empty.
    #[test]
    fn positions_group_by_window_in_order() {
        let n = 5 * DECODE_WINDOW + 17;
        let windows = n.div_ceil(DECODE_WINDOW);
        for k in [0, 1, 3, 4, 5, 7, 1000, 4099] {
            let positions: Vec<u32> =
                (0..k as u64).map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as u32 % n as u32).collect();
            let mut skewed = positions.clone();
            skewed.iter_mut().skip(k / 3).for_each(|p| *p %= DECODE_WINDOW as u32); // most in window 0
            for positions in [positions, skewed] {
                let (starts, order) = group_by_window(&positions, DECODE_WINDOW.trailing_zeros(), windows);
                assert_eq!((starts.len(), starts[0] as usize, starts[windows] as usize), (windows + 1, 0, k));
                let mut seen = vec![false; k];
                for w in 0..windows {
                    let group = &order[starts[w] as usize..starts[w + 1] as usize];
                    assert!(group.windows(2).all(|pair| pair[0] < pair[1]), "{k} positions: window {w} out of order");
                    for &i in group {
                        assert_eq!(positions[i as usize] as usize / DECODE_WINDOW, w, "{k} positions: index {i}");
                        seen[i as usize] = true;
                    }
                }
                assert!(seen.iter().all(|&s| s), "{k} positions: an index is missing");
            }
        }
    }

    /// Every density of word (empty, sparse, dense, full) and a short last chunk keep exactly the set bits.
    #[test]
    fn compaction_keeps_the_selected_values_in_order() {
        let block: Vec<u32> = (0..200).collect();
        let words = [0u64, 0x8000_0000_0000_0101, 0xFFFF_FFFF_FFFF_7FFF, u64::MAX, 0b1011];
        for cut in [200, 192, 130, 64, 1] {
            let kept: Vec<u32> = (0..cut as u32).filter(|&i| words[i as usize / 64] >> (i % 64) & 1 == 1).collect();
            let mut out = [0u32; BLOCK];
            let n = compact_selected(&block[..cut], &words[..cut.div_ceil(64)], &mut out);
            assert_eq!(&out[..n], &kept[..], "{cut} values");
        }
    }

    /// Takes through encodings whose gets walk or search, on a stream longer than a decode window: sparse
    /// lists (the encoding's own take), dense ones (windows, across their boundaries), lists longer
    /// than the stream (decode everything), sorted and not, and aggregates of them.
    #[test]
    fn bounded_takes_agree_with_the_values() {
        let values = l_orderkey(70_000);
        let n = values.len() as u32;
        for cascade in [
            "rle(delta(dict), delta)",
            "rle",
            "delta",
            "delta:16(dict, plain)",
            "delta:4096",
            "delta:65536",
            "delta2",
            "varint",
            "lz4",
            "bitpack",
        ] {
            let mut w = Writer::new();
            encode_stream(&values, &cascade.parse().unwrap(), Default::default(), &mut w).unwrap();
            let bytes = w.into_aligned();
            let view = StreamView::<u32>::open(&mut Reader::new(&bytes), values.len()).unwrap();
            assert_eq!(
                StreamOps::get_cost(&view) > 1,
                cascade != "bitpack",
                "{cascade}: get cost {}",
                StreamOps::get_cost(&view)
            );
            let sparse: Vec<u32> = (0..n).step_by(4099).collect();
            let dense: Vec<u32> = (3..n).step_by(3).chain([n - 1, n - 1]).collect();
            let scattered = |k: u32| (0..k).map(|i| i.wrapping_mul(2_654_435_761) % n).collect::<Vec<u32>>();
            // Fewer than one in 32 (decoded by windows), and more than the rows.
            for positions in [sparse, dense, scattered(300), scattered(2 * n + 5)] {
                let expected: Vec<u32> = positions.iter().map(|&p| values[p as usize]).collect();
                let mut out = vec![0; positions.len()];
                StreamOps::take_into(&view, &positions, &mut out);
                assert!(out == expected, "{cascade}: take of {} positions", positions.len());
                let mut sorted = positions.clone();
                sorted.sort_unstable();
                let expected: Vec<u32> = sorted.iter().map(|&p| values[p as usize]).collect();
                StreamOps::take_sorted_into(&view, &sorted, &mut out);
                assert!(out == expected, "{cascade}: sorted take of {} positions", positions.len());
                sorted.dedup(); // a selection's positions are distinct
                let expected: Vec<u32> = sorted.iter().map(|&p| values[p as usize]).collect();
                let aggregate = StreamOps::aggregate(&view, &Selection::Positions(sorted));
                assert_eq!(aggregate, SumMinMax::of(&expected), "{cascade}: aggregate of {} rows", expected.len());
            }
        }
    }
}
