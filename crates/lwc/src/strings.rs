//! Segments of byte strings (Utf8 and Binary): the header, validity and zone map of one block of rows, a
//! byte-string stream (a sorted dictionary or plain bytes, their codes and offsets integer streams), and the
//! operations a column store asks of them: get, take, decode a range, filter (comparisons, sets, prefixes,
//! nulls) and min/max, evaluated on dictionary codes where the stream is a dictionary.
//!
//! Bytes (little-endian, sections 8-aligned from the segment's start):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 4 | magic `LWS1` |
//! | 4 | 1 | type id: 10 = UTF-8 strings, 11 = binary |
//! | 5 | 1 | flags: bit 0 = a validity bitmap follows; bit 1 = the stored max is a prefix of the max |
//! | 6 | 2 | reserved, zero |
//! | 8 | 4 | rows |
//! | 12 | 4 | null count |
//! | 16 | 4 | stored min length (at most [`ZONE_BYTES`]) |
//! | 20 | 4 | stored max length (at most [`ZONE_BYTES`]) |
//! | 24 | … | the min's first bytes, then the max's first bytes (zero padding to 8) |
//! | … | 8 · ⌈rows / 64⌉ | validity, one bit per row, 1 = not null (only when flagged) |
//! | … | … | the stream: one byte of encoding id, then the encoding's body |
//!
//! The stored min is at most the real one (a prefix of a string never exceeds it), so it bounds every value
//! from below; a max longer than [`ZONE_BYTES`] is stored as its prefix and flagged, and then bounds every
//! value's first bytes from above.
//!
//! ```
//! use lwc::strings::{encode_bytes_segment, BytesPredicate, BytesSegment, BytesType};
//! use lwc::Predicate;
//!
//! let cities: Vec<&[u8]> = (0..3_000).map(|i| ["Oslo", "Lima", "Pune"][i % 3].as_bytes()).collect();
//! let encoded = encode_bytes_segment(&cities, None, BytesType::Utf8, lwc::EncodeOptions::default())?;
//! assert_eq!(encoded.cascade().encoding().id().unwrap().name(), "dict"); // sorted distinct values, codes
//! let segment = BytesSegment::open(&encoded)?;
//! assert_eq!(segment.get(2)?.as_deref(), Some(&b"Pune"[..]));
//! let l = segment.filter(&BytesPredicate::StartsWith(b"L".to_vec())); // a code range
//! assert_eq!(l.count(), 1_000);
//! let after = segment.filter(&Predicate::Gt(b"Lima".to_vec()).into());
//! assert_eq!(after.count(), 2_000);
//! # Ok::<(), lwc::Error>(())
//! ```

use std::borrow::Cow;
use std::ops::Range;
use std::time::Instant;

use crate::bitmap::{get_bit, Bitmap};
use crate::bytes::{Reader, Writer};
use crate::encodings::{ByteArray, ByteProfile, BytesOps, BytesTest, BytesView, Cascade, Encoding, EncodingId};
use crate::error::{Error, Result};
use crate::hashing::short_key;
use crate::predicate::{Predicate, ZoneVerdict};
use crate::segment::{ChoiceOf, EncodeOptions, EncodedSegment, SegmentChoice};
use crate::select::{ChoosingClock, Driver};
use crate::selection::Selection;

const MAGIC: &[u8; 4] = b"LWS1";
const HAS_VALIDITY: u8 = 1;
const MAX_IS_PREFIX: u8 = 2;

/// Bytes of the min and the max a header keeps.
pub const ZONE_BYTES: usize = 64;

/// What the bytes of a byte-string segment are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum BytesType {
    /// UTF-8 text (Arrow `Utf8`, `LargeUtf8`).
    Utf8 = 10,
    /// Any bytes (Arrow `Binary`, `LargeBinary`).
    Binary = 11,
}

impl BytesType {
    /// `"utf8"` or `"binary"`.
    pub fn name(self) -> &'static str {
        match self {
            BytesType::Utf8 => "utf8",
            BytesType::Binary => "binary",
        }
    }

    fn from_id(id: u8) -> Option<BytesType> {
        match id {
            10 => Some(BytesType::Utf8),
            11 => Some(BytesType::Binary),
            _ => None,
        }
    }
}

/// A filter on byte strings: a comparison (byte-wise order, as Arrow compares strings and binaries) or
/// set test, or a prefix (`LIKE 'abc%'`). Comparisons never select NULLs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BytesPredicate {
    /// `=`, `<>`, `<`, `<=`, `>`, `>=`, `between`, `in`, `is null`, `is not null`.
    Compare(Predicate<Vec<u8>>),
    /// Starts with these bytes.
    StartsWith(Vec<u8>),
}

