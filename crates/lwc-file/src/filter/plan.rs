//! A [`Filter`] lowered against a file's columns: negations pushed down to the tests (SQL's three-valued
//! logic kept: `NOT (x > 5)` selects the non-null rows where `x > 5` is false), each test typed for its
//! column's storage, answered from a segment's zone map where it can be and on the encoded segment where it
//! cannot.

use std::ops::Range;

use arrow_array::cast::AsArray;
use arrow_array::types::{Decimal128Type, Float16Type, Float32Type, Float64Type};
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;
use lwc::strings::{BytesPredicate, ZoneMap};
use lwc::{Bitmap, LwcInt, Predicate, Value, ZoneVerdict};

use super::literal::{key_bound, literal_bytes, Bound, Keys};
use super::{CompareOp, Filter, Literal, Test};
use crate::chunk::ChunkRef;
use crate::decode::{decode_chunk, open_bytes_segment, open_value_segment};
use crate::error::{Error, Result};
use crate::info::{ColumnInfo, SegmentInfo};
use crate::schema::Storage;

/// What one test asks of its column, in the column's own terms.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Lowered {
    /// A comparison with NULL: never true, and never false either (so its negation selects nothing too).
    Unknown,
    /// No non-null row can pass (`x = 2.5` in an integer column); its negation is every non-null row.
    Empty,
    /// A predicate on the column's keys (see [`Keys`]).
    Keys(Keys, Predicate<i128>),
    /// A predicate on byte strings.
    Bytes(BytesPredicate),
}

/// One lowered test of one column.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Condition {
    /// The column's index in the file.
    pub(crate) column: usize,
    pub(crate) test: Lowered,
    /// Selects the non-null rows that fail the test instead.
    pub(crate) negated: bool,
}

/// A filter ready to run: and/or over conditions.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Plan {
    Condition(Condition),
    And(Vec<Plan>),
    Or(Vec<Plan>),
}

/// Which rows of a stretch of rows a plan selects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Rows {
    None,
    All,
    Some(Bitmap),
}

impl Rows {
    /// A bitmap, collapsed to [`Rows::None`] or [`Rows::All`] when it is one.
    pub(crate) fn from_bitmap(bits: Bitmap) -> Rows {
        match bits.count_ones() {
            0 => Rows::None,
            n if n == bits.len() => Rows::All,
            _ => Rows::Some(bits),
        }
    }

    fn from_verdict(verdict: ZoneVerdict) -> Option<Rows> {
        match verdict {
            ZoneVerdict::NoRow => Some(Rows::None),
            ZoneVerdict::EveryRow => Some(Rows::All),
            ZoneVerdict::SomeRows => None,
        }
    }

    /// Rows selected, out of `len`.
    pub(crate) fn count(&self, len: usize) -> usize {
        match self {
            Rows::None => 0,
            Rows::All => len,
            Rows::Some(b) => b.count_ones(),
        }
    }
}

/// The keys a column of this storage compares; `None` for byte strings.
fn keys_of(storage: Storage) -> Option<Keys> {
    match storage {
        Storage::Values(lwc::ValueType::F32) | Storage::Plain(2 | 4) => Some(Keys::F32),
        Storage::Values(lwc::ValueType::F64) | Storage::Plain(8) => Some(Keys::F64),
        Storage::Values(t) => Some(Keys::Int(t)),
        Storage::Plain(_) => Some(Keys::Wide),
        Storage::Bytes(_) | Storage::LegacyBytes => None,
    }
}

impl Plan {
    /// Lowers `filter` against the columns of a file.
    pub(crate) fn new(filter: &Filter, columns: &[ColumnInfo]) -> Result<Plan> {
        lower(filter, false, columns)
    }

    /// The test, in `T`'s terms, when the whole plan is one test of `column`'s values that selects the rows
    /// passing it (not negated): then one pass over a segment can filter and aggregate.
    pub(crate) fn own_values_test<T: Value>(&self, column: usize) -> Option<Predicate<T>> {
        match self {
            Plan::Condition(Condition { column: c, test: Lowered::Keys(_, p), negated: false }) if *c == column => {
                Some(narrow::<T>(p))
            }
            _ => None,
        }
    }

    /// The columns the plan reads.
    pub(crate) fn columns(&self, out: &mut Vec<usize>) {
        match self {
            Plan::Condition(c) => {
                if !out.contains(&c.column) {
                    out.push(c.column)
                }
            }
            Plan::And(all) | Plan::Or(all) => all.iter().for_each(|p| p.columns(out)),
        }
    }

