//! Segments: one encoded block of rows (up to 65,536 by default) with its header, validity and stream.
//!
//! Bytes (little-endian, all sections 8-aligned from the segment's start):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 4 | magic `LWS1` |
//! | 4 | 1 | value type id ([`ValueType`]) |
//! | 5 | 1 | flags: bit 0 = a validity bitmap follows |
//! | 6 | 2 | reserved, zero |
//! | 8 | 4 | rows |
//! | 12 | 4 | null count |
//! | 16 | 8 | min of the non-null values, as the zero-extended bits of its latent |
//! | 24 | 8 | max of the non-null values, as the zero-extended bits of its latent |
//! | 32 | 8 · ⌈rows / 64⌉ | validity, one bit per row, 1 = not null (only when flagged) |
//! | … | … | the stream: one byte of encoding id, then the encoding's body |
//!
//! A null row's slot in the stream holds a value that keeps the column's shape (see [`fill_nulls`]);
//! readers never rely on which value it is.

use std::ops::Range;
use std::sync::Arc;
use std::time::Instant;

use crate::bitmap::{get_bit, Bitmap};
use crate::bytes::{AlignedBytes, Reader, Writer};
use crate::encodings::{read_value, value_bits, Cascade, EncodingId, InPlace, StreamOps, StreamView, SumMinMax};
use crate::error::{Error, Result};
use crate::kernels::bitpack::BLOCK;
use crate::kernels::fsst::SymbolTable;
use crate::kernels::range_sum::{FloatLatent, RangeAggregate};
use crate::predicate::{Normalized, Predicate};
use crate::select::{ChoosingClock, CostModel, Costs, Driver, Objective, SegmentExplain};
use crate::selection::Selection;
use crate::stats::Stats;
use crate::strings::BytesType;
use crate::types::{LwcInt, Value, ValueType, Word};

const MAGIC: &[u8; 4] = b"LWS1";
const HAS_VALIDITY: u8 = 1;

/// Positions validated and served at a time by [`Segment::take_into`] (16 KiB of positions).
const TAKE_CHUNK: usize = 4096;

/// A segment with at most one null in this many rows sums everything and takes the null slots back out.
const FEW_NULLS: usize = 16;

/// Rows [`Segment::filter_aggregate`] decodes at a time (128 KiB of `f64`, within L2): a call per 1,024
/// rows would make cascades that seek (run ends, patch lists) seek 16 times as often.
const FUSED_CHUNK: usize = 16 * BLOCK;

/// Lists up to this long are read value by value in [`Segment::take_into`].
const SHORT_TAKE: usize = 4;

/// Values with an optional validity bitmap (bit set = not null), like an Arrow primitive array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Array<T> {
    /// One value per row; a null row holds an unspecified value.
    pub values: Vec<T>,
    /// `None` when no row is null.
    pub validity: Option<Bitmap>,
}

impl<T: Copy> Array<T> {
    /// Rows.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Row `i`, `None` if null. Panics if `i >= len()`.
    pub fn get(&self, i: usize) -> Option<T> {
        let valid = self.validity.as_ref().is_none_or(|v| v.get(i));
        valid.then(|| self.values[i])
    }

    /// Every row as an `Option`.
    pub fn to_options(&self) -> Vec<Option<T>> {
        (0..self.len()).map(|i| self.get(i)).collect()
    }
}

/// Count, null count, sum, min and max of a column or a selection of it. Sums of integers are exact
/// (`i128`); sums of floats are `f64`, compensated (see [`Value::sum`]). Min and max of floats follow IEEE's
/// total order (NaN above +inf, -0.0 below +0.0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aggregates<V: Value> {
    /// Non-null rows.
    pub count: u64,
    /// Null rows.
    pub null_count: u64,
    /// Sum of the non-null values.
    pub sum: V::Sum,
    /// Smallest non-null value.
    pub min: Option<V>,
    /// Largest non-null value.
    pub max: Option<V>,
}

impl<V: Value> Aggregates<V> {
    /// Nothing aggregated yet.
    pub fn empty() -> Aggregates<V> {
        Aggregates { count: 0, null_count: 0, sum: V::Sum::default(), min: None, max: None }
    }

    /// Combines the aggregates of two disjoint sets of rows.
    pub fn merge(self, other: Aggregates<V>) -> Aggregates<V> {
        let pick = |a: Option<V>, b: Option<V>, smaller: bool| match (a, b) {
            (Some(a), Some(b)) => Some(if (a.to_latent() < b.to_latent()) == smaller { a } else { b }),
            (a, b) => a.or(b),
        };
        Aggregates {
            count: self.count + other.count,
            null_count: self.null_count + other.null_count,
            sum: V::add(self.sum, other.sum),
            min: pick(self.min, other.min, true),
            max: pick(self.max, other.max, false),
        }
    }
}

/// How values are encoded: the encoding (or cascade) of every segment, with [`Encoding::Auto`] choosing
/// for an objective by a cost model; rows per segment for columns; whether to keep the record of each
/// choice. Encodings, cascades, ids and objectives convert into options with the rest at their defaults.
///
/// [`Encoding::Auto`]: crate::encodings::Encoding::Auto
#[derive(Debug, Clone, PartialEq)]
pub struct EncodeOptions {
    /// The encoding of every segment and of its child streams ([`Encoding::Auto`] chooses per stream).
    ///
    /// [`Encoding::Auto`]: crate::encodings::Encoding::Auto
    pub cascade: Cascade,
    /// Rows per segment (the last one may hold fewer); only columns cut values into segments.
    pub segment_rows: usize,
    /// What [`Encoding::Auto`](crate::encodings::Encoding::Auto) optimizes.
    pub objective: Objective,
    /// The read costs `Auto` weighs: the built-in table unless a calibration ([`crate::calibrate`]) is given.
    pub cost_model: Arc<CostModel>,
    /// Keep a [`SegmentExplain`] per segment: candidates, estimates, costs, reason, time spent choosing.
    pub explain: bool,
    /// Rows read together with each segment (the table's or column's rows), which set the working set
    /// the cost model prices lookups at: many rows outgrow the caches, and then a smaller encoding also
    /// looks up faster. `None`: the segment's own rows, except that [`EncodedColumn::encode`] takes the
    /// column's.
    ///
    /// [`EncodedColumn::encode`]: crate::EncodedColumn::encode
    pub working_set_rows: Option<u64>,
    /// Segments of a column that may keep the cascade chosen for the segment before them instead of
    /// choosing again (see [`SegmentChoice`]); after this many in a row the next one chooses afresh.
    /// Each time a column chooses afresh, its next choice is kept twice as long, up to four times this
    /// many. 0 chooses for every segment. Only where the top of [`EncodeOptions::cascade`] is `Auto`.
    pub keep_choice: usize,
}

/// Rows per segment unless configured otherwise: one Hyrise chunk, one Umbra data block.
pub const DEFAULT_SEGMENT_ROWS: usize = 1 << 16;