impl From<Predicate<Vec<u8>>> for BytesPredicate {
    fn from(p: Predicate<Vec<u8>>) -> Self {
        BytesPredicate::Compare(p)
    }
}

impl BytesPredicate {
    /// Whether a row holding `value` (`None`: NULL) is selected: the plain semantics every encoded filter
    /// reproduces.
    pub fn matches(&self, value: Option<&[u8]>) -> bool {
        let Some(v) = value else { return matches!(self, BytesPredicate::Compare(Predicate::IsNull)) };
        match self {
            BytesPredicate::StartsWith(p) => v.starts_with(p),
            BytesPredicate::Compare(p) => match p {
                Predicate::Eq(c) => v == c.as_slice(),
                Predicate::NotEq(c) => v != c.as_slice(),
                Predicate::Lt(c) => v < c.as_slice(),
                Predicate::LtEq(c) => v <= c.as_slice(),
                Predicate::Gt(c) => v > c.as_slice(),
                Predicate::GtEq(c) => v >= c.as_slice(),
                Predicate::Between(lo, hi) => lo.as_slice() <= v && v <= hi.as_slice(),
                Predicate::In(set) => set.iter().any(|c| c.as_slice() == v),
                Predicate::IsNull => false,
                Predicate::IsNotNull => true,
            },
        }
    }
}

/// A byte-string segment's zone map: `min` bounds every non-null value from below (it is the min, or its
/// first bytes); `max` is the max or, when `max_is_prefix`, its first bytes, which bound every value's first
/// bytes from above.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZoneMap<'a> {
    /// A lower bound of every value.
    pub min: &'a [u8],
    /// The max, or its first bytes.
    pub max: &'a [u8],
    /// Whether `max` is only the max's first bytes.
    pub max_is_prefix: bool,
}

impl ZoneMap<'_> {
    /// Whether every value is above `c`.
    fn all_above(&self, c: &[u8]) -> bool {
        c < self.min
    }

    /// Whether every value is below `c`.
    fn all_below(&self, c: &[u8]) -> bool {
        match self.max_is_prefix {
            false => c > self.max,
            // Every value's first bytes are at most the stored prefix: values sort below `c` when `c` is
            // past that prefix without extending it.
            true => c > self.max && !c.starts_with(self.max),
        }
    }

    /// Whether every value starts with `p`: the min and the max do (a stored prefix of the max that
    /// starts with `p` means the max does), so everything between them does.
    fn all_start_with(&self, p: &[u8]) -> bool {
        self.min.starts_with(p) && self.max.starts_with(p)
    }
}

/// What a byte-string filter asks of one segment once its zone map is known.
enum Plan<'p> {
    /// No row.
    Nothing,
    /// Every non-null row.
    AllValid,
    /// The null rows.
    Nulls,
    /// Non-null rows that pass the test (or, negated, fail it).
    Test(BytesTest<'p>, bool),
    /// Non-null rows in the set (sorted, distinct, each within the zone map).
    Set(Vec<Vec<u8>>),
}