    /// What the zone maps of the segments at hand settle: `segment(column)` is the footer entry of the
    /// segment of `column` holding the rows in question.
    pub(crate) fn zone_verdict<'s>(
        &self,
        columns: &[ColumnInfo],
        segment: &impl Fn(usize) -> &'s SegmentInfo,
    ) -> ZoneVerdict {
        match self {
            Plan::Condition(c) => c.zone_verdict(columns[c.column].storage, segment(c.column)),
            Plan::And(all) => {
                let verdicts = all.iter().map(|p| p.zone_verdict(columns, segment));
                let mut every = true;
                for v in verdicts {
                    match v {
                        ZoneVerdict::NoRow => return ZoneVerdict::NoRow,
                        ZoneVerdict::SomeRows => every = false,
                        ZoneVerdict::EveryRow => {}
                    }
                }
                if every {
                    ZoneVerdict::EveryRow
                } else {
                    ZoneVerdict::SomeRows
                }
            }
            Plan::Or(any) => {
                let mut none = true;
                for v in any.iter().map(|p| p.zone_verdict(columns, segment)) {
                    match v {
                        ZoneVerdict::EveryRow => return ZoneVerdict::EveryRow,
                        ZoneVerdict::SomeRows => none = false,
                        ZoneVerdict::NoRow => {}
                    }
                }
                if none {
                    ZoneVerdict::NoRow
                } else {
                    ZoneVerdict::SomeRows
                }
            }
        }
    }

    /// The rows the plan selects; `condition(c)` evaluates one condition on them (after
    /// the zone maps in `verdict` had their say). And stops at the first condition that selects
    /// nothing, or stops at the first that selects everything.
    pub(crate) fn evaluate<'s>(
        &self,
        columns: &[ColumnInfo],
        segment: &impl Fn(usize) -> &'s SegmentInfo,
        condition: &impl Fn(&Condition) -> Result<Bitmap>,
    ) -> Result<Rows> {
        if let Some(settled) = Rows::from_verdict(self.zone_verdict(columns, segment)) {
            return Ok(settled);
        }
        match self {
            Plan::Condition(c) => Ok(Rows::from_bitmap(condition(c)?)),
            Plan::And(all) => {
                let mut acc = Rows::All;
                for p in all {
                    acc = match (acc, p.evaluate(columns, segment, condition)?) {
                        (_, Rows::None) => return Ok(Rows::None),
                        (Rows::All, r) => r,
                        (r, Rows::All) => r,
                        (Rows::Some(mut a), Rows::Some(b)) => {
                            a.and_words(b.words());
                            Rows::from_bitmap(a)
                        }
                        (Rows::None, _) => unreachable!("returned above"),
                    };
                    if acc == Rows::None {
                        return Ok(Rows::None);
                    }
                }
                Ok(acc)
            }
            Plan::Or(any) => {
                let mut acc = Rows::None;
                for p in any {
                    acc = match (acc, p.evaluate(columns, segment, condition)?) {
                        (_, Rows::All) => return Ok(Rows::All),
                        (Rows::None, r) => r,
                        (r, Rows::None) => r,
                        (Rows::Some(mut a), Rows::Some(b)) => {
                            a.or_words(b.words());
                            Rows::from_bitmap(a)
                        }
                        (Rows::All, _) => unreachable!("returned above"),
                    };
                    if acc == Rows::All {
                        return Ok(Rows::All);
                    }
                }
                Ok(acc)
            }
        }
    }
}

/// Lowers `filter` (negated when `negated`), pushing negations down to the tests by De Morgan.
fn lower(filter: &Filter, negated: bool, columns: &[ColumnInfo]) -> Result<Plan> {
    let all = |parts: &[Filter], negated| parts.iter().map(|f| lower(f, negated, columns)).collect::<Result<Vec<_>>>();
    Ok(match (filter, negated) {
        (Filter::Not(inner), _) => lower(inner, !negated, columns)?,
        (Filter::And(parts), false) | (Filter::Or(parts), true) => Plan::And(all(parts, negated)?),
        (Filter::Or(parts), false) | (Filter::And(parts), true) => Plan::Or(all(parts, negated)?),
        (Filter::Column { column, test: Test::Between(lo, hi) }, _) if lo.is_null() || hi.is_null() => {
            // `x BETWEEN NULL AND 5` is `x >= NULL AND x <= 5`: false where `x > 5`, unknown elsewhere.
            let halves = Filter::And(vec![
                Filter::compare(column.clone(), CompareOp::GtEq, lo.clone()),
                Filter::compare(column.clone(), CompareOp::LtEq, hi.clone()),
            ]);
            lower(&halves, negated, columns)?
        }
        (Filter::Column { column, test }, _) => {
            let index = columns.iter().position(|c| &c.name == column).ok_or_else(|| Error::ColumnNotFound {
                name: column.clone(),
                available: columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", "),
            })?;
            let info = &columns[index];
            // Null tests are never unknown: their negation is the other null test, nulls included.
            let (test, negated) = match (test, negated) {
                (Test::IsNull, true) => (&Test::IsNotNull, false),
                (Test::IsNotNull, true) => (&Test::IsNull, false),
                (test, negated) => (test, negated),
            };
            let test = lower_test(test, negated, info)
                .map_err(|message| Error::InvalidFilter { column: column.clone(), message })?;
            Plan::Condition(match (test, negated) {
                // Failing a test no value passes: being a value.
                (Lowered::Empty, true) => Condition { column: index, test: is_not_null(info.storage), negated: false },
                (test, negated) => Condition { column: index, test, negated },
            })
        }
    })
}