/// Segments that keep a choice before one chooses again, unless configured otherwise: in segments of
/// [`DEFAULT_SEGMENT_ROWS`], a column's first choice is kept for about a million rows, its second for two
/// million, every later one for four million (see [`KEEP_DOUBLINGS`]).
pub const DEFAULT_KEEP_CHOICE: usize = 15;

/// How many times the segments that keep a column's choice double, once each time it chooses afresh:
/// [`EncodeOptions::keep_choice`] segments keep its first choice, twice as many its second, four times as
/// many every later one. Every segment that keeps a choice checks it by what it writes (see
/// [`SegmentChoice`]); choosing afresh only looks for a cascade that would now write less, which a
/// column that has kept one choice for millions of rows rarely has.
pub const KEEP_DOUBLINGS: u32 = 2;

/// How much larger (bytes per row) a segment written with a kept cascade may be than the segment that
/// chose it before it chooses afresh instead.
const KEPT_SLACK: f64 = 1.10;

impl Default for EncodeOptions {
    fn default() -> Self {
        EncodeOptions {
            cascade: crate::encodings::Encoding::Auto.into(),
            segment_rows: DEFAULT_SEGMENT_ROWS,
            objective: Objective::default(),
            cost_model: CostModel::builtin(),
            explain: false,
            working_set_rows: None,
            keep_choice: DEFAULT_KEEP_CHOICE,
        }
    }
}

impl EncodeOptions {
    /// Options with the given encoding (or [`Cascade`]) and the default segment size.
    pub fn with_encoding(encoding: impl Into<Cascade>) -> Self {
        EncodeOptions { cascade: encoding.into(), ..EncodeOptions::default() }
    }

    /// Options choosing every encoding for `objective`.
    pub fn with_objective(objective: Objective) -> Self {
        EncodeOptions { objective, ..EncodeOptions::default() }
    }

    /// These options, keeping the record of every choice.
    pub fn explained(self) -> Self {
        EncodeOptions { explain: true, ..self }
    }

    /// These options for segments read together with others, `rows` rows in all (see
    /// [`EncodeOptions::working_set_rows`]).
    pub fn reading_together(self, rows: u64) -> Self {
        EncodeOptions { working_set_rows: Some(rows), ..self }
    }
}

impl From<Cascade> for EncodeOptions {
    fn from(cascade: Cascade) -> Self {
        EncodeOptions::with_encoding(cascade)
    }
}

impl From<crate::encodings::Encoding> for EncodeOptions {
    fn from(encoding: crate::encodings::Encoding) -> Self {
        EncodeOptions::with_encoding(encoding)
    }
}

impl From<crate::encodings::EncodingId> for EncodeOptions {
    fn from(id: crate::encodings::EncodingId) -> Self {
        EncodeOptions::with_encoding(id)
    }
}

impl From<Objective> for EncodeOptions {
    fn from(objective: Objective) -> Self {
        EncodeOptions::with_objective(objective)
    }
}

impl From<&EncodeOptions> for EncodeOptions {
    fn from(options: &EncodeOptions) -> Self {
        options.clone()
    }
}

/// An encoded segment and the facts its encoding found out on the way (rows, nulls, min, max, the cascade
/// written, the choice's record): whoever stores it never reopens what was just written. Dereferences to
/// its bytes.
///
/// `B` is where the bytes are: held (`AlignedBytes`, what [`encode_segment`] returns) or, for a segment
/// written into a buffer with others (a column's), the range of that buffer it fills.
#[derive(Debug, Clone, PartialEq)]
pub struct EncodedSegment<M, B = AlignedBytes> {
    pub(crate) bytes: B,
    pub(crate) rows: usize,
    pub(crate) null_count: usize,
    pub(crate) min: Option<M>,
    pub(crate) max: Option<M>,
    pub(crate) cascade: Cascade,
    pub(crate) read_costs: Costs,
    pub(crate) explain: Option<SegmentExplain>,
    pub(crate) choice: Option<SegmentChoice>,
}

/// A segment's cascade as chosen by the selector, which the following segments of its column may keep
/// ([`encode_segment_after`], [`crate::strings::encode_bytes_segment_after`]) instead of choosing again:
/// choosing estimates every candidate on a sample (several times what packing the segment costs; for
/// byte strings, an FSST table trained and a dictionary built), keeping it costs nothing.
///
/// A segment keeps it while the cascade writes it within 10 % of the chooser's bytes per row (the body's:
/// the header, validity and zone map, is the same whatever the cascade), and, for values, while their
/// range has the bits of the chooser's (one more or less). Else it chooses afresh, and is written as
/// chosen; after [`EncodeOptions::keep_choice`] segments in a row (more for later choices, see
/// [`KEEP_DOUBLINGS`]), the next one chooses again.
#[derive(Debug, Clone, PartialEq)]
pub struct SegmentChoice {
    cascade: Cascade,
    of: ChoiceOf,
    /// The body's bytes per row, of the segment that chose.
    bytes_per_row: f64,
    /// Segments that kept it since.
    kept: usize,
    /// Choices the column made afresh before this one (see [`KEEP_DOUBLINGS`]).
    renewals: u32,
    /// The FSST table the segment that chose trained, when it chose `fsst`: a segment that keeps the
    /// cascade compresses with it instead of training its own (training takes as long as compressing
    /// a few hundred kilobytes).
    symbol_table: Option<Arc<SymbolTable>>,
}

/// What a [`SegmentChoice`] was made on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum ChoiceOf {
    /// Values of a type whose range took this many bits.
    Values { value_type: ValueType, width: u32 },
    /// Byte strings of a type.
    Bytes(BytesType),
}

impl SegmentChoice {
    /// A choice just made, on a segment that `of` describes, written in `bytes_per_row`; `before` is
    /// the column's choice before it, if any.
    pub(crate) fn chosen(cascade: Cascade, of: ChoiceOf, bytes_per_row: f64, before: Option<&SegmentChoice>) -> Self {
        let renewals = before.map_or(0, |b| b.renewals.saturating_add(1).min(KEEP_DOUBLINGS));
        SegmentChoice { cascade, of, bytes_per_row, kept: 0, renewals, symbol_table: None }
    }

    /// The choice with the FSST table its cascade was written with, for the segments that keep it.
    pub(crate) fn with_symbol_table(self, symbol_table: Option<Arc<SymbolTable>>) -> Self {
        SegmentChoice { symbol_table, ..self }
    }

    /// The FSST table to keep with the cascade, if any.
    pub(crate) fn symbol_table(&self) -> Option<&Arc<SymbolTable>> {
        self.symbol_table.as_ref()
    }

    /// The cascade chosen.
    pub fn cascade(&self) -> &Cascade {
        &self.cascade
    }

    /// Segments that kept it since it was chosen.
    pub fn kept(&self) -> usize {
        self.kept
    }

    /// Choices the column made afresh before this one (at most [`KEEP_DOUBLINGS`]: no more are told).
    pub fn renewals(&self) -> u32 {
        self.renewals
    }