impl BytesPredicate {
    /// Settles what the zone map can (`None`: every row is null) and says what is left to test.
    fn plan<'p>(&'p self, zone: Option<ZoneMap<'_>>) -> Plan<'p> {
        let zone = match (self, zone) {
            (BytesPredicate::Compare(Predicate::IsNull), _) => return Plan::Nulls,
            (BytesPredicate::Compare(Predicate::IsNotNull), _) => return Plan::AllValid,
            (_, None) => return Plan::Nothing,
            (_, Some(zone)) => zone,
        };
        fn range<'p>(lo: Option<(&'p [u8], bool)>, hi: Option<(&'p [u8], bool)>) -> BytesTest<'p> {
            BytesTest::Range { lo, hi }
        }
        let p = match self {
            BytesPredicate::StartsWith(p) if zone.all_start_with(p) => return Plan::AllValid,
            BytesPredicate::StartsWith(p) if zone.all_below(p) || (zone.all_above(p) && !zone.min.starts_with(p)) => {
                return Plan::Nothing
            }
            BytesPredicate::StartsWith(p) => return Plan::Test(BytesTest::Prefix(p), false),
            BytesPredicate::Compare(p) => p,
        };
        match p {
            Predicate::Eq(c) | Predicate::NotEq(c) if zone.all_above(c) || zone.all_below(c) => {
                if matches!(p, Predicate::Eq(_)) {
                    Plan::Nothing
                } else {
                    Plan::AllValid
                }
            }
            Predicate::Eq(c) => Plan::Test(range(Some((c, true)), Some((c, true))), false),
            Predicate::NotEq(c) => Plan::Test(range(Some((c, true)), Some((c, true))), true),
            Predicate::Lt(c) if c.as_slice() <= zone.min => Plan::Nothing,
            Predicate::Lt(c) if zone.all_below(c) => Plan::AllValid,
            Predicate::Lt(c) => Plan::Test(range(None, Some((c, false))), false),
            Predicate::LtEq(c) if zone.all_above(c) => Plan::Nothing,
            Predicate::LtEq(c) if zone.all_below(c) => Plan::AllValid,
            Predicate::LtEq(c) => Plan::Test(range(None, Some((c, true))), false),
            Predicate::Gt(c) if zone.all_below(c) || (!zone.max_is_prefix && c.as_slice() >= zone.max) => Plan::Nothing,
            Predicate::Gt(c) if zone.all_above(c) => Plan::AllValid,
            Predicate::Gt(c) => Plan::Test(range(Some((c, false)), None), false),
            Predicate::GtEq(c) if zone.all_below(c) => Plan::Nothing,
            Predicate::GtEq(c) if c.as_slice() <= zone.min => Plan::AllValid,
            Predicate::GtEq(c) => Plan::Test(range(Some((c, true)), None), false),
            Predicate::Between(lo, hi) if lo > hi || zone.all_below(lo) || zone.all_above(hi) => Plan::Nothing,
            Predicate::Between(lo, hi) => Plan::Test(range(Some((lo, true)), Some((hi, true))), false),
            Predicate::In(values) => {
                let mut set: Vec<Vec<u8>> =
                    values.iter().filter(|v| !zone.all_above(v) && !zone.all_below(v)).cloned().collect();
                set.sort_unstable();
                set.dedup();
                if set.is_empty() {
                    Plan::Nothing
                } else {
                    Plan::Set(set)
                }
            }
            Predicate::IsNull | Predicate::IsNotNull => unreachable!("settled above"),
        }
    }

    /// What a zone map settles: `zone` bounds the non-null values of `rows` rows, `nulls` of which are
    /// null (`None` when all are).
    ///
    /// ```
    /// use lwc::strings::{BytesPredicate, ZoneMap};
    /// use lwc::ZoneVerdict;
    /// let zone = ZoneMap { min: b"PROMO ANODIZED", max: b"PROMO POLISHED", max_is_prefix: false };
    /// let promo = BytesPredicate::StartsWith(b"PROMO".to_vec());
    /// assert_eq!(promo.zone_verdict(Some(zone), 1000, 0), ZoneVerdict::EveryRow);
    /// let small = BytesPredicate::StartsWith(b"SMALL".to_vec());
    /// assert_eq!(small.zone_verdict(Some(zone), 1000, 0), ZoneVerdict::NoRow);
    /// ```
    pub fn zone_verdict(&self, zone: Option<ZoneMap<'_>>, rows: usize, nulls: usize) -> ZoneVerdict {
        match self.plan(zone) {
            Plan::Nothing => ZoneVerdict::NoRow,
            Plan::AllValid => ZoneVerdict::valid_rows(rows, nulls),
            Plan::Nulls => ZoneVerdict::null_rows(rows, nulls),
            Plan::Test(..) | Plan::Set(_) => ZoneVerdict::SomeRows,
        }
    }
}

/// Count, null count, min and max of byte strings (of a segment, or a selection of it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BytesAggregates {
    /// Non-null rows.
    pub count: u64,
    /// Null rows.
    pub null_count: u64,
    /// Smallest non-null value, byte-wise.
    pub min: Option<Vec<u8>>,
    /// Largest non-null value, byte-wise.
    pub max: Option<Vec<u8>>,
}

impl BytesAggregates {
    /// Nothing aggregated yet.
    pub fn empty() -> Self {
        BytesAggregates { count: 0, null_count: 0, min: None, max: None }
    }

    /// Combines the aggregates of two disjoint sets of rows.
    pub fn merge(self, other: BytesAggregates) -> BytesAggregates {
        let pick = |a: Option<Vec<u8>>, b: Option<Vec<u8>>, smaller: bool| match (a, b) {
            (Some(a), Some(b)) => Some(if (a < b) == smaller { a } else { b }),
            (a, b) => a.or(b),
        };
        BytesAggregates {
            count: self.count + other.count,
            null_count: self.null_count + other.null_count,
            min: pick(self.min, other.min, true),
            max: pick(self.max, other.max, false),
        }
    }
}