fn is_not_null(storage: Storage) -> Lowered {
    match keys_of(storage) {
        Some(keys) => Lowered::Keys(keys, Predicate::IsNotNull),
        None => Lowered::Bytes(BytesPredicate::Compare(Predicate::IsNotNull)),
    }
}

fn lower_test(test: &Test, negated: bool, info: &ColumnInfo) -> std::result::Result<Lowered, String> {
    let data_type = &info.data_type;
    let Some(keys) = keys_of(info.storage) else {
        return lower_bytes_test(test, negated);
    };
    let bound = |l: &Literal| key_bound(l, data_type, keys);
    let keyed = |p: Predicate<i128>| Lowered::Keys(keys, p);
    Ok(match test {
        Test::IsNull => keyed(Predicate::IsNull),
        Test::IsNotNull => keyed(Predicate::IsNotNull),
        Test::StartsWith(_) => return Err(format!("LIKE needs a string or binary column, not {data_type}")),
        Test::Compare(op, literal) => match bound(literal)? {
            None => Lowered::Unknown,
            Some(Bound::Exact(k)) => keyed(compare(*op, k)),
            Some(between) => match op {
                CompareOp::Eq => Lowered::Empty,
                CompareOp::NotEq => keyed(Predicate::IsNotNull),
                CompareOp::Lt | CompareOp::LtEq => {
                    between.at_or_below().map_or(Lowered::Empty, |k| keyed(Predicate::LtEq(k)))
                }
                CompareOp::Gt | CompareOp::GtEq => {
                    between.at_or_above().map_or(Lowered::Empty, |k| keyed(Predicate::GtEq(k)))
                }
            },
        },
        Test::Between(lo, hi) => {
            let (lo, hi) = (bound(lo)?, bound(hi)?);
            match (lo.and_then(Bound::at_or_above), hi.and_then(Bound::at_or_below)) {
                (Some(lo), Some(hi)) if lo <= hi => keyed(Predicate::Between(lo, hi)),
                _ => Lowered::Empty,
            }
        }
        Test::In(items) => {
            if negated && items.iter().any(Literal::is_null) {
                return Ok(Lowered::Unknown);
            }
            let mut set = Vec::new();
            for item in items {
                if let Some(Bound::Exact(k)) = bound(item)? {
                    set.push(k);
                }
            }
            // Sorted once here, so each segment slices it to its zone instead of sorting it again.
            set.sort_unstable();
            set.dedup();
            if set.is_empty() {
                Lowered::Empty
            } else {
                keyed(Predicate::In(set))
            }
        }
    })
}

fn compare<T>(op: CompareOp, c: T) -> Predicate<T> {
    match op {
        CompareOp::Eq => Predicate::Eq(c),
        CompareOp::NotEq => Predicate::NotEq(c),
        CompareOp::Lt => Predicate::Lt(c),
        CompareOp::LtEq => Predicate::LtEq(c),
        CompareOp::Gt => Predicate::Gt(c),
        CompareOp::GtEq => Predicate::GtEq(c),
    }
}