    /// Segments that keep a column's choice made after `renewals` fresh ones, when
    /// [`EncodeOptions::keep_choice`] is `keep_choice`.
    pub fn kept_for(keep_choice: usize, renewals: u32) -> usize {
        keep_choice.saturating_mul(1 << renewals.min(KEEP_DOUBLINGS))
    }

    /// This choice as the column's choice after `renewals` fresh ones: a writer that places segments by
    /// their index (lwc-file's blocks) may hand a choice on past the block it was made for.
    pub fn renewed(&self, renewals: u32) -> Self {
        SegmentChoice { renewals: renewals.min(KEEP_DOUBLINGS), ..self.clone() }
    }

    /// This choice as the segment `segments` further on sees it: a writer that encodes several segments
    /// of a column at once hands each the last choice it knows, aged by the segments in between.
    pub fn aged(&self, segments: usize) -> Self {
        SegmentChoice { kept: self.kept.saturating_add(segments), ..self.clone() }
    }

    /// This choice kept once more, by a segment written in `bytes_per_row`: `None` when that is more
    /// than 10 % above the bytes of the segment that chose.
    pub(crate) fn kept_at(&self, bytes_per_row: f64) -> Option<Self> {
        (bytes_per_row <= self.bytes_per_row * KEPT_SLACK)
            .then(|| SegmentChoice { kept: self.kept + 1, ..self.clone() })
    }

    /// The explain record's reason for a segment that kept it.
    pub(crate) fn kept_because(&self) -> String {
        let on = match self.of {
            ChoiceOf::Values { width, .. } => format!("on a {width}-bit value range"),
            ChoiceOf::Bytes(kind) if self.symbol_table.is_some() => {
                format!("on {} strings, with its FSST table", kind.name())
            }
            ChoiceOf::Bytes(kind) => format!("on {} strings", kind.name()),
        };
        format!(
            "kept the cascade chosen {} segments before ({on}): written within {:.0} % of its bytes per row",
            self.kept,
            (KEPT_SLACK - 1.0) * 100.0
        )
    }

    /// Whether a segment that `of` describes keeps this choice under `options` (for values, a bit more
    /// or less of range: sorted keys cross powers of two from segment to segment).
    pub(crate) fn applies(&self, of: ChoiceOf, options: &EncodeOptions) -> bool {
        let alike = match (self.of, of) {
            (ChoiceOf::Values { value_type: a, width: wa }, ChoiceOf::Values { value_type: b, width: wb }) => {
                a == b && wa.abs_diff(wb) <= 1
            }
            (ChoiceOf::Bytes(a), ChoiceOf::Bytes(b)) => a == b,
            _ => false,
        };
        options.cascade.encoding().id().is_none()
            && self.kept < Self::kept_for(options.keep_choice, self.renewals)
            && alike
    }
}

impl<M> EncodedSegment<M> {
    /// The segment's bytes (8-aligned), header included.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The bytes, owned.
    pub fn into_bytes(self) -> AlignedBytes {
        self.bytes
    }
}

/// The facts of an encoded segment of values (`M = V`) or of byte strings (`M = Vec<u8>`).
impl<M, B> EncodedSegment<M, B> {
    /// The same facts with the bytes found elsewhere.
    pub(crate) fn with_bytes<C>(self, bytes: C) -> EncodedSegment<M, C> {
        let EncodedSegment { bytes: _, rows, null_count, min, max, cascade, read_costs, explain, choice } = self;
        EncodedSegment { bytes, rows, null_count, min, max, cascade, read_costs, explain, choice }
    }

    /// Rows, nulls included.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Null rows.
    pub fn null_count(&self) -> usize {
        self.null_count
    }

    /// Smallest non-null value; `None` if every row is null.
    pub fn min(&self) -> Option<&M> {
        self.min.as_ref()
    }

    /// Largest non-null value; `None` if every row is null.
    pub fn max(&self) -> Option<&M> {
        self.max.as_ref()
    }

    /// The encoding written and those of its child streams.
    pub fn cascade(&self) -> &Cascade {
        &self.cascade
    }

    /// The modeled cost of reading the segment as written (the cost model's price of the encoding chosen
    /// or given, with the bytes a scan streams in taken from the segment).
    pub fn read_costs(&self) -> Costs {
        self.read_costs
    }

    /// How the encoding was chosen, when [`EncodeOptions::explain`] asked for it.
    pub fn explain(&self) -> Option<&SegmentExplain> {
        self.explain.as_ref()
    }

    /// The choice the next segment of the column may keep ([`encode_segment_after`]): `Some` where the
    /// selector chose the cascade on this segment's values, or this segment kept it.
    pub fn choice(&self) -> Option<&SegmentChoice> {
        self.choice.as_ref()
    }
}

impl<T> std::ops::Deref for EncodedSegment<T> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}

/// Encodes one segment: `validity` (bit set = not null) must have one bit per value when given; `options`
/// is an [`EncodeOptions`], or anything that converts into one (an [`Encoding`](crate::encodings::Encoding), a
/// [`Cascade`], an [`Objective`]).
///
/// ```
/// use lwc::{encode_segment, Encoding, Objective, Segment};
///
/// let values: Vec<u32> = (0..1_000).map(|i| 5_000 + i % 100).collect();
/// let encoded = encode_segment(&values, None, Encoding::For)?;
/// assert_eq!(encoded.cascade().to_string(), "for");
/// assert_eq!((encoded.min(), encoded.max()), (Some(&5_000), Some(&5_099)));
/// let segment = Segment::<u32>::open(&encoded)?;
/// assert_eq!(segment.get(123)?, Some(5_023));
///
/// let chosen = encode_segment(&values, None, lwc::EncodeOptions::with_objective(Objective::Size).explained())?;
/// println!("{}", chosen.explain().unwrap()); // candidates, estimates, costs, why the winner won
/// # Ok::<(), lwc::Error>(())
/// ```
pub fn encode_segment<V: Value>(
    values: &[V],
    validity: Option<&Bitmap>,
    options: impl Into<EncodeOptions>,
) -> Result<EncodedSegment<V>> {
    encode_segment_after(values, validity, options, None)
}

/// [`encode_segment`] for the segment after one whose [`EncodedSegment::choice`] is `previous`: it keeps
/// that cascade without choosing again where the choice applies (see [`SegmentChoice`]).
///
/// ```
/// use lwc::{encode_segment, encode_segment_after, EncodeOptions};
///
/// let options = EncodeOptions::default().explained();
/// let first: Vec<u32> = (0..65_536).map(|i| (i * 7919) % 1_000).collect();
/// let second: Vec<u32> = (0..65_536).map(|i| (i * 7_927 + 13) % 1_000).collect();
/// let chosen = encode_segment(&first, None, &options)?;
/// let kept = encode_segment_after(&second, None, &options, chosen.choice())?;
/// assert_eq!(kept.cascade(), chosen.cascade());
/// assert_eq!(kept.choice().unwrap().kept(), 1);
/// assert_eq!(kept.explain().unwrap().choose_ns, 0);
/// # Ok::<(), lwc::Error>(())
/// ```
pub fn encode_segment_after<V: Value>(
    values: &[V],
    validity: Option<&Bitmap>,
    options: impl Into<EncodeOptions>,
    previous: Option<&SegmentChoice>,
) -> Result<EncodedSegment<V>> {
    // Room for the values stored plain: most encodings write less, and what is left over is returned.
    let mut w = Writer::with_capacity(segment_room::<V>(values.len()));
    let written = write_segment_after(values, validity, options, previous, &mut w)?;
    Ok(written.with_bytes(w.into_aligned()))
}