/// Encodes one segment of byte strings: `rows[i]` is row `i`'s bytes (ignored where `validity`, bit set =
/// not null, says null). [`crate::encodings::Encoding::Auto`] takes the smaller of a sorted dictionary and plain bytes,
/// and chooses their integer child streams (codes, offsets) for the objective.
pub fn encode_bytes_segment(
    rows: &[&[u8]],
    validity: Option<&Bitmap>,
    kind: BytesType,
    options: impl Into<EncodeOptions>,
) -> Result<EncodedSegment<Vec<u8>>> {
    encode_bytes_segment_after(rows, validity, kind, options, None)
}

/// [`encode_bytes_segment`] for the segment after one whose [`EncodedSegment::choice`] is `previous`: it
/// keeps that cascade without choosing again where the choice applies (see [`SegmentChoice`]), so that
/// no FSST table is trained and no dictionary built only to be estimated.
///
/// ```
/// use lwc::strings::{encode_bytes_segment, encode_bytes_segment_after, BytesType};
/// use lwc::EncodeOptions;
///
/// let options = EncodeOptions::default().explained();
/// let modes = ["AIR", "MAIL", "RAIL", "SHIP", "TRUCK"];
/// let first: Vec<&[u8]> = (0..65_536).map(|i| modes[i * 7 % 5].as_bytes()).collect();
/// let second: Vec<&[u8]> = (0..65_536).map(|i| modes[i * 3 % 5].as_bytes()).collect();
/// let chosen = encode_bytes_segment(&first, None, BytesType::Utf8, &options)?;
/// let kept = encode_bytes_segment_after(&second, None, BytesType::Utf8, &options, chosen.choice())?;
/// assert_eq!(kept.cascade(), chosen.cascade());
/// assert_eq!(kept.choice().unwrap().kept(), 1);
/// assert_eq!(kept.explain().unwrap().choose_ns, 0);
/// # Ok::<(), lwc::Error>(())
/// ```
pub fn encode_bytes_segment_after(
    rows: &[&[u8]],
    validity: Option<&Bitmap>,
    kind: BytesType,
    options: impl Into<EncodeOptions>,
    previous: Option<&SegmentChoice>,
) -> Result<EncodedSegment<Vec<u8>>> {
    let options = options.into();
    let start = Instant::now();
    let n = u32::try_from(rows.len())
        .map_err(|_| Error::InvalidArgument(format!("{} rows exceed a segment's u32 row count", rows.len())))?;
    if let Some(v) = validity {
        if v.len() != rows.len() {
            return Err(Error::InvalidArgument(format!("validity has {} bits for {} rows", v.len(), rows.len())));
        }
    }
    let validity = validity.filter(|v| v.count_ones() < v.len());
    let nulls = validity.map_or(0, |v| v.len() - v.count_ones());
    let valid = |i: usize| validity.is_none_or(|v| v.get(i));
    let (min, max) = extremes(rows, valid).unzip();
    let stored_min = min.map_or(&[][..], |m| &m[..m.len().min(ZONE_BYTES)]);
    let stored_max = max.map_or(&[][..], |m| &m[..m.len().min(ZONE_BYTES)]);
    let max_is_prefix = max.is_some_and(|m| m.len() > ZONE_BYTES);

    // Room for the rows stored plain (bytes and 8-byte ends); what is left over is returned.
    let plain_bytes = rows.iter().map(|r| r.len()).sum::<usize>() + 8 * rows.len();
    let mut w = Writer::with_capacity(2 * ZONE_BYTES + 64 + plain_bytes + rows.len().div_ceil(8));
    w.array(MAGIC);
    w.u8(kind as u8);
    w.u8(if validity.is_some() { HAS_VALIDITY } else { 0 } | if max_is_prefix { MAX_IS_PREFIX } else { 0 });
    w.zeros(2);
    w.u32(n);
    w.u32(nulls as u32);
    w.u32(stored_min.len() as u32);
    w.u32(stored_max.len() as u32);
    w.packed(|b| {
        b.extend_from_slice(stored_min);
        b.extend_from_slice(stored_max);
    });
    if let Some(v) = validity {
        w.array(v.words());
    }
    w.align();
    let header = w.len();
    let profile = ByteProfile::of(rows, validity);
    let clock = ChoosingClock::default();
    let driver = |cascade: Cascade| {
        Driver::new(&options.cost_model, options.objective, cascade, &clock)
            .reading_together(rows.len(), options.working_set_rows)
    };
    // The body's bytes per row, as for values: a dictionary's codes follow the rows whatever their bytes
    // (nulls included), and text whose rows grow longer chooses again.
    let per_row = |w: &Writer| (w.len() - header) as f64 / rows.len().max(1) as f64;
    let of = ChoiceOf::Bytes(kind);
    let mut kept = None;
    if let Some(previous) = previous.filter(|p| p.applies(of, &options)) {
        // Written as the segment before chose, and about as small: kept.
        let keep = |profile: &ByteProfile<'_>, w: &mut Writer| -> Result<Option<_>> {
            match driver(previous.cascade().clone()).encode_bytes(profile, w) {
                Ok(written) => match previous.kept_at(per_row(w)) {
                    Some(choice) => return Ok(Some((written, choice))),
                    None => w.truncate(header),
                },
                // A dictionary where the rows are now all distinct.
                Err(Error::NotApplicable { .. }) => w.truncate(header),
                Err(e) => return Err(e),
            }
            Ok(None)
        };
        // With the chooser's FSST table first, in a profile of its own; where that does not fit, with a
        // table trained on these rows, which choosing then reuses. A table that did not fit is not
        // handed on.
        if let Some(table) = previous.symbol_table() {
            kept = keep(&ByteProfile::of(rows, validity).with_symbol_table(table.clone()), &mut w)?;
        }
        if kept.is_none() {
            kept = keep(&profile, &mut w)?.map(|(written, choice)| (written, choice.with_symbol_table(None)));
        }
    }
    let (written, choice) = match kept {
        Some((written, choice)) => (written, Some(choice)),
        None => {
            let written = driver(options.cascade.clone()).encode_bytes(&profile, &mut w)?;
            let fsst = written.cascade.encoding() == Encoding::BytesFsst;
            let choice = written.evaluation.is_some().then(|| {
                SegmentChoice::chosen(written.cascade.clone(), of, per_row(&w), previous)
                    .with_symbol_table(profile.trained_symbol_table().filter(|_| fsst))
            });
            (written, choice)
        }
    };
    let bytes = w.into_aligned();
    let read_costs = written.read_costs(&options.cost_model, rows.len(), bytes.len());
    let explain = options.explain.then(|| {
        let mut explain =
            written.explain(rows.len(), nulls, options.objective, bytes.len(), read_costs, (clock.get().0, start));
        if let Some(c) = choice.as_ref().filter(|c| c.kept() > 0) {
            explain.reason = c.kept_because();
        }
        explain
    });
    Ok(EncodedSegment {
        bytes,
        rows: rows.len(),
        null_count: nulls,
        min: min.map(<[u8]>::to_vec),
        max: max.map(<[u8]>::to_vec),
        cascade: written.cascade,
        read_costs,
        explain,
        choice,
    })
}