fn lower_bytes_test(test: &Test, negated: bool) -> std::result::Result<Lowered, String> {
    let bytes = |p: Predicate<Vec<u8>>| Lowered::Bytes(BytesPredicate::Compare(p));
    Ok(match test {
        Test::IsNull => bytes(Predicate::IsNull),
        Test::IsNotNull => bytes(Predicate::IsNotNull),
        Test::StartsWith(prefix) => Lowered::Bytes(BytesPredicate::StartsWith(prefix.clone())),
        Test::Compare(op, literal) => match literal_bytes(literal)? {
            None => Lowered::Unknown,
            Some(v) => bytes(compare(*op, v)),
        },
        Test::Between(lo, hi) => match (literal_bytes(lo)?, literal_bytes(hi)?) {
            (Some(lo), Some(hi)) => bytes(Predicate::Between(lo, hi)),
            _ => Lowered::Unknown,
        },
        Test::In(items) => {
            if negated && items.iter().any(Literal::is_null) {
                return Ok(Lowered::Unknown);
            }
            let set: Vec<Vec<u8>> =
                items.iter().map(literal_bytes).collect::<Result<Vec<_>, _>>()?.into_iter().flatten().collect();
            if set.is_empty() {
                Lowered::Empty
            } else {
                bytes(Predicate::In(set))
            }
        }
    })
}

/// A key as a value of `T` (keys of `T`'s column are `T`'s latents; clamping only guards the invariant).
pub(crate) fn key_to<T: Value>(k: i128) -> T {
    let (min, max) = (<T::Latent as LwcInt>::MIN.to_i128(), <T::Latent as LwcInt>::MAX.to_i128());
    T::from_latent(<T::Latent as LwcInt>::from_i128(k.clamp(min, max)).expect("clamped into range"))
}

/// A key predicate as a predicate on `T`.
fn narrow<T: Value>(p: &Predicate<i128>) -> Predicate<T> {
    let k = |v: &i128| key_to::<T>(*v);
    match p {
        Predicate::Eq(c) => Predicate::Eq(k(c)),
        Predicate::NotEq(c) => Predicate::NotEq(k(c)),
        Predicate::Lt(c) => Predicate::Lt(k(c)),
        Predicate::LtEq(c) => Predicate::LtEq(k(c)),
        Predicate::Gt(c) => Predicate::Gt(k(c)),
        Predicate::GtEq(c) => Predicate::GtEq(k(c)),
        Predicate::Between(lo, hi) => Predicate::Between(k(lo), k(hi)),
        Predicate::In(set) => Predicate::In(set.iter().map(k).collect()),
        Predicate::IsNull => Predicate::IsNull,
        Predicate::IsNotNull => Predicate::IsNotNull,
    }
}

/// Whether a row with key `key` (`None`: NULL) passes `p`, keys in their total order.
fn key_matches(p: &Predicate<i128>, key: Option<i128>) -> bool {
    let Some(x) = key else { return matches!(p, Predicate::IsNull) };
    match p {
        Predicate::Eq(c) => x == *c,
        Predicate::NotEq(c) => x != *c,
        Predicate::Lt(c) => x < *c,
        Predicate::LtEq(c) => x <= *c,
        Predicate::Gt(c) => x > *c,
        Predicate::GtEq(c) => x >= *c,
        Predicate::Between(lo, hi) => *lo <= x && x <= *hi,
        Predicate::In(set) => set.contains(&x),
        Predicate::IsNull => false,
        Predicate::IsNotNull => true,
    }
}

impl Condition {
    /// What the footer's entry for the segment settles.
    fn zone_verdict(&self, storage: Storage, s: &SegmentInfo) -> ZoneVerdict {
        let (rows, nulls) = (s.rows as usize, s.nulls as usize);
        let verdict = match (&self.test, storage) {
            (Lowered::Unknown, _) => return ZoneVerdict::NoRow,
            (Lowered::Empty, _) => ZoneVerdict::NoRow,
            (Lowered::Keys(_, p), Storage::Values(t)) => value_dispatch!(t, T => {
                let min_max = s.min.zip(s.max).map(|(lo, hi)| (key_to::<T>(lo), key_to::<T>(hi)));
                narrow::<T>(p).zone_verdict(min_max, rows, nulls)
            }),
            (Lowered::Bytes(p), Storage::Bytes(_)) => {
                let zone =
                    s.bytes_zone.as_ref().map(|z| ZoneMap { min: &z.min, max: &z.max, max_is_prefix: z.max_is_prefix });
                p.zone_verdict(zone, rows, nulls)
            }
            // Plain and version 1 segments have no zone map: only the null count speaks.
            (Lowered::Keys(_, Predicate::IsNull) | Lowered::Bytes(BytesPredicate::Compare(Predicate::IsNull)), _) => {
                ZoneVerdict::null_rows(rows, nulls)
            }
            _ if nulls == rows => ZoneVerdict::NoRow,
            (
                Lowered::Keys(_, Predicate::IsNotNull) | Lowered::Bytes(BytesPredicate::Compare(Predicate::IsNotNull)),
                _,
            ) => ZoneVerdict::valid_rows(rows, nulls),
            _ => ZoneVerdict::SomeRows,
        };
        match (self.negated, verdict) {
            (false, v) => v,
            (true, ZoneVerdict::NoRow) => ZoneVerdict::valid_rows(rows, nulls),
            (true, ZoneVerdict::EveryRow) => ZoneVerdict::NoRow,
            (true, ZoneVerdict::SomeRows) => ZoneVerdict::SomeRows,
        }
    }