/// Bytes that hold a segment of `rows` values however it is written: the values plain, their validity
/// and the header.
pub(crate) fn segment_room<V: Value>(rows: usize) -> usize {
    64 + rows * std::mem::size_of::<V>() + rows.div_ceil(8)
}

/// [`encode_segment_after`] appended to `w` (at an 8-aligned length): what a column's builder calls, so
/// that its segments are written where the column's bytes lie instead of each in a buffer of its own,
/// whose fresh pages and copy into the column cost a bit-packed column more than its packing.
pub(crate) fn write_segment_after<V: Value>(
    values: &[V],
    validity: Option<&Bitmap>,
    options: impl Into<EncodeOptions>,
    previous: Option<&SegmentChoice>,
    w: &mut Writer,
) -> Result<EncodedSegment<V, Range<usize>>> {
    let options = options.into();
    let latents = V::latents(values);
    let values: &[V::Latent] = &latents;
    let began = Instant::now();
    let rows = u32::try_from(values.len())
        .map_err(|_| Error::InvalidArgument(format!("{} rows exceed a segment's u32 row count", values.len())))?;
    if let Some(v) = validity {
        if v.len() != values.len() {
            return Err(Error::InvalidArgument(format!("validity has {} bits for {} values", v.len(), values.len())));
        }
    }
    let validity = validity.filter(|v| v.count_ones() < v.len());
    let nulls = validity.map_or(0, |v| v.len() - v.count_ones());
    let valid = |i: usize| validity.is_none_or(|v| v.get(i));

    let filled: std::borrow::Cow<[V::Latent]> = match validity {
        None => values.into(),
        Some(v) => fill_nulls(values, v).into(),
    };
    // The one pass over the values that every encoder reads; without nulls it is also the zone map.
    let stats = Stats::compute(&filled);
    let min_max = match validity {
        None => (!values.is_empty()).then_some((stats.min, stats.max)),
        // Filled rows may lie outside the valid values' range (a line through them extends past it).
        Some(_) => values.iter().enumerate().filter(|&(i, _)| valid(i)).fold(None, |acc, (_, &v)| {
            Some(acc.map_or((v, v), |(lo, hi): (V::Latent, V::Latent)| (lo.min(v), hi.max(v))))
        }),
    };
    let (min, max) = min_max.unwrap_or_default();

    let start = w.len();
    debug_assert_eq!(start % 8, 0, "segments start 8-aligned");
    w.reserve(segment_room::<V>(values.len()));
    w.array(MAGIC);
    w.u8(V::TYPE as u8);
    w.u8(if validity.is_some() { HAS_VALIDITY } else { 0 });
    w.zeros(2);
    w.u32(rows);
    w.u32(nulls as u32);
    w.u64(value_bits(min));
    w.u64(value_bits(max));
    if let Some(v) = validity {
        w.array(v.words());
    }
    let header = w.len();
    let clock = ChoosingClock::default();
    let driver = |cascade: Cascade| {
        Driver::new(&options.cost_model, options.objective, cascade, &clock)
            .for_floats(V::TYPE.is_float())
            .reading_together(values.len(), options.working_set_rows)
    };
    let width = stats.range_bits();
    // The body's bytes: the header (validity, zone map) is the same whatever the cascade.
    let per_row = |w: &Writer| (w.len() - header) as f64 / values.len().max(1) as f64;
    let mut choice = None;
    let of = ChoiceOf::Values { value_type: V::TYPE, width };
    if let Some(previous) = previous.filter(|p| p.applies(of, &options)) {
        match driver(previous.cascade.clone()).encode_with(&filled, &stats, w) {
            // Written as the segment before chose, and about as small: kept.
            Ok(written) => match previous.kept_at(per_row(w)) {
                Some(kept) => choice = Some((written, kept)),
                None => w.truncate(header),
            },
            Err(Error::NotApplicable { .. }) => w.truncate(header),
            Err(e) => return Err(e),
        }
    }
    let (written, choice) = match choice {
        Some((written, kept)) => (written, Some(kept)),
        None => {
            let written = driver(options.cascade.clone()).encode_with(&filled, &stats, w)?;
            // Taken at once (constant, sequence) costs next to nothing to choose, and rarely fits the next.
            let chosen = written.evaluation.as_ref().is_some_and(|e| !e.encoding().taken_at_once());
            let choice = chosen.then(|| SegmentChoice::chosen(written.cascade.clone(), of, per_row(w), previous));
            (written, choice)
        }
    };
    let bytes = start..w.len();
    let has_values = min_max.is_some();
    let read_costs = written.read_costs(&options.cost_model, values.len(), bytes.len());
    let explain = options.explain.then(|| {
        let mut explain =
            written.explain(values.len(), nulls, options.objective, bytes.len(), read_costs, (clock.get().0, began));
        if let Some(c) = choice.as_ref().filter(|c| c.kept > 0) {
            explain.reason = c.kept_because();
        }
        explain
    });
    Ok(EncodedSegment {
        bytes,
        rows: values.len(),
        null_count: nulls,
        min: has_values.then(|| V::from_latent(min)),
        max: has_values.then(|| V::from_latent(max)),
        cascade: written.cascade,
        read_costs,
        explain,
        choice,
    })
}

/// The bytes [`encode_segment`] writes for `rows` values without nulls that rise in equal steps from
/// `min` to `max` as one `sequence`: a segment that its row count and zone map describe in full, so a
/// file need not store it (lwc-file's implied segments). `None` when no such sequence exists (the range
/// does not divide into `rows - 1` equal steps, or `rows` is 0).
///
/// ```
/// use lwc::{encode_segment, sequence_segment, Encoding};
/// let values: Vec<u32> = (0..1_000).map(|i| 7 + 3 * i).collect();
/// let written = encode_segment(&values, None, Encoding::Sequence)?;
/// assert_eq!(sequence_segment::<u32>(1_000, 7, 7 + 3 * 999).as_deref(), Some(written.as_bytes()));
/// assert!(sequence_segment::<u32>(1_000, 7, 8).is_none());
/// # Ok::<(), lwc::Error>(())
/// ```
pub fn sequence_segment<V: LwcInt>(rows: u32, min: V, max: V) -> Option<AlignedBytes> {
    let span = max.to_i128().checked_sub(min.to_i128()).filter(|&s| s >= 0)?;
    let step = match rows {
        0 => return None,
        1 => (span == 0).then_some(0)?,
        _ => (span % (rows as i128 - 1) == 0).then(|| span / (rows as i128 - 1))?,
    };
    // The stream holds only the base and the step: encode the first two values, then write the header's
    // row count and max for all of them.
    let second = V::from_i128(min.to_i128() + step)?;
    let first_two = if rows == 1 { vec![min] } else { vec![min, second] };
    let segment = encode_segment(&first_two, None, crate::encodings::Encoding::Sequence).ok()?;
    let mut bytes = segment.bytes.to_vec();
    bytes[8..12].copy_from_slice(&rows.to_le_bytes());
    bytes[24..32].copy_from_slice(&value_bits(max).to_le_bytes());
    Some(AlignedBytes::copy_from(&bytes))
}