/// The first 8 bytes of `row`, big-endian, zero-padded: where two keys differ, the rows compare as they do.
#[inline]
fn prefix_key(row: &[u8]) -> u64 {
    match row.first_chunk::<8>() {
        Some(head) => u64::from_be_bytes(*head),
        // A short row's bytes, little-endian, by fixed-size loads: a copy into a zeroed word was a `memcpy`
        // call whose partial stores the word's load then waited on, a quarter of this pass's samples.
        None => (short_key(row) as u64).swap_bytes(),
    }
}

/// The least and the greatest of the rows `valid` keeps (`None` without any). Most rows differ from the
/// bounds so far within 8 bytes: comparing prefix keys first leaves two byte comparisons a row to a few.
fn extremes<'r>(rows: &[&'r [u8]], valid: impl Fn(usize) -> bool) -> Option<(&'r [u8], &'r [u8])> {
    let first = (0..rows.len()).find(|&i| valid(i))?;
    let (mut min, mut max) = (rows[first], rows[first]);
    let (mut min_key, mut max_key) = (prefix_key(min), prefix_key(max));
    for (i, &r) in rows.iter().enumerate().skip(first + 1) {
        let key = prefix_key(r);
        if key <= min_key && valid(i) && (key < min_key || below_on_a_tie(r, min)) {
            (min, min_key) = (r, key);
        }
        if key >= max_key && valid(i) && (key > max_key || below_on_a_tie(max, r)) {
            (max, max_key) = (r, key);
        }
    }
    Some((min, max))
}

/// Whether `a < b`, for rows with the same [`prefix_key`]. Where either is at most 8 bytes long, the
/// shorter is a prefix of the longer (the key pads with zeros), so their lengths decide: flag columns tie
/// with their bounds on most rows, and comparing their bytes was a `memcmp` call each time.
#[inline]
fn below_on_a_tie(a: &[u8], b: &[u8]) -> bool {
    if a.len().min(b.len()) <= 8 {
        a.len() < b.len()
    } else {
        a[8..] < b[8..]
    }
}