    /// The rows of `range` (rows of the segment in `chunk`) that pass, evaluated on the encoded segment
    /// (plain and version 1 segments are decoded first).
    pub(crate) fn evaluate(
        &self,
        chunk: &ChunkRef<'_>,
        data_type: &DataType,
        storage: Storage,
        range: Range<usize>,
    ) -> Result<Bitmap> {
        let words =
            |w: Option<&[u64]>| w.map(|w| Bitmap::from_words(w.to_vec(), chunk.rows).expect("validated length"));
        let (bits, valid) = match (&self.test, storage) {
            (Lowered::Unknown | Lowered::Empty, _) => return Ok(Bitmap::new_clear(range.len())),
            (Lowered::Keys(_, p), Storage::Values(t)) => value_dispatch!(t, T => {
                let segment = open_value_segment::<T>(chunk)?;
                (segment.filter(&narrow::<T>(p)).to_bitmap(chunk.rows), words(segment.validity()))
            }),
            (Lowered::Bytes(p), Storage::Bytes(_)) => {
                let segment = open_bytes_segment(chunk)?;
                (segment.filter(p).to_bitmap(chunk.rows), words(segment.validity()))
            }
            (test, _) => {
                let array = decode_chunk(chunk, data_type, storage, range.clone())?;
                let bits = match test {
                    Lowered::Keys(_, p) => row_matches(&array, |i| key_matches(p, key_of(&array, i))),
                    Lowered::Bytes(p) => row_matches(&array, |i| p.matches(bytes_of(&array, i))),
                    Lowered::Unknown | Lowered::Empty => unreachable!("answered above"),
                };
                return Ok(negate_within(
                    bits,
                    self.negated.then(|| row_matches(&array, |i| array.is_valid(i))),
                    self.negated,
                ));
            }
        };
        if range == (0..chunk.rows) {
            return Ok(negate_within(bits, valid, self.negated));
        }
        Ok(negate_within(bits.slice(range.clone()), valid.map(|v| v.slice(range)), self.negated))
    }
}

/// `bits`, or when `negated`, the valid rows (`None`: all) it does not hold.
fn negate_within(mut bits: Bitmap, valid: Option<Bitmap>, negated: bool) -> Bitmap {
    if negated {
        bits.not();
        if let Some(v) = valid {
            bits.and_words(v.words());
        }
    }
    bits
}

fn row_matches(array: &ArrayRef, pass: impl Fn(usize) -> bool) -> Bitmap {
    let mut bits = Bitmap::new_clear(array.len());
    for i in (0..array.len()).filter(|&i| pass(i)) {
        bits.set(i);
    }
    bits
}

/// Row `i`'s key in a decoded plain column.
pub(crate) fn key_of(array: &ArrayRef, i: usize) -> Option<i128> {
    if array.is_null(i) {
        return None;
    }
    match array.data_type() {
        DataType::Float16 => Some(array.as_primitive::<Float16Type>().value(i).to_f32().to_latent() as i128),
        DataType::Float32 => Some(array.as_primitive::<Float32Type>().value(i).to_latent() as i128),
        DataType::Float64 => Some(array.as_primitive::<Float64Type>().value(i).to_latent() as i128),
        DataType::Decimal128(..) => Some(array.as_primitive::<Decimal128Type>().value(i)),
        _ => None,
    }
}

/// Row `i`'s bytes in a decoded string or binary column.
pub(crate) fn bytes_of(array: &ArrayRef, i: usize) -> Option<&[u8]> {
    if array.is_null(i) {
        return None;
    }
    match array.data_type() {
        DataType::Utf8 => Some(array.as_string::<i32>().value(i).as_bytes()),
        DataType::LargeUtf8 => Some(array.as_string::<i64>().value(i).as_bytes()),
        DataType::Binary => Some(array.as_binary::<i32>().value(i)),
        DataType::LargeBinary => Some(array.as_binary::<i64>().value(i)),
        _ => None,
    }
}