/// The values a segment's stream stores for `values` whose null rows are the clear bits of `validity`:
/// every null slot takes a value that keeps the column's shape, so the encodings see the data as it is.
///
/// - When the non-null values lie on one arithmetic sequence `base + row * step` (ids with gaps), null
///   slots take the sequence's value, and the stream stays a `sequence`.
/// - Otherwise a null slot repeats the previous non-null value (leading nulls the first one): sorted data
///   stays sorted, runs stay unbroken, deltas are zero, no new value joins a dictionary and no common
///   divisor is lost.
///
/// Repeating a value keeps min and max those of the non-null values, so no frame of reference widens (a
/// line may reach past them at its ends, where it is still a line). An all-null segment stores zeros.
pub fn fill_nulls<T: LwcInt>(values: &[T], validity: &Bitmap) -> Vec<T> {
    let valid = |i: usize| validity.get(i);
    let mut present = (0..values.len()).filter(|&i| valid(i));
    let Some(first) = present.next() else { return vec![T::default(); values.len()] };
    if let Some(line) = present.next().and_then(|second| Line::through(values, first, second)) {
        if (0..values.len()).all(|i| !valid(i) || line.at(i) == Some(values[i])) {
            if let Some(filled) = (0..values.len()).map(|i| line.at(i)).collect::<Option<Vec<T>>>() {
                return filled;
            }
        }
    }
    let mut last = values[first];
    values
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            if valid(i) {
                last = v;
            }
            last
        })
        .collect()
}

/// The integer line `base + row * step` through two rows, as `sequence` stores it.
struct Line {
    base: i128,
    step: i128,
}

impl Line {
    fn through<T: LwcInt>(values: &[T], a: usize, b: usize) -> Option<Line> {
        let rise = values[b].to_i128() - values[a].to_i128();
        let run = (b - a) as i128;
        (rise % run == 0).then(|| {
            let step = rise / run;
            Line { base: values[a].to_i128() - a as i128 * step, step }
        })
    }

    /// The line's value at `row`, `None` outside `T`'s range.
    fn at<T: LwcInt>(&self, row: usize) -> Option<T> {
        let v = self.base.checked_add(self.step.checked_mul(row as i128)?)?;
        (T::MIN.to_i128()..=T::MAX.to_i128()).contains(&v).then(|| T::from_bits(T::Unsigned::from_u64(v as u64)))
    }
}

/// Checks a magic and the value type id after it (segments and columns start alike).
pub(crate) fn read_magic_and_type<V: Value>(r: &mut Reader<'_>, magic: &[u8; 4], what: &'static str) -> Result<()> {
    if r.take(what, 4)? != magic {
        return Err(Error::Corrupt(format!("not an lwc {what} (bad magic)")));
    }
    let id = r.u8(what)?;
    let found = ValueType::from_id(id).ok_or_else(|| Error::Corrupt(format!("{what}: unknown type id {id}")))?;
    if found != V::TYPE {
        return Err(Error::TypeMismatch { expected: V::TYPE.name(), found: found.name() });
    }
    Ok(())
}

/// A validated, zero-copy view over one encoded segment.
///
/// Opening checks every length and header field once; operations then run without re-checking. The
/// bytes must start at an 8-byte aligned address (an [`AlignedBytes`], a `Vec<u64>`, or a memory map).
pub struct Segment<'a, V: Value> {
    rows: usize,
    nulls: usize,
    /// Min and max as latents.
    min: V::Latent,
    max: V::Latent,
    validity: Option<&'a [u64]>,
    stream: StreamView<'a, V::Latent>,
    encoded_len: usize,
}