/// A validated, zero-copy view over one segment of byte strings. Values it returns borrow from the
/// segment's bytes.
pub struct BytesSegment<'a> {
    kind: BytesType,
    rows: usize,
    nulls: usize,
    zone: ZoneMap<'a>,
    validity: Option<&'a [u64]>,
    stream: BytesView<'a>,
    encoded_len: usize,
}

impl<'a> BytesSegment<'a> {
    /// Validates `bytes` (8-aligned) and opens a view. Errors name what is wrong; nothing panics on bad input.
    pub fn open(bytes: &'a [u8]) -> Result<Self> {
        let mut r = Reader::new(bytes);
        if r.take("segment", 4)? != MAGIC {
            return Err(Error::Corrupt("not an lwc segment (bad magic)".into()));
        }
        let id = r.u8("segment type")?;
        let kind = BytesType::from_id(id).ok_or_else(|| Error::TypeMismatch {
            expected: "byte strings",
            found: crate::types::ValueType::from_id(id).map_or("an unknown type", |t| t.name()),
        })?;
        let flags = r.u8("segment flags")?;
        if flags & !(HAS_VALIDITY | MAX_IS_PREFIX) != 0 || r.take("segment reserved", 2)? != [0, 0] {
            return Err(Error::Corrupt(format!("unknown segment flags {flags:#x}")));
        }
        let rows = r.u32("segment rows")? as usize;
        let nulls = r.u32("segment null count")? as usize;
        let (min_len, max_len) = (r.u32("min length")? as usize, r.u32("max length")? as usize);
        if min_len > ZONE_BYTES || max_len > ZONE_BYTES || nulls > rows || (nulls > 0) != (flags & HAS_VALIDITY != 0) {
            return Err(Error::Corrupt(format!(
                "{nulls} nulls in {rows} rows, zone map of {min_len} and {max_len} bytes"
            )));
        }
        let min = r.take("segment min", min_len)?;
        let max = r.take("segment max", max_len)?;
        if nulls < rows && min > max {
            return Err(Error::Corrupt("segment min exceeds max".into()));
        }
        let validity = if nulls > 0 {
            let words: &[u64] = r.array("segment validity", rows.div_ceil(64))?;
            let tail_clear = rows.is_multiple_of(64) || words.last().is_some_and(|w| w >> (rows % 64) == 0);
            let valid = crate::kernels::bits::count_ones(words);
            if !tail_clear || valid != rows - nulls {
                return Err(Error::Corrupt(format!("validity marks {valid} valid rows, header says {}", rows - nulls)));
            }
            Some(words)
        } else {
            None
        };
        r.align("segment stream")?;
        let stream = BytesView::open(&mut r, rows)?;
        r.finish("segment")?;
        let zone = ZoneMap { min, max, max_is_prefix: flags & MAX_IS_PREFIX != 0 };
        Ok(BytesSegment { kind, rows, nulls, zone, validity, stream, encoded_len: bytes.len() })
    }

    /// UTF-8 or binary.
    pub fn bytes_type(&self) -> BytesType {
        self.kind
    }

    /// Rows, nulls included.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Null rows.
    pub fn null_count(&self) -> usize {
        self.nulls
    }

    /// The encoding of the strings.
    pub fn encoding(&self) -> EncodingId {
        self.stream.encoding()
    }

    /// The encoding of the strings and of their child streams.
    pub fn cascade(&self) -> Cascade {
        self.stream.cascade()
    }

    /// Encoded bytes, header included.
    pub fn encoded_len(&self) -> usize {
        self.encoded_len
    }