impl<'a, V: Value> Segment<'a, V> {
    /// Validates `bytes` and opens a view. Errors name what is wrong; nothing here panics on bad input.
    pub fn open(bytes: &'a [u8]) -> Result<Self> {
        let mut r = Reader::new(bytes);
        read_magic_and_type::<V>(&mut r, MAGIC, "segment")?;
        let flags = r.u8("segment flags")?;
        if flags & !HAS_VALIDITY != 0 || r.take("segment reserved", 2)? != [0, 0] {
            return Err(Error::Corrupt(format!("unknown segment flags {flags:#x}")));
        }
        let rows = r.u32("segment rows")? as usize;
        let nulls = r.u32("segment null count")? as usize;
        let min: V::Latent = read_value(&mut r, "segment min")?;
        let max: V::Latent = read_value(&mut r, "segment max")?;
        if nulls > rows || (nulls > 0) != (flags & HAS_VALIDITY != 0) {
            return Err(Error::Corrupt(format!("{nulls} nulls in {rows} rows, validity flag {flags}")));
        }
        if min > max {
            return Err(Error::Corrupt(format!("segment min {min:?} exceeds max {max:?}")));
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
        let stream = StreamView::open(&mut r, rows)?;
        r.finish("segment")?;
        Ok(Segment { rows, nulls, min, max, validity, stream, encoded_len: bytes.len() })
    }

    /// Rows, nulls included.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Null rows.
    pub fn null_count(&self) -> usize {
        self.nulls
    }

    /// Smallest non-null value; `None` if every row is null.
    pub fn min(&self) -> Option<V> {
        self.has_values().then(|| V::from_latent(self.min))
    }

    /// Largest non-null value; `None` if every row is null.
    pub fn max(&self) -> Option<V> {
        self.has_values().then(|| V::from_latent(self.max))
    }

    fn has_values(&self) -> bool {
        self.nulls < self.rows
    }

    /// The encoding of the values.
    pub fn encoding(&self) -> EncodingId {
        self.stream.encoding()
    }

    /// The encoding of the values and of their child streams.
    pub fn cascade(&self) -> Cascade {
        self.stream.cascade()
    }

    /// Encoded bytes, header included.
    pub fn encoded_len(&self) -> usize {
        self.encoded_len
    }

    /// Whether row `i` is not null (`i < rows`).
    pub(crate) fn is_valid(&self, i: usize) -> bool {
        self.validity.is_none_or(|v| get_bit(v, i))
    }

    fn check_row(&self, row: usize) -> Result<()> {
        if row >= self.rows {
            return Err(Error::RowOutOfRange { row: row as u64, rows: self.rows as u64 });
        }
        Ok(())
    }

    /// Row `i`: `Ok(None)` if it is null.
    #[inline(always)]
    pub fn get(&self, i: usize) -> Result<Option<V>> {
        self.check_row(i)?;
        // A branch, not `bool::then`: LLVM left that closure, the whole dispatch on the encoding in it, out
        // of line for some value types, a call more a lookup (`u32` gets 0.2-0.7 ns slower than `u64`).
        if self.is_valid(i) {
            Ok(Some(V::from_latent(self.stream.get(i))))
        } else {
            Ok(None)
        }
    }

    /// Decodes a range of rows.
    pub fn decode(&self, range: Range<usize>) -> Result<Array<V>> {
        if range.start > range.end || range.end > self.rows {
            return Err(Error::RowOutOfRange { row: range.end as u64, rows: self.rows as u64 });
        }
        let mut values = vec![V::default(); range.len()];
        self.decode_into(range.start, &mut values)?;
        let validity = self.validity.map(|v| Bitmap::from_bools(&range.map(|i| get_bit(v, i)).collect::<Vec<_>>()));
        Ok(Array { values, validity })
    }

    /// Decodes rows `start .. start + out.len()` into `out` without allocating; null rows hold an
    /// unspecified value (see [`Segment::validity`]).
    pub fn decode_into(&self, start: usize, out: &mut [V]) -> Result<()> {
        let end = start.checked_add(out.len()).filter(|&e| e <= self.rows);
        if end.is_none() {
            // Saturating: `start` is the caller's and may be anything up to `usize::MAX`.
            let row = (start as u64).saturating_add(out.len() as u64);
            return Err(Error::RowOutOfRange { row, rows: self.rows as u64 });
        }
        // Floats an encoding reads back directly skip the detour through latents.
        if !(V::TYPE.is_float() && self.stream.decode_floats_into(start, latents_of(out))) {
            self.stream.decode_into(start, latents_of(out));
            V::latents_to_values(out);
        }
        Ok(())
    }

    /// The rows of `range` whose bit is set in `selected` (bit `i` for row `range.start + i`), in row
    /// order: what a scan keeps of a dense selection. Decoded a chunk at a time into a buffer that stays
    /// in L2 and compacted from there, so the only allocation is the kept rows' (decoding the range and
    /// then dropping rows writes every row twice, into buffers the kernel must first fault in).
    pub fn decode_selected(&self, range: Range<usize>, selected: &Bitmap) -> Result<Array<V>> {
        if range.start > range.end || range.end > self.rows {
            return Err(Error::RowOutOfRange { row: range.end as u64, rows: self.rows as u64 });
        }
        if selected.len() != range.len() {
            return Err(Error::InvalidArgument(format!("{} selection bits for {} rows", selected.len(), range.len())));
        }
        let mut values = Vec::with_capacity(selected.count_ones());
        let mut buffer = vec![V::default(); range.len().min(FUSED_CHUNK)];
        for from in (0..range.len()).step_by(FUSED_CHUNK) {
            let chunk = &mut buffer[..(range.len() - from).min(FUSED_CHUNK)];
            self.decode_into(range.start + from, chunk)?;
            let words = &selected.words()[from / 64..(from + chunk.len()).div_ceil(64)];
            for (&word, block) in words.iter().zip(chunk.chunks(64)) {
                match word {
                    0 => {}
                    u64::MAX if block.len() == 64 => values.extend_from_slice(block),
                    mut w => {
                        while w != 0 {
                            values.push(block[w.trailing_zeros() as usize]);
                            w &= w - 1;
                        }
                    }
                }
            }
        }
        let validity = self
            .validity
            .map(|v| Bitmap::from_bools(&selected.ones().map(|i| get_bit(v, range.start + i)).collect::<Vec<_>>()));
        Ok(Array { values, validity })
    }

    /// The validity bitmap's words (bit set = not null), `None` when no row is null.
    pub fn validity(&self) -> Option<&'a [u64]> {
        self.validity
    }

    /// Decodes every row.
    pub fn decode_all(&self) -> Array<V> {
        self.decode(0..self.rows).expect("the whole range is in range")
    }

    /// The values at `positions` (any order, repeats allowed). Ascending lists take a fast path that
    /// decodes blocks dense in positions once.
    pub fn take(&self, positions: &[u32]) -> Result<Array<V>> {
        let mut values = vec![V::default(); positions.len()];
        self.take_into(positions, &mut values)?;
        let validity = self
            .validity
            .map(|v| Bitmap::from_bools(&positions.iter().map(|&p| get_bit(v, p as usize)).collect::<Vec<_>>()));
        Ok(Array { values, validity })
    }

    /// [`Segment::take`] into `out` (`out.len() == positions.len()`) without allocating; null rows hold
    /// an unspecified value. On an error `out` may be partly written.
    pub fn take_into(&self, positions: &[u32], out: &mut [V]) -> Result<()> {
        if out.len() != positions.len() {
            return Err(Error::InvalidArgument(format!("{} outputs for {} positions", out.len(), positions.len())));
        }
        if positions.len() <= SHORT_TAKE {
            // A handful of rows: the per-list work below (order check, dispatch) would cost more than
            // the reads.
            for (o, &p) in out.iter_mut().zip(positions) {
                self.check_row(p as usize)?;
                *o = V::from_latent(self.stream.get(p as usize));
            }
            return Ok(());
        }
        self.take_latents(positions, latents_of(out))?;
        V::latents_to_values(out);
        Ok(())
    }

    /// [`Segment::take_into`] for positions the caller has already found ascending and below
    /// [`Segment::rows`] (a column's located rows): no pass checks them again. Were one out of range after
    /// all, the stream's kernels would panic rather than read past the data, as they do for every caller.
    pub(crate) fn take_ascending_into(&self, positions: &[u32], out: &mut [V]) {
        debug_assert!(
            positions.windows(2).all(|w| w[0] <= w[1]) && positions.last().is_none_or(|&p| (p as usize) < self.rows)
        );
        if positions.len() <= SHORT_TAKE {
            for (o, &p) in out.iter_mut().zip(positions) {
                *o = V::from_latent(self.stream.get(p as usize));
            }
            return;
        }
        self.stream.take_sorted_into(positions, latents_of(out));
        V::latents_to_values(out);
    }

    /// The value of row `i` (`i < rows`, checked by the caller; a null row's is unspecified).
    pub(crate) fn value_at(&self, i: usize) -> V {
        V::from_latent(self.stream.get(i))
    }

    /// How the segment reads a lone row's latent where it lies, where it does so without a dispatch
    /// (`bitpack`, `for`, `for_n`, `gcd`, `pfor`, `constant`, `dict` over packed codes, `radix`,
    /// `plain`, `sequence`, `rle` of equal runs over a `sequence`): a caller reading many lone rows reads
    /// them there. It borrows the segment's bytes, not the segment.
    pub(crate) fn in_place(&self) -> Option<InPlace<'a, V::Latent>> {
        self.stream.in_place()
    }

    /// Whether a take of `k` positions in any order decodes the whole segment and gathers from it (see
    /// [`Segment::take_into`]): a column taking that many rows of each segment then decodes itself whole
    /// instead of grouping its rows by segment first.
    pub(crate) fn take_decodes_whole(&self, k: usize) -> bool {
        k >= self.rows || self.stream.take_decodes_whole(self.take_chunk(k))
    }

    /// How many of `k` positions [`Segment::take_into`] checks and serves at once, so the check reads
    /// positions the take then finds in L1 instead of sweeping a long list through memory twice. All of
    /// them where gets walk or search: the take then weighs the whole list against one decode of the
    /// stream, not each chunk against one.
    fn take_chunk(&self, k: usize) -> usize {
        if self.stream.get_cost() > 1 {
            k.max(1)
        } else {
            TAKE_CHUNK.min(k.max(1))
        }
    }

    /// Whether one row's value is read in place: a lookup decodes nothing else (see
    /// [`Segment::value_at`]).
    pub(crate) fn reads_in_place(&self) -> bool {
        self.stream.get_cost() <= 1
    }

    /// [`Segment::take_into`] of latents, for lists longer than [`SHORT_TAKE`].
    fn take_latents(&self, positions: &[u32], out: &mut [V::Latent]) -> Result<()> {
        let out_of_range = |row: u32| Error::RowOutOfRange { row: row as u64, rows: self.rows as u64 };
        if positions.len() >= self.rows {
            // A position a row or more: nothing beats decoding the stream once and gathering from it, each
            // position checked as it is gathered. A chunk's largest position found first, in a pass of its
            // own, cost a quarter more than a plain gather of 10^6 sorted positions (AMD Zen 4): that pass
            // waited on memory while the gather after it did not.
            let mut decoded = vec![V::Latent::default(); self.rows];
            self.stream.decode_into(0, &mut decoded);
            if !crate::kernels::lookup::gather_checked(&decoded, positions, out) {
                return Err(out_of_range(crate::kernels::positions::max_position(positions)));
            }
            return Ok(());
        }
        let chunk = self.take_chunk(positions.len());
        for (pos, dst) in positions.chunks(chunk).zip(out.chunks_mut(chunk)) {
            let (max, sorted) = crate::kernels::positions::max_and_sorted(pos);
            if let Some(row) = max.filter(|&m| m as usize >= self.rows) {
                return Err(out_of_range(row));
            }
            if sorted {
                self.stream.take_sorted_into(pos, dst);
            } else {
                self.stream.take_into(pos, dst);
            }
        }
        Ok(())
    }

    /// The rows matching `predicate`, evaluated on the encoded form: the zone map (min/max) settles whole
    /// segments, constants are rewritten into the encoding's code space, and packed data is compared a
    /// block at a time.
    pub fn filter(&self, predicate: &Predicate<V>) -> Selection {
        let mut bits = Bitmap::new_clear(self.rows);
        let min_max = self.has_values().then_some((self.min, self.max));
        match predicate.to_latents().normalize(min_max) {
            Normalized::Nothing => return Selection::Positions(Vec::new()),
            Normalized::AllValid => bits.not(),
            Normalized::Nulls => {
                if let Some(v) = self.validity {
                    bits = Bitmap::from_words(v.to_vec(), self.rows).expect("validated length");
                    bits.not();
                }
                return Selection::from_bitmap(bits);
            }
            Normalized::Range(lo, hi) => self.stream.filter_range(lo, hi, &mut bits),
            Normalized::NotRange(lo, hi) => {
                self.stream.filter_range(lo, hi, &mut bits);
                bits.not();
            }
            Normalized::Set(set) => self.stream.filter_in(&set, &mut bits),
        }
        if let Some(v) = self.validity {
            bits.and_words(v);
        }
        Selection::from_bitmap(bits)
    }

    /// Aggregates all rows (`None`) or a selection. Over all rows only the sum reads data; count, min
    /// and max come from the header.
    pub fn aggregate(&self, selection: Option<&Selection>) -> Result<Aggregates<V>> {
        let Some(selection) = selection else {
            let valid = self.rows - self.nulls;
            return Ok(Aggregates {
                count: valid as u64,
                null_count: self.nulls as u64,
                sum: self.sum_of_valid_rows(),
                min: self.min(),
                max: self.max(),
            });
        };
        let selection = self.valid_part(selection)?;
        let (selected, valid) = (selection.0, selection.1);
        let partial = if valid.is_empty() { SumMinMax::EMPTY } else { self.stream.aggregate(&valid) };
        let sum = match V::SUMS_LATENTS {
            true => V::sum_of_latents(partial.sum),
            false => match self.stream.float_sum(Some(&valid)) {
                Some(sum) => V::sum_of_floats(sum),
                None => self.sum_of_values(&valid.to_positions()),
            },
        };
        Ok(Aggregates {
            count: valid.count() as u64,
            null_count: (selected - valid.count()) as u64,
            sum,
            min: partial.min.map(V::from_latent),
            max: partial.max.map(V::from_latent),
        })
    }

    /// The aggregates of the rows matching `predicate`: the same answer as
    /// `aggregate(Some(&filter(predicate)))`, in fewer passes. The zone map settles whole segments from the
    /// header; for floats a range is tested, and the matching values summed, in one pass over decoded blocks
    /// that stay in L1, instead of a filter pass that writes a selection and aggregate passes that read it
    /// back. Integers, whose encodings compare and sum on the packed form, keep those two passes.
    pub fn filter_aggregate(&self, predicate: &Predicate<V>) -> Aggregates<V> {
        let min_max = self.has_values().then_some((self.min, self.max));
        let normalized = predicate.to_latents().normalize(min_max);
        let matches_range = match normalized {
            Normalized::Nothing => return Aggregates::empty(),
            Normalized::Nulls => return Aggregates { null_count: self.nulls as u64, ..Aggregates::empty() },
            Normalized::AllValid => {
                let all = self.aggregate(None).expect("all rows are in range");
                return Aggregates { null_count: 0, ..all };
            }
            Normalized::Range(lo, hi) if !V::SUMS_LATENTS => (lo, hi, true),
            Normalized::NotRange(lo, hi) if !V::SUMS_LATENTS => (lo, hi, false),
            _ => return self.aggregate(Some(&self.filter(predicate))).expect("a segment's own selection"),
        };
        self.aggregate_range(matches_range)
    }

    /// One pass of [`Segment::filter_aggregate`] over blocks of decoded latents: the valid values inside
    /// (or, with `inside` false, outside) `[lo, hi]` are counted, summed and compared in lanes.
    fn aggregate_range(&self, (lo, hi, inside): (V::Latent, V::Latent, bool)) -> Aggregates<V> {
        match V::TYPE {
            ValueType::F32 => self.aggregate_range_of::<u32>(lo, hi, inside),
            ValueType::F64 => self.aggregate_range_of::<u64>(lo, hi, inside),
            other => unreachable!("{other} sums its latents"),
        }
    }

    /// [`Segment::aggregate_range`] with the latents as `U`, the unsigned word they are.
    fn aggregate_range_of<U: FloatLatent>(&self, lo: V::Latent, hi: V::Latent, inside: bool) -> Aggregates<V> {
        let word = |l: V::Latent| U::from_u64(l.to_bits().to_u64());
        let value = |u: U| V::from_latent(<V::Latent as LwcInt>::from_bits(Word::from_u64(u.to_u64())));
        let mut values = vec![V::default(); self.rows.min(FUSED_CHUNK)];
        let mut acc = RangeAggregate::new(word(lo), word(hi), inside);
        for start in (0..self.rows).step_by(FUSED_CHUNK) {
            let values = &mut values[..(self.rows - start).min(FUSED_CHUNK)];
            // Floats first (encodings that read floats back directly skip a detour), then their latents.
            self.decode_into(start, values).expect("rows of the segment");
            let latents = latents_of(values);
            for latent in latents.iter_mut() {
                *latent = bytemuck::cast::<V::Latent, V>(*latent).to_latent();
            }
            for (k, block) in latents.chunks_mut(BLOCK).enumerate() {
                let validity = self.validity.map(|words| &words[(start + k * BLOCK) / 64..]);
                acc.add(bytemuck::cast_slice_mut(block), validity);
            }
        }
        let totals = acc.finish();
        Aggregates {
            count: totals.count,
            null_count: 0,
            sum: V::sum_of_floats(totals.sum),
            min: totals.min.map(value),
            max: totals.max.map(value),
        }
    }

    /// The sum of the values at `positions` (ascending), decoded: for values whose sum is not that of
    /// their latents (floats).
    fn sum_of_values(&self, positions: &[u32]) -> V::Sum {
        let mut buffer = [V::default(); BLOCK];
        let mut sum = V::Sum::default();
        for chunk in positions.chunks(BLOCK) {
            let values = &mut buffer[..chunk.len()];
            self.stream.take_sorted_into(chunk, latents_of(values));
            V::latents_to_values(values);
            sum = V::add(sum, V::sum(values));
        }
        sum
    }

    /// The sum of the non-null rows. Null slots hold whatever the writer put there (files of every version
    /// differ), so they are read back and taken out when few, and skipped by the selection when many.
    fn sum_of_valid_rows(&self) -> V::Sum {
        if !V::SUMS_LATENTS {
            let valid = self
                .validity
                .map(|v| Selection::Bitmap(Bitmap::from_words(v.to_vec(), self.rows).expect("validated length")));
            if let Some(sum) = self.stream.float_sum(valid.as_ref()) {
                return V::sum_of_floats(sum);
            }
            let mut sum = V::Sum::default();
            let mut buffer = [V::default(); BLOCK];
            for start in (0..self.rows).step_by(BLOCK) {
                let values = &mut buffer[..(self.rows - start).min(BLOCK)];
                self.stream.decode_into(start, latents_of(values));
                V::latents_to_values(values);
                let mut k = 0;
                for i in 0..values.len() {
                    if self.is_valid(start + i) {
                        values[k] = values[i];
                        k += 1;
                    }
                }
                sum = V::add(sum, V::sum(&values[..k]));
            }
            return sum;
        }
        let Some(words) = self.validity else { return V::sum_of_latents(self.stream.sum()) };
        if self.nulls == self.rows {
            return V::Sum::default();
        }
        if self.nulls * FEW_NULLS > self.rows {
            let valid = Bitmap::from_words(words.to_vec(), self.rows).expect("validated length");
            return V::sum_of_latents(self.stream.aggregate(&Selection::Bitmap(valid)).sum);
        }
        let mut null_rows = Vec::with_capacity(self.nulls);
        for (k, &w) in words.iter().enumerate() {
            let mut missing = !w & if (k + 1) * 64 > self.rows { (1u64 << (self.rows % 64)) - 1 } else { u64::MAX };
            while missing != 0 {
                null_rows.push((k * 64) as u32 + missing.trailing_zeros());
                missing &= missing - 1;
            }
        }
        let mut slots = vec![V::Latent::default(); null_rows.len()];
        self.stream.take_sorted_into(&null_rows, &mut slots);
        V::sum_of_latents(self.stream.sum() - <V::Latent as Value>::sum(&slots))
    }

    /// Checks a selection against the rows; returns its size and its non-null part.
    fn valid_part(&self, selection: &Selection) -> Result<(usize, Selection)> {
        let too_far = match selection {
            Selection::Positions(p) => p.iter().copied().find(|&p| p as usize >= self.rows).map(|p| p as u64),
            Selection::Bitmap(b) => (b.len() != self.rows).then_some(b.len() as u64),
        };
        if let Some(row) = too_far {
            return Err(Error::RowOutOfRange { row, rows: self.rows as u64 });
        }
        let Some(v) = self.validity else {
            return Ok((selection.count(), selection.clone()));
        };
        Ok(match selection {
            Selection::Positions(p) => {
                (p.len(), Selection::Positions(p.iter().copied().filter(|&i| get_bit(v, i as usize)).collect()))
            }
            Selection::Bitmap(b) => {
                let mut valid = b.clone();
                valid.and_words(v);
                (b.count_ones(), Selection::Bitmap(valid))
            }
        })
    }
}