    /// The validity bitmap's words (bit set = not null), `None` when no row is null.
    pub fn validity(&self) -> Option<&'a [u64]> {
        self.validity
    }

    /// The zone map; `None` when every row is null.
    pub fn zone_map(&self) -> Option<ZoneMap<'a>> {
        (self.nulls < self.rows).then_some(self.zone)
    }

    fn is_valid(&self, i: usize) -> bool {
        self.validity.is_none_or(|v| get_bit(v, i))
    }

    fn check_row(&self, row: usize) -> Result<()> {
        if row >= self.rows {
            return Err(Error::RowOutOfRange { row: row as u64, rows: self.rows as u64 });
        }
        Ok(())
    }

    /// Row `i`'s bytes: `Ok(None)` if it is null.
    pub fn get(&self, i: usize) -> Result<Option<Cow<'a, [u8]>>> {
        self.check_row(i)?;
        Ok(self.is_valid(i).then(|| self.stream.get(i)))
    }

    /// Decodes a range of rows (null rows take no bytes).
    pub fn decode(&self, range: Range<usize>) -> Result<ByteArray> {
        if range.start > range.end || range.end > self.rows {
            return Err(Error::RowOutOfRange { row: range.end as u64, rows: self.rows as u64 });
        }
        let mut out = ByteArray::with_capacity(range.len());
        self.stream.decode_into(range.clone(), &mut out);
        Ok(match self.validity {
            None => out,
            Some(v) => without_null_bytes(out, range.map(|i| get_bit(v, i))),
        })
    }

    /// Decodes every row.
    pub fn decode_all(&self) -> ByteArray {
        self.decode(0..self.rows).expect("the whole range is in range")
    }

    /// The rows at `positions` (any order, repeats allowed).
    pub fn take(&self, positions: &[u32]) -> Result<ByteArray> {
        if let Some(&p) = positions.iter().find(|&&p| p as usize >= self.rows) {
            return Err(Error::RowOutOfRange { row: p as u64, rows: self.rows as u64 });
        }
        let mut out = ByteArray::with_capacity(positions.len());
        self.stream.take_into(positions, &mut out);
        Ok(match self.validity {
            None => out,
            Some(v) => without_null_bytes(out, positions.iter().map(|&p| get_bit(v, p as usize))),
        })
    }

    /// The rows matching `predicate`, evaluated on the encoded form: the zone map settles what it can,
    /// dictionaries compare codes, plain bytes are compared row by row.
    pub fn filter(&self, predicate: &BytesPredicate) -> Selection {
        let mut bits = Bitmap::new_clear(self.rows);
        match predicate.plan(self.zone_map()) {
            Plan::Nothing => return Selection::Positions(Vec::new()),
            Plan::Nulls => {
                if let Some(v) = self.validity {
                    bits = Bitmap::from_words(v.to_vec(), self.rows).expect("validated length");
                    bits.not();
                }
                return Selection::from_bitmap(bits);
            }
            Plan::AllValid => bits.not(),
            Plan::Test(test, negate) => {
                self.stream.filter(&test, &mut bits);
                if negate {
                    bits.not();
                }
            }
            Plan::Set(set) => self.stream.filter(&BytesTest::Set(&set), &mut bits),
        }
        if let Some(v) = self.validity {
            bits.and_words(v);
        }
        Selection::from_bitmap(bits)
    }

    /// Count, null count, min and max of all rows (`None`) or of a selection.
    pub fn aggregate(&self, selection: Option<&Selection>) -> Result<BytesAggregates> {
        let all = Selection::Bitmap(Bitmap::new_set(self.rows));
        let selection = selection.unwrap_or(&all);
        let too_far = match selection {
            Selection::Positions(p) => p.iter().copied().find(|&p| p as usize >= self.rows).map(|p| p as u64),
            Selection::Bitmap(b) => (b.len() != self.rows).then_some(b.len() as u64),
        };
        if let Some(row) = too_far {
            return Err(Error::RowOutOfRange { row, rows: self.rows as u64 });
        }
        let selected = selection.count();
        let valid = match self.validity {
            None => selection.clone(),
            Some(v) => Selection::Positions(selection.iter().filter(|&i| get_bit(v, i as usize)).collect()),
        };
        let count = valid.count();
        let min_max = if count == 0 { None } else { self.stream.min_max(&valid) };
        Ok(BytesAggregates {
            count: count as u64,
            null_count: (selected - count) as u64,
            min: min_max.as_ref().map(|(lo, _)| lo.to_vec()),
            max: min_max.as_ref().map(|(_, hi)| hi.to_vec()),
        })
    }
}

/// `rows` read from a stream whatever their validity (a null row holds whatever its encoding put there),
/// with the null rows emptied and the validity set. One pass over the bytes, where reading the valid rows
/// one by one would cost a lookup each.
fn without_null_bytes(rows: ByteArray, valid: impl Iterator<Item = bool>) -> ByteArray {
    let valid: Vec<bool> = valid.collect();
    let mut out = ByteArray::with_capacity(rows.len());
    out.data.reserve(rows.data.len());
    for (i, &v) in valid.iter().enumerate() {
        out.push(if v { rows.get(i).expect("rows without validity") } else { &[] });
    }
    out.validity = Some(Bitmap::from_bools(&valid));
    out
}