/// Values as their latents' memory (same width, both plain old data): decoding writes latents into the
/// caller's buffer, which [`Value::latents_to_values`] then turns into values in place.
fn latents_of<V: Value>(values: &mut [V]) -> &mut [V::Latent] {
    bytemuck::cast_slice_mut(values)
}

impl<V: Value> std::fmt::Debug for Segment<'_, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Segment")
            .field("type", &V::TYPE)
            .field("encoding", &self.encoding())
            .field("rows", &self.rows)
            .field("nulls", &self.nulls)
            .field("min", &self.min())
            .field("max", &self.max())
            .field("encoded_len", &self.encoded_len)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encodings::Encoding;

    #[test]
    fn nulls_are_masked_everywhere() {
        let values = [5u32, 0, 7, 9];
        let validity = Bitmap::from_bools(&[true, false, true, true]);
        let bytes = encode_segment(&values, Some(&validity), Encoding::For).unwrap();
        let s = Segment::<u32>::open(&bytes).unwrap();
        assert_eq!(s.get(1).unwrap(), None);
        assert_eq!(s.get(2).unwrap(), Some(7));
        assert_eq!(s.filter(&Predicate::LtEq(7)).to_positions(), vec![0, 2]);
        assert_eq!(s.filter(&Predicate::IsNull).to_positions(), vec![1]);
        let all = s.aggregate(None).unwrap();
        assert_eq!((all.count, all.null_count, all.sum, all.min, all.max), (3, 1, 21, Some(5), Some(9)));
        let some = s.aggregate(Some(&Selection::Positions(vec![1, 3]))).unwrap();
        assert_eq!((some.count, some.null_count, some.sum, some.min), (1, 1, 9, Some(9)));
        assert!(matches!(Segment::<i32>::open(&bytes), Err(Error::TypeMismatch { .. })));
    }
}