impl std::fmt::Debug for BytesSegment<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BytesSegment")
            .field("type", &self.kind)
            .field("encoding", &self.encoding())
            .field("rows", &self.rows)
            .field("nulls", &self.nulls)
            .field("encoded_len", &self.encoded_len)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Prefix keys are the zero-padded first 8 bytes, at every short length, so rows whose keys differ
    /// compare as their keys do.
    #[test]
    fn prefix_keys_are_the_first_bytes_zero_padded() {
        let text = b"\xffDELIVER IN\x00PERSON";
        for start in 0..4 {
            for len in 0..=10 {
                let row = &text[start..start + len];
                let mut head = [0u8; 8];
                head[..len.min(8)].copy_from_slice(&row[..len.min(8)]);
                assert_eq!(prefix_key(row), u64::from_be_bytes(head), "{row:?}");
            }
        }
        let rows: [&[u8]; 6] = [b"", b"\x00", b"a", b"ab", b"abc\xff", b"abd"];
        for a in rows {
            for b in rows {
                if prefix_key(a) != prefix_key(b) {
                    assert_eq!(prefix_key(a).cmp(&prefix_key(b)), a.cmp(b), "{a:?} {b:?}");
                }
            }
        }
    }

    #[test]
    fn ties_of_prefix_keys_order_as_the_rows_do() {
        let rows: [&[u8]; 12] = [
            b"",
            b"\x00",
            b"\x00\x00",
            b"N",
            b"N\x00",
            b"NONE\x00\x00\x00\x00",
            b"NONE\x00\x00\x00\x00\x00",
            b"NONE\x00\x00\x00\x00a",
            b"DELIVER IN PERSON",
            b"DELIVER ",
            b"DELIVER IN",
            b"DELIVER IN PERSON\x00",
        ];
        let mut ties = 0;
        for a in rows {
            for b in rows {
                if prefix_key(a) == prefix_key(b) {
                    assert_eq!(below_on_a_tie(a, b), a < b, "{a:?} {b:?}");
                    ties += 1;
                }
            }
        }
        assert!(ties > rows.len() + 10, "the rows tie in pairs of different lengths: {ties}");
        // The bounds of rows that mostly tie with them, nulls left out, as sorting finds them.
        let column: Vec<&[u8]> = (0..500).map(|i| rows[i * 7 % rows.len()]).collect();
        let valid = |i: usize| !i.is_multiple_of(5);
        let kept: Vec<&[u8]> = column.iter().enumerate().filter(|&(i, _)| valid(i)).map(|(_, r)| *r).collect();
        let expected = (*kept.iter().min().unwrap(), *kept.iter().max().unwrap());
        assert_eq!(extremes(&column, valid), Some(expected));
    }
    /// Under `balanced`, a child stream a few hundred bytes long spends the segment's slack, not its own:
    /// the 98 data points of the ends of 100,000 FSST-compressed rows are `bitpack`, not a `delta` whose
    /// reads walk all of them (`size` keeps that one, 100 bytes smaller), and the segment stays within 5 %
    /// of the smallest.
    #[test]
    fn balanced_spends_the_segments_slack_on_small_child_streams() {
        let text: Vec<String> = (100_000..200_000).map(|i| format!("row {} of {}", i % 977, i % 13)).collect();
        let rows: Vec<&[u8]> = text.iter().map(|t| t.as_bytes()).collect();
        let balanced = encode_bytes_segment(&rows, None, BytesType::Utf8, EncodeOptions::default()).unwrap();
        let written = |ends: &str| {
            let cascade = Cascade::read(Encoding::BytesFsst, vec![ends.parse::<Cascade>().unwrap()]);
            let options = EncodeOptions::with_encoding(cascade);
            encode_bytes_segment(&rows, None, BytesType::Utf8, options).unwrap().as_bytes().len()
        };
        let nested = written("delta(for, delta(for, constant))");
        assert!(nested < written("delta(for, bitpack)"), "the premise: nested data points are smaller");
        let data_points = |cascade: &Cascade| Some(cascade.children().first()?.children().get(1)?.encoding());
        assert_eq!(balanced.cascade().encoding(), Encoding::BytesFsst, "{:?}", balanced.cascade());
        assert_eq!(data_points(balanced.cascade()), Some(Encoding::Bitpack), "{:?}", balanced.cascade());
        assert!(balanced.as_bytes().len() as f64 <= 1.05 * nested as f64);
        let segment = BytesSegment::open(balanced.as_bytes()).unwrap();
        let positions = [99_999, 0, 51_234, 77];
        let taken = segment.take(&positions).unwrap();
        for (k, &p) in positions.iter().enumerate() {
            assert_eq!(taken.get(k), Some(rows[p as usize]));
        }
    }
}
