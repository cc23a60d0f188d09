//! Columns: many segments behind global row ids, with the same operations as a segment at column level.
//! The bytes a column is stored as, and the builder that writes them, are in `container`.

mod container;

use std::ops::Range;

use crate::bitmap::Bitmap;
use crate::encodings::{all_or_none, digit_value, Cascade, EncodingId, InPlaceParts};
use crate::error::{Error, Result};
use crate::kernels::bitpack::PartsInRegisters;
use crate::kernels::divisor::EqualParts;
use crate::kernels::{bitpack, lookup, positions};
use crate::predicate::Predicate;
use crate::segment::{Aggregates, Array, Segment};
pub use crate::segment::{EncodeOptions, DEFAULT_SEGMENT_ROWS};
use crate::selection::Selection;
use crate::types::{LwcInt, Value, Word};
pub use container::{ColumnBuilder, EncodedColumn};

/// Each distinct item with how often it occurs, in order of first occurrence (few distinct, so a list).
fn count_distinct<K: PartialEq>(items: impl Iterator<Item = K>) -> Vec<(K, usize)> {
    let mut counts: Vec<(K, usize)> = Vec::new();
    for item in items {
        match counts.iter_mut().find(|(k, _)| *k == item) {
            Some((_, n)) => *n += 1,
            None => counts.push((item, 1)),
        }
    }
    counts
}

/// An unsorted take reads each row where it is while it asks for fewer than one row in this many: then
/// a few nanoseconds a row cost less than grouping rows by segment, or decoding the segments they hit
/// (about 0.07 ns a row) and gathering.
const SPARSE_TAKE: usize = 32;

/// Ascending rows over many segments of frames, at most this many a segment on average, are read from
/// registers as unsorted ones are (see [`Column::sorted_from_registers`]).
const REGISTERS_SORTED: usize = 256;

/// Unsorted rows over many segments, at least one in [`DECODE_WHOLE`] of the column's, are gathered from
/// the column decoded whole rather than grouped by segment. Grouping places each row twice in fresh
/// lists and puts its value back where it was asked, a random write: 10^6 random rows of a column of
/// 1.5 million `u32` in 23 segments took 3.5x the column's decode and a plain gather, `plain` and
/// `bitpack` alike (AMD EPYC Zen 3). The decoded column is then at most this many times the output;
/// columns past [`DECODE_WHOLE_BYTES`] decoded follow [`DECODE_WHOLE_LARGE`].
const DECODE_WHOLE: usize = 16;

/// Past this, a column decoded whole misses the caches on most rows it gathers, as grouping's writes do,
/// and is decoded whole only from one row in [`DECODE_WHOLE_LARGE`].
const DECODE_WHOLE_BYTES: usize = 16 << 20;

/// Unsorted rows over a column decoded past [`DECODE_WHOLE_BYTES`], at least one in this many of its rows,
/// are gathered from it decoded whole. Random rows of l_orderkey (6 million `u32`, 24 MB decoded), one in
/// 6, 8, 10 and 16 of its rows: decoded whole, 0.87-0.96x the decode and a plain gather whatever the
/// density (`for`, `for_n`, `delta`); grouped, 1.37-1.49x, 1.21-1.33x, 0.94-1.17x and 0.70-0.96x
/// (Intel Xeon, glibc's allocator; under mimalloc one in 6 took 0.92-0.94x decoded whole, 1.55-1.71x
/// grouped). Before each segment's piece was zeroed just before its decode, the column decoded whole
/// was zeroed first, and grouping won (AMD EPYC Zen 3).
const DECODE_WHOLE_LARGE: usize = 10;

/// Past this, unsorted rows are always grouped by segment: the column decoded whole would hold more
/// memory than a take should.
const DECODE_WHOLE_MAX_BYTES: usize = 64 << 20;

/// A validated view over an encoded column.
pub struct Column<'a, T: Value> {
    rows: u64,
    segments: Vec<Segment<'a, T>>,
    /// First row id of each segment, plus `rows` at the end.
    starts: Vec<u64>,
    /// The rows of every segment but the last, when they are equal (as a builder writes them) and the
    /// last holds no more, or a lone segment's rows rounded up to a power of two: a row's segment is then
    /// a shift or a multiply away, not a search.
    equal_parts: Option<EqualParts>,
    /// Every segment reads a row in place (see [`Segment::reads_in_place`]): unsorted takes then read each
    /// row where it is instead of grouping the rows by segment first.
    reads_in_place: bool,
    /// The segments' in-place readers, where every segment has one, gathered when the column opens: a
    /// take of a few rows then reads them without a dispatch a row and without collecting them again.
    in_place: Option<InPlaceParts<'a, T::Latent>>,
    /// The rows of the largest segment: the most a take makes segment-local at once.
    largest: usize,
    /// The in-place readers as read from registers, eight or sixteen `u32` rows at a time (see
    /// [`InPlaceParts::in_registers`]).
    registers: Option<PartsInRegisters<'a>>,
}

impl<'a, T: Value> Column<'a, T> {
    /// Validates `bytes` (8-aligned, an [`EncodedColumn`]'s layout) and opens every segment.
    pub fn open(bytes: &'a [u8]) -> Result<Self> {
        let (rows, segments) = container::open_segments(bytes)?;
        let column = Column::from_segments(segments);
        if column.rows != rows {
            return Err(Error::Corrupt(format!("segments hold {} rows, header says {rows}", column.rows)));
        }
        Ok(column)
    }

    /// A column over segments opened elsewhere (a file keeps its own segment index), in row order.
    pub fn from_segments(segments: Vec<Segment<'a, T>>) -> Self {
        let mut starts = Vec::with_capacity(segments.len() + 1);
        let mut next = 0u64;
        for segment in &segments {
            starts.push(next);
            next += segment.rows() as u64;
        }
        starts.push(next);
        let lengths: Vec<u64> = segments.iter().map(|s| s.rows() as u64).collect();
        let equal_parts = EqualParts::of_lengths(&lengths);
        let reads_in_place = segments.iter().all(Segment::reads_in_place);
        let in_place = reads_in_place
            .then(|| all_or_none(&segments, Segment::in_place))
            .flatten()
            .map(|readers| InPlaceParts::new(readers, equal_parts.map(|parts| parts.part_len()), next));
        let largest = segments.iter().map(Segment::rows).max().unwrap_or(0);
        let registers = in_place.as_ref().and_then(InPlaceParts::in_registers);
        Column { rows: next, segments, starts, equal_parts, reads_in_place, in_place, largest, registers }
    }

    /// Rows, nulls included.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// The segments, in row order.
    pub fn segments(&self) -> &[Segment<'a, T>] {
        &self.segments
    }

    /// Encoded bytes of all segments.
    pub fn encoded_len(&self) -> usize {
        self.segments.iter().map(Segment::encoded_len).sum()
    }

    /// How many segments use each encoding, in order of first use.
    pub fn encodings(&self) -> Vec<(EncodingId, usize)> {
        count_distinct(self.segments.iter().map(Segment::encoding))
    }

    /// How many segments use each cascade (encoding and child streams' encodings), in order of first use.
    pub fn cascades(&self) -> Vec<(Cascade, usize)> {
        count_distinct(self.segments.iter().map(Segment::cascade))
    }

    /// The segment holding `row`, and the row's offset in it.
    fn locate(&self, row: u64) -> Result<(usize, usize)> {
        if row >= self.rows {
            return Err(Error::RowOutOfRange { row, rows: self.rows });
        }
        let seg = self.segment_of(row);
        Ok((seg, (row - self.starts[seg]) as usize))
    }

    /// The segment holding `row` (`row < rows`).
    fn segment_of(&self, row: u64) -> usize {
        match self.equal_parts {
            Some(parts) => parts.locate(row).0 as usize,
            None => self.starts.partition_point(|&s| s <= row) - 1,
        }
    }

    /// Row `row`: `Ok(None)` if it is null.
    // Always inlined, as is `Segment::get`: out of line, its 48-byte result goes back through memory on
    // every call: 0.3-1.1 ns of a 2-3 ns lookup where a caller has more than one call site (AMD EPYC Zen 5).
    #[inline(always)]
    pub fn get(&self, row: u64) -> Result<Option<T>> {
        let (seg, at) = self.locate(row)?;
        self.segments[seg].get(at)
    }

    /// Decodes a range of rows.
    pub fn decode(&self, range: Range<u64>) -> Result<Array<T>> {
        if range.start > range.end || range.end > self.rows {
            return Err(Error::RowOutOfRange { row: range.end, rows: self.rows });
        }
        let mut values = Vec::with_capacity((range.end - range.start) as usize);
        self.decode_appending(range.clone(), &mut values)?;
        let validity = if self.segments.iter().any(|s| s.validity().is_some()) {
            let valid = range.map(|row| self.locate(row).map(|(seg, at)| self.segments[seg].is_valid(at)));
            Some(Bitmap::from_bools(&valid.collect::<Result<Vec<_>>>()?))
        } else {
            None
        };
        Ok(Array { values, validity })
    }

    /// Decodes rows `start .. start + out.len()` into `out` without allocating; null rows hold an
    /// unspecified value (see [`Segment::validity`]).
    pub fn decode_into(&self, start: u64, out: &mut [T]) -> Result<()> {
        let end = start.checked_add(out.len() as u64).filter(|&e| e <= self.rows);
        let Some(end) = end else {
            return Err(Error::RowOutOfRange { row: start.saturating_add(out.len() as u64), rows: self.rows });
        };
        let mut done = 0;
        self.pieces(start..end, |segment, at, n| {
            segment.decode_into(at, &mut out[done..done + n])?;
            done += n;
            Ok(())
        })
    }

    /// Appends rows `range` (in range) to `values`, a segment's piece at a time: each piece is zeroed just
    /// before it is decoded, while its lines stay in L2, not the whole range first. Zeroing a 3.2 MB column
    /// before decoding it took a fifth of a take that gathers from it decoded whole (Intel Xeon).
    fn decode_appending(&self, range: Range<u64>, values: &mut Vec<T>) -> Result<()> {
        values.reserve((range.end - range.start) as usize);
        self.pieces(range, |segment, at, n| {
            let done = values.len();
            values.resize(done + n, T::default());
            segment.decode_into(at, &mut values[done..])
        })
    }

    /// Calls `read(segment, first row in it, rows)` for each segment's piece of rows `range` (in range), in
    /// order.
    fn pieces(
        &self,
        range: Range<u64>,
        mut read: impl FnMut(&Segment<'a, T>, usize, usize) -> Result<()>,
    ) -> Result<()> {
        let mut row = range.start;
        while row < range.end {
            let (seg, at) = self.locate(row)?;
            let n = ((self.starts[seg + 1] - row).min(range.end - row)) as usize;
            read(&self.segments[seg], at, n)?;
            row += n as u64;
        }
        Ok(())
    }

    /// The values at `rows` (any order, repeats allowed).
    pub fn take(&self, rows: &[u64]) -> Result<Array<T>> {
        let mut values = vec![T::default(); rows.len()];
        self.take_into(rows, &mut values)?;
        // Every row is in range once taken, so none is checked again; bits go straight into words.
        let validity = self.segments.iter().any(|s| s.validity().is_some()).then(|| {
            let words = rows
                .chunks(64)
                .map(|chunk| {
                    chunk.iter().enumerate().fold(0u64, |word, (j, &row)| {
                        let seg = self.segment_of(row);
                        word | u64::from(self.segments[seg].is_valid((row - self.starts[seg]) as usize)) << j
                    })
                })
                .collect();
            Bitmap::from_words(words, rows.len()).expect("a word for every 64 rows")
        });
        Ok(Array { values, validity })
    }

    /// [`Column::take`] into `out` (`out.len() == rows.len()`); null rows hold an unspecified value. Row
    /// ids may be `u32` or `u64` (Arrow's take indices are either). Each segment gets all its rows in
    /// one call, so its take weighs them together (a segment whose gets walk decodes once instead of
    /// walking for each row): ascending rows go as they come, a run per segment, found, checked and made
    /// segment-local in one pass (rows of values computed from the row, and a few a segment over frames
    /// read from registers, are read where they lie instead, as unsorted rows are); from the first segment
    /// whose rows fall out of order on, the rest are read where they lie, grouped by segment, or, one in
    /// 16 of the column's rows or more (one in 10 past 16 MB decoded), gathered from the column decoded
    /// whole. Only the segment-local positions (or the
    /// decoded column) are allocated, and nothing for `u32` row ids into a column of one segment. On an
    /// error `out` may be partly written.
    pub fn take_into<R: Copy + Into<u64> + 'static>(&self, rows: &[R], out: &mut [T]) -> Result<()> {
        if out.len() != rows.len() {
            return Err(Error::InvalidArgument(format!("{} outputs for {} rows", out.len(), rows.len())));
        }
        // One segment and `u32` row ids: the segment checks and takes them as they are. Copied into a
        // list of positions first (as wider ids are below), 10^6 rows took 1.2-1.5x a plain gather.
        if let (1, Some(positions)) = (self.segments.len(), positions::as_u32(rows)) {
            return self.segments[0].take_into(positions, out);
        }
        // Values computed from their rows, and a few rows a segment over frames read from registers, go as
        // unsorted rows do, sorted or not: by segment each segment costs a pass to make its rows
        // segment-local and a call.
        let computes = self.in_place.as_ref().is_some_and(InPlaceParts::computes);
        let from_registers = self.sorted_from_registers(rows.len()) || self.sorted_in_lanes(rows.len());
        if (computes || from_registers) && positions::as_u32(rows).is_some() {
            return self.take_scattered(rows, out, &mut Vec::new());
        }
        // Sized once: growing it row by row cost a short take more than its reads.
        let mut local = Vec::with_capacity(rows.len().min(self.largest));
        let mut k = 0;
        while k < rows.len() {
            let (seg, _) = self.locate(rows[k].into())?;
            let segment_rows = self.starts[seg]..self.starts[seg + 1];
            local.clear();
            let n = positions::rebase_ascending(&rows[k..], segment_rows.start, segment_rows.end, &mut local);
            if rows.get(k + n).is_some_and(|&r| r.into() < segment_rows.end) {
                // Below the row before it: from this segment's rows on the list is not ascending, and goes
                // scattered whole (a segment whose gets walk would otherwise walk for its first rows).
                return self.take_scattered(&rows[k..], &mut out[k..], &mut local);
            }
            // Located rows: ascending and inside the segment, so it need not check them again.
            self.segments[seg].take_ascending_into(&local, &mut out[k..k + n]);
            k += n;
        }
        Ok(())
    }

    /// [`Column::take_into`] of rows in any order.
    fn take_scattered<R: Copy + Into<u64> + 'static>(
        &self,
        rows: &[R],
        out: &mut [T],
        local: &mut Vec<u32>,
    ) -> Result<()> {
        let out_of_range = |row| Error::RowOutOfRange { row, rows: self.rows };
        if self.segments.len() == 1 {
            // The segment checks its positions; a row id past `u32` saturates to a position past every
            // segment, and the error names the row as given.
            local.clear();
            local.extend(rows.iter().map(|&r| r.into().min(u32::MAX.into()) as u32));
            return self.segments[0].take_into(local, out).map_err(|e| match e {
                Error::RowOutOfRange { .. } => {
                    out_of_range(rows.iter().map(|&r| r.into()).find(|&r| r >= self.rows).unwrap_or(self.rows))
                }
                e => e,
            });
        }
        let sparse = rows.len().saturating_mul(SPARSE_TAKE) < self.rows as usize;
        // Rows read from registers are read in place where they are sparse, and frames up to the density
        // where a lone segment decodes first: 20,000 random rows of 150,000 in three `bitpack` segments
        // took 0.5 ns a row so, and 1.2 decoded whole (AMD EPYC Zen 5). Codes read one more load a row,
        // likely a cache miss where 92 segments' dictionaries outgrow the caches: one row in ten of
        // l_orderkey (`dict`) took 1.2-1.7x as long read so as by the paths below (`lwc-bench keys`).
        let registers = (self.registers.as_ref().zip(self.in_place.as_ref()))
            .filter(|(_, parts)| {
                sparse
                    || matches!(parts, InPlaceParts::Frames(_))
                        && !bitpack::decode_first_pays(self.rows as usize, rows.len())
            })
            .zip(positions::as_u32(rows));
        if let Some(((registers, parts), rows)) = registers {
            return parts.gather_in_registers(registers, rows, out, T::from_latent).map_err(out_of_range);
        }
        // Values computed from their rows: at any density, cheaper than decoding them.
        let computed = self.in_place.as_ref().is_some_and(InPlaceParts::computes);
        if self.reads_in_place && (sparse || computed && positions::as_u32(rows).is_some()) {
            // Each row read where it is: grouping rows by segment costs more than the reads (a lone row
            // costs a few nanoseconds). Denser lists go by segment, where each segment weighs decoding
            // itself whole against its positions. Segments that read a row in place (bitpack, for,
            // for_n, gcd, pfor, constant, dict over packed codes, radix, plain, sequence, rle of equal
            // runs over a sequence) are read inline by the readers the column gathered when it opened, not
            // dispatched per row. Equal segments of one kind of packed fields, of plain values or of
            // arithmetic ones go through one loop with no match on the kind.
            if let Some(parts) = &self.in_place {
                if let Some(read) = parts.gather(rows, out, T::from_latent) {
                    return read.map_err(out_of_range);
                }
                // Radix segments of one base (one range of values): eight rows at a time in vector lanes
                // where the CPU has them, else one at a time with the base's constants in registers.
                if let (InPlaceParts::Digits(_, _, Some(lanes)), Some(rows)) = (parts, positions::as_u32(rows)) {
                    let value =
                        |lane| T::from_latent(T::Latent::from_bits(<T::Latent as LwcInt>::Unsigned::from_u64(lane)));
                    return lanes.gather_then(rows, out, value).map_err(out_of_range);
                }
                if let InPlaceParts::Digits(digits, parts, _) = parts {
                    return self.read_each(rows, out, |seg, at| {
                        let (words, reference) = parts[seg];
                        T::from_latent(digit_value(digits, words, reference, at))
                    });
                }
                if let InPlaceParts::Each(readers) = parts {
                    return self.read_each(rows, out, |seg, at| T::from_latent(readers[seg].get(at)));
                }
            }
            return self.read_each(rows, out, |seg, at| self.segments[seg].value_at(at));
        }
        let first_out_of_range = || rows.iter().map(|&r| r.into()).find(|&r| r >= self.rows);
        if self.decodes_whole(rows.len()) {
            // Dense: the column decoded whole and gathered from, issue 16's bound itself. Each row is
            // checked as it is gathered, instead of in a pass of its own first.
            let mut values = Vec::with_capacity(self.rows as usize);
            self.decode_appending(0..self.rows, &mut values)?;
            return match lookup::gather_checked(&values, rows, out) {
                true => Ok(()),
                false => Err(out_of_range(first_out_of_range().unwrap_or(self.rows))),
            };
        }
        // Checked once, so the rows are located without a check each.
        if let Some(row) = first_out_of_range() {
            return Err(out_of_range(row));
        }
        // A counting sort of the rows by segment (stable, so rows ascending within a segment stay so).
        let segment_of: Vec<u32> = rows.iter().map(|&r| self.segment_of(r.into()) as u32).collect();
        let mut first = vec![0usize; self.segments.len() + 1];
        for &seg in &segment_of {
            first[seg as usize + 1] += 1;
        }
        for seg in 0..self.segments.len() {
            first[seg + 1] += first[seg];
        }
        // Each row's place in the caller's list, and its position in its segment, placed by segment in
        // the pass that reads the rows in order: gathering the positions from the rows segment by segment
        // instead read the list once a segment, at a cache miss a row for long lists (18 % of a take of
        // 10^6 random rows over 92 segments).
        let mut order = vec![0u32; rows.len()];
        local.clear();
        local.resize(rows.len(), 0);
        let mut next = first.clone();
        for (k, (&seg, &row)) in segment_of.iter().zip(rows).enumerate() {
            let (seg, slot) = (seg as usize, &mut next[seg as usize]);
            order[*slot] = k as u32;
            local[*slot] = (row.into() - self.starts[seg]) as u32;
            *slot += 1;
        }
        let mut values = vec![T::default(); rows.len()];
        for (seg, segment) in self.segments.iter().enumerate() {
            let members = first[seg]..first[seg + 1];
            if !members.is_empty() {
                segment.take_into(&local[members.clone()], &mut values[members])?;
            }
        }
        for (&k, &v) in order.iter().zip(&values) {
            out[k as usize] = v;
        }
        Ok(())
    }

    /// Whether a take of `rows` ascending rows over many segments reads them from registers as unsorted
    /// rows are instead of by segment: frames, at most [`REGISTERS_SORTED`] rows a segment. 1,000 sorted
    /// rows of 600,000 in ten `for` segments took 2.2-3.2x a plain gather by segment and 1.5-2.0x so, of
    /// 6,000,000 in 92 segments 8.4-9.3x and 1.5-1.9x; 15,000 of 600,000 took 1.0-1.2x by segment and
    /// 1.1-1.2x so. Codes (`dict`) read faster by segment from 300 rows a segment on, and fields with
    /// patches or references from 100 (AMD EPYC Zen 5).
    fn sorted_from_registers(&self, rows: usize) -> bool {
        self.registers.is_some()
            && matches!(self.in_place, Some(InPlaceParts::Frames(_)))
            && rows <= REGISTERS_SORTED * self.segments.len()
    }

    /// Whether a take of `rows` ascending rows over many segments reads them in vector lanes as sparse
    /// unsorted rows are instead of by segment: radix parts read so (see
    /// [`crate::kernels::radix::DigitsInParts`]), and fewer than one row in [`SPARSE_TAKE`]. By segment, 1,000
    /// of 600,000 rows in ten parts took 5.9x a plain gather, each segment's take setting up its own lanes
    /// 8.2x, and in the column's lanes 3.0x (AMD EPYC Zen 5).
    fn sorted_in_lanes(&self, rows: usize) -> bool {
        matches!(self.in_place, Some(InPlaceParts::Digits(_, _, Some(_))))
            && rows.saturating_mul(SPARSE_TAKE) < self.rows as usize
    }

    /// Whether a take of `rows` unsorted rows over many segments gathers from the column decoded whole
    /// (see [`DECODE_WHOLE`]).
    /// Below that density, it does so where every segment's own take of its share of the rows would
    /// decode the segment whole anyway: the column then decodes once instead of grouping the rows first
    /// (`delta`, one row in 31 of o_orderkey: 1.10-1.12x the decode and a plain gather against 1.27-1.36x
    /// grouped, Intel Xeon).
    fn decodes_whole(&self, rows: usize) -> bool {
        let whole = self.rows as usize;
        let one_in = match whole.saturating_mul(size_of::<T>()) {
            bytes if bytes <= DECODE_WHOLE_BYTES => DECODE_WHOLE,
            bytes if bytes <= DECODE_WHOLE_MAX_BYTES => DECODE_WHOLE_LARGE,
            _ => return false,
        };
        rows.saturating_mul(one_in) >= whole
            || self.segments.iter().all(|s| {
                let share = (rows as u64).saturating_mul(s.rows() as u64).checked_div(self.rows);
                share.is_some_and(|k| s.take_decodes_whole(k as usize))
            })
    }

    /// `out[k] = read(segment, row in it)` of `rows[k]`, each row checked; equal segments are found by a
    /// shift and a mask or a multiply, so the loop holds little beyond the read.
    fn read_each<R: Copy + Into<u64>>(
        &self,
        rows: &[R],
        out: &mut [T],
        read: impl Fn(usize, usize) -> T,
    ) -> Result<()> {
        match self.equal_parts {
            Some(parts) => self.read_located(
                rows,
                out,
                |r| {
                    let (seg, at) = parts.locate(r);
                    (seg as usize, at as usize)
                },
                read,
            ),
            None => self.read_located(
                rows,
                out,
                |r| {
                    let seg = self.segment_of(r);
                    (seg, (r - self.starts[seg]) as usize)
                },
                read,
            ),
        }
    }

    /// [`Column::read_each`] with rows located by `locate`.
    fn read_located<R: Copy + Into<u64>>(
        &self,
        rows: &[R],
        out: &mut [T],
        locate: impl Fn(u64) -> (usize, usize),
        read: impl Fn(usize, usize) -> T,
    ) -> Result<()> {
        for (o, &r) in out.iter_mut().zip(rows) {
            let r = r.into();
            if r >= self.rows {
                return Err(Error::RowOutOfRange { row: r, rows: self.rows });
            }
            let (seg, at) = locate(r);
            *o = read(seg, at);
        }
        Ok(())
    }

    /// The rows matching `predicate`, segment by segment (segments the zone map rules out cost nothing).
    pub fn filter(&self, predicate: &Predicate<T>) -> ColumnSelection {
        let parts = self
            .segments
            .iter()
            .enumerate()
            .map(|(seg, s)| (seg, s.filter(predicate)))
            .filter(|(_, sel)| !sel.is_empty())
            .map(|(seg, sel)| SelectionPart { segment: seg, first_row: self.starts[seg], selection: sel })
            .collect();
        ColumnSelection { parts }
    }

    /// The aggregates of the rows matching `predicate`: `aggregate(Some(&filter(predicate)))` without the
    /// selection in between (see [`Segment::filter_aggregate`]).
    ///
    /// ```
    /// use lwc::{Column, EncodeOptions, EncodedColumn, Predicate};
    /// let prices: Vec<f64> = (0..10_000).map(|i| (i % 1000) as f64 / 100.0).collect();
    /// let encoded = EncodedColumn::encode(&prices, None, EncodeOptions::default())?;
    /// let column: Column<f64> = encoded.open()?;
    /// let cheap = column.filter_aggregate(&Predicate::Between(1.0, 2.0));
    /// assert_eq!((cheap.count, cheap.min, cheap.max), (1010, Some(1.0), Some(2.0)));
    /// assert!((cheap.sum - 1515.0).abs() < 1e-9);
    /// # Ok::<(), lwc::Error>(())
    /// ```
    pub fn filter_aggregate(&self, predicate: &Predicate<T>) -> Aggregates<T> {
        self.segments.iter().fold(Aggregates::empty(), |acc, s| acc.merge(s.filter_aggregate(predicate)))
    }

    /// Aggregates all rows (`None`) or a selection from [`Column::filter`].
    pub fn aggregate(&self, selection: Option<&ColumnSelection>) -> Result<Aggregates<T>> {
        let mut acc = Aggregates::empty();
        match selection {
            None => {
                for s in &self.segments {
                    acc = acc.merge(s.aggregate(None)?);
                }
            }
            Some(sel) => {
                for part in &sel.parts {
                    let s = self
                        .segments
                        .get(part.segment)
                        .ok_or(Error::RowOutOfRange { row: part.first_row, rows: self.rows })?;
                    acc = acc.merge(s.aggregate(Some(&part.selection))?);
                }
            }
        }
        Ok(acc)
    }
}

/// One segment's share of a [`ColumnSelection`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectionPart {
    /// Index of the segment.
    pub segment: usize,
    /// Row id of the segment's first row.
    pub first_row: u64,
    /// Selected positions within the segment.
    pub selection: Selection,
}

/// Rows of a column chosen by a filter: one selection per segment that has matches.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ColumnSelection {
    /// Segments with at least one selected row, in row order.
    pub parts: Vec<SelectionPart>,
}

impl ColumnSelection {
    /// Selected rows.
    pub fn count(&self) -> usize {
        self.parts.iter().map(|p| p.selection.count()).sum()
    }

    /// Whether no row is selected.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// Selected row ids, ascending.
    pub fn row_ids(&self) -> Vec<u64> {
        self.parts.iter().flat_map(|p| p.selection.iter().map(move |i| p.first_row + i as u64)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment::encode_segment;

    #[test]
    fn from_segments_numbers_rows_across_segments() {
        let first = encode_segment(&[1u32, 2, 3], None, crate::Encoding::Auto).unwrap();
        let second = encode_segment(&[7u32, 8], None, crate::Encoding::Plain).unwrap();
        let column =
            Column::<u32>::from_segments(vec![Segment::open(&first).unwrap(), Segment::open(&second).unwrap()]);
        assert_eq!(column.rows(), 5);
        assert_eq!(column.get(3).unwrap(), Some(7));
        assert_eq!(column.decode(0..5).unwrap().values, vec![1, 2, 3, 7, 8]);
        assert!(column.get(5).is_err());
    }

    #[test]
    fn takes_over_segments_with_a_reference_per_block_agree_at_every_width() {
        // Residuals up to 56 bits are read with one load a row; wider ones through each part's reader.
        let mut rng = crate::stats::SplitMix(3);
        for bits in [0u32, 20, 56, 57, 64] {
            let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
            let values: Vec<u64> = (0..30_000u64).map(|i| (i << 40) ^ (rng.next() & mask)).collect();
            let options = EncodeOptions {
                segment_rows: 512,
                ..EncodeOptions::with_encoding("for_n".parse::<Cascade>().unwrap())
            };
            let encoded = EncodedColumn::encode(&values, None, options).unwrap();
            let column = encoded.open::<u64>().unwrap();
            assert!(column.segments.iter().all(|s| s.encoding() == EncodingId::ForN));
            // Fewer rows than one in `SPARSE_TAKE`: each is read where it lies.
            let rows: Vec<u64> = (0..500).map(|_| rng.below(values.len()) as u64).collect();
            let mut out = vec![0u64; rows.len()];
            column.take_into(&rows, &mut out).unwrap();
            assert!(out.iter().zip(&rows).all(|(&o, &r)| o == values[r as usize]), "{bits} bits");
        }
    }

    /// Radix segments of one base take sparse rows, in any order or ascending, in vector lanes where the
    /// CPU has them (a stream alone too, from 32 rows), as one at a time: small values about a negative
    /// reference (`i32`, wrapping in the lane) and a base whose words hold three chunks (`u64`); a row past
    /// the column is an error naming it.
    #[test]
    fn radix_takes_in_lanes_agree_with_the_values() {
        fn check<T: Value + LwcInt + std::fmt::Debug>(values: &[T]) {
            let options = EncodeOptions {
                segment_rows: 1024,
                ..EncodeOptions::with_encoding("radix".parse::<Cascade>().unwrap())
            };
            let encoded = EncodedColumn::encode(values, None, options).unwrap();
            let column = encoded.open::<T>().unwrap();
            let lanes = matches!(column.in_place, Some(InPlaceParts::Digits(_, _, Some(_))));
            assert_eq!(lanes, crate::kernels::cpu::avx512dq(), "{values:?}");
            let mut rng = crate::stats::SplitMix(5);
            for count in [1, 31, 32, 33, 100] {
                let mut rows: Vec<u32> = (0..count).map(|_| rng.below(values.len()) as u32).collect();
                for sorted in [false, true] {
                    if sorted {
                        rows.sort_unstable();
                    }
                    let mut out = vec![T::default(); rows.len()];
                    column.take_into(&rows, &mut out).unwrap();
                    let want: Vec<T> = rows.iter().map(|&r| values[r as usize]).collect();
                    assert_eq!(out, want, "{count} rows, sorted {sorted}");
                    // One segment's stream alone.
                    let first = &values[..1000];
                    let segment = encode_segment(first, None, "radix".parse::<Cascade>().unwrap()).unwrap();
                    let alone = Column::<T>::from_segments(vec![Segment::open(&segment).unwrap()]);
                    let local: Vec<u32> = rows.iter().map(|&r| r % 1000).collect();
                    alone.take_into(&local, &mut out).unwrap();
                    assert!(out.iter().zip(&local).all(|(o, &r)| *o == first[r as usize]), "{count} rows alone");
                }
            }
            let mut rows: Vec<u32> = (0..40).collect();
            rows[35] = values.len() as u32 + 2;
            let mut out = vec![T::default(); rows.len()];
            let err = column.take_into(&rows, &mut out).unwrap_err();
            assert!(matches!(err, Error::RowOutOfRange { row, .. } if row == values.len() as u64 + 2), "{err}");
        }
        let small: Vec<i32> = (0..5_200u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 28) as i32 - 20).collect();
        check(&small);
        // Base 5: 27 digits a word, 13 a chunk.
        let three_chunks: Vec<u64> = (0..5_200u64).map(|i| (1 << 40) | ((i * 7 + i / 3) % 5)).collect();
        check(&three_chunks);
    }

    /// `take` names the null rows: nulls in runs and alone, segments with none, rows in any order and
    /// ascending, with repeats, lists shorter and longer than a word of the validity bitmap; and a row out
    /// of range is an error, not a partial answer.
    #[test]
    fn takes_name_the_null_rows_over_many_segments() {
        let n = 3_000usize;
        let values: Vec<i64> = (0..n as i64).map(|i| (i * 7919) % 1_000 - 500).collect();
        // Runs of nulls across segment edges, lone nulls, and rows 1024 .. 1536 (two segments) with none.
        let valid: Vec<bool> =
            (0..n).map(|i| !((300..700).contains(&i) || (i % 13 == 0 && !(1024..1536).contains(&i)))).collect();
        let validity = Bitmap::from_bools(&valid);
        let mut rng = crate::stats::SplitMix(11);
        for cascade in ["bitpack", "rle", "delta:16"] {
            let options = EncodeOptions {
                segment_rows: 256,
                ..EncodeOptions::with_encoding(cascade.parse::<Cascade>().unwrap())
            };
            let encoded = EncodedColumn::encode(&values, Some(&validity), options).unwrap();
            let column = encoded.open::<i64>().unwrap();
            for k in [1, 63, 64, 65, 2_000, 9_000] {
                let mut rows: Vec<u64> = (0..k).map(|_| rng.below(n) as u64).collect();
                for ascending in [false, true] {
                    if ascending {
                        rows.sort_unstable();
                    }
                    let taken = column.take(&rows).unwrap();
                    let bits = taken.validity.as_ref().expect("the column has nulls");
                    assert_eq!(bits.len(), k, "{cascade}, {k} rows");
                    for (j, &row) in rows.iter().enumerate() {
                        assert_eq!(bits.get(j), valid[row as usize], "{cascade}: row {row} ({j} of {k})");
                        if valid[row as usize] {
                            assert_eq!(taken.values[j], values[row as usize], "{cascade}: row {row}");
                        }
                    }
                }
                rows.push(n as u64);
                assert!(matches!(column.take(&rows), Err(Error::RowOutOfRange { row, .. }) if row == n as u64));
            }
        }
    }

    /// Every path of a take over many segments against the values: rows read in place (sparse, segments
    /// that read a row in place), grouped by segment (denser lists, or segments that walk), gathered from
    /// the column decoded whole (one row in [`DECODE_WHOLE`] or more), ascending; on equal power-of-two
    /// segments (located by a shift), on equal segments of another length (by a multiply) and on unequal
    /// ones (by a search); and a row out of range named in the error whichever path it takes.
    #[test]
    fn takes_over_many_segments_agree_with_the_values() {
        let values: Vec<u32> = (0..10_000u32).map(|i| i.wrapping_mul(2_654_435_761) >> 7).collect();
        let sorted: Vec<u32> = (0..10_000u32).map(|i| i * 3 + (i % 7)).collect();
        // A step a segment: `auto` writes each segment `constant` (with another value each).
        let steps: Vec<u32> = (0..10_000u32).map(|i| (i >> 8) * 1000).collect();
        let digits: Vec<u32> = (0..10_000u32).map(|i| (i * 7 + i / 13) % 11 + 40).collect();
        // Radix segments of three bases, one after another.
        let bases: Vec<u32> = (0..10_000u32).map(|i| (i * 7 + i / 13) % (11 + (i >> 8) % 3) + 40).collect();
        // Multiples of 30, a few hundred apart.
        let tens: Vec<u32> = (0..10_000u32).map(|i| (i * 7_919 % 601) * 30 + 90).collect();
        // Ten bits, and one row in 19 far above: exceptions, and ordinary rows on the marker (1,023).
        let outliers: Vec<u32> =
            (0..10_000u32).map(|i| i * 7 % 1024 + if i % 19 == 0 { (1 << 24) + i } else { 0 }).collect();
        // Keys each repeated four times (as ps_partkey's are), and ids: arithmetic values, by run or by row.
        let keys: Vec<u32> = (0..10_000u32).map(|i| 700 + 3 * (i / 4)).collect();
        let ids: Vec<u32> = (0..10_000u32).map(|i| 5 + 2 * i).collect();
        let mut rng = crate::stats::SplitMix(9);
        // Each with how the column reads its segments in place, as gathered when it opens.
        let cases = [
            (&values, "bitpack", "frames"),
            (&values, "plain", "values"),
            (&values, "dict", "coded"),
            (&sorted, "delta:16", "none"),
            (&sorted, "rle", "none"),
            (&steps, "auto", "frames"),
            (&digits, "radix", "digits"),
            (&bases, "radix", "each"),
            // A reference per block: read in place with the block's reference, the `for` segment among
            // them as a frame.
            (&sorted, "for_n", "referenced"),
            (&values, "for_n:16", "referenced"),
            // Quotients read as a frame times the divisor.
            (&tens, "gcd(bitpack)", "scaled"),
            (&tens, "gcd(for)", "scaled"),
            // Exceptions decoded when the column opens, the `for` segment among them as a frame.
            (&outliers, "pfor", "patched"),
            // A row's run by a shift, then its value by a multiply.
            (&keys, "rle(sequence, sequence)", "stepped"),
            (&ids, "sequence", "stepped"),
        ];
        for (data, cascade, reads) in cases {
            let short = encode_segment(&data[..100], None, cascade.parse::<Cascade>().unwrap()).unwrap();
            let options = EncodeOptions {
                segment_rows: 256,
                ..EncodeOptions::with_encoding(cascade.parse::<Cascade>().unwrap())
            };
            let encoded = EncodedColumn::encode(data, None, options.clone()).unwrap();
            let uniform = encoded.open::<u32>().unwrap();
            assert_eq!(uniform.equal_parts.map(|p| p.part_len()), Some(256), "{cascade}");
            let gathered = |column: &Column<'_, u32>| match &column.in_place {
                None => "none",
                Some(InPlaceParts::Values { .. }) => "values",
                Some(InPlaceParts::Frames(_)) => "frames",
                Some(InPlaceParts::Referenced(_)) => "referenced",
                Some(InPlaceParts::Scaled(_)) => "scaled",
                Some(InPlaceParts::Coded(_)) => "coded",
                Some(InPlaceParts::Patched { .. }) => "patched",
                Some(InPlaceParts::Digits(..)) => "digits",
                Some(InPlaceParts::Stepped { .. }) => "stepped",
                Some(InPlaceParts::Each(_)) => "each",
            };
            assert_eq!(gathered(&uniform), reads, "{cascade}");
            // Equal segments of 300 rows: the same readers, each row's segment found by a multiply.
            let options = EncodeOptions { segment_rows: 300, ..options };
            let odd_encoded = EncodedColumn::encode(data, None, options).unwrap();
            let odd = odd_encoded.open::<u32>().unwrap();
            assert_eq!(odd.equal_parts.map(|p| p.part_len()), Some(300), "{cascade}");
            // `auto` writes the segments a step falls in otherwise.
            if cascade != "auto" {
                assert_eq!(gathered(&odd), reads, "{cascade}, segments of 300 rows");
            }
            if cascade == "auto" {
                assert!(uniform.segments.iter().all(|s| s.encoding() == EncodingId::Constant), "{cascade}");
            }
            // The same segments, cut unevenly: the first one alone, then the rest, as another writer might.
            let mut segments = uniform.segments;
            segments[0] = Segment::open(&short).unwrap();
            let shifted: Vec<u32> = data[..100].iter().chain(&data[256..]).copied().collect();
            let uneven = Column::from_segments(segments);
            assert_eq!(uneven.equal_parts, None);
            let uniform = encoded.open::<u32>().unwrap();
            let whole =
                EncodedColumn::encode(data, None, EncodeOptions::with_encoding(cascade.parse::<Cascade>().unwrap()))
                    .unwrap();
            let single = whole.open::<u32>().unwrap();
            assert_eq!(single.segments.len(), 1);
            assert_eq!(single.equal_parts.map(|p| p.part_len()), Some(1 << 14), "{cascade}: 10,000 rows, one segment");
            // One segment written otherwise (`for`): segments that read rows in place in different ways.
            let other = encode_segment(&data[256..512], None, "for".parse::<Cascade>().unwrap()).unwrap();
            let mut segments = encoded.open::<u32>().unwrap().segments;
            segments[1] = Segment::open(&other).unwrap();
            let mixed = Column::from_segments(segments);
            for (column, data) in [
                (&uniform, data.as_slice()),
                (&odd, data.as_slice()),
                (&uneven, shifted.as_slice()),
                (&single, data.as_slice()),
                (&mixed, data.as_slice()),
            ] {
                let n = data.len();
                // 400 rows of 10,000 go grouped by segment whatever the encoding; 5,000 and more decode whole.
                for k in [1, 7, 100, 400, 5_000, 30_000] {
                    let mut rows: Vec<u64> = (0..k).map(|_| rng.below(n) as u64).collect();
                    let mut out = vec![0u32; k];
                    column.take_into(&rows, &mut out).unwrap();
                    assert!(out.iter().zip(&rows).all(|(&o, &r)| o == data[r as usize]), "{cascade} {k}");
                    rows.sort_unstable();
                    column.take_into(&rows, &mut out).unwrap();
                    assert!(out.iter().zip(&rows).all(|(&o, &r)| o == data[r as usize]), "{cascade} {k} sorted");
                    // Ascending, then in any order: the rows from the first one out of order on go scattered.
                    let mut turned = rows.clone();
                    turned[k / 2..].reverse();
                    let narrow: Vec<u32> = turned.iter().map(|&r| r as u32).collect();
                    column.take_into(&narrow, &mut out).unwrap();
                    assert!(out.iter().zip(&turned).all(|(&o, &r)| o == data[r as usize]), "{cascade} {k} turned");
                    // `u32` row ids descending, then one out of range (one segment takes them as they are).
                    let mut ids: Vec<u32> = rows.iter().rev().map(|&r| r as u32).collect();
                    column.take_into(&ids, &mut out).unwrap();
                    assert!(out.iter().zip(&ids).all(|(&o, &r)| o == data[r as usize]), "{cascade} {k} u32");
                    ids[k / 2] = n as u32 + 3;
                    let err = column.take_into(&ids, &mut out).unwrap_err();
                    let expected = Error::RowOutOfRange { row: n as u64 + 3, rows: n as u64 };
                    assert_eq!(err.to_string(), expected.to_string(), "{cascade} {k} u32");
                    // A row id past `u32` is out of range, not cut to 32 bits, sorted or not.
                    let last = rows[k - 1];
                    rows[k - 1] = (1 << 32) + last;
                    let err = column.take_into(&rows, &mut out).unwrap_err();
                    assert!(matches!(err, Error::RowOutOfRange { row, .. } if row == (1 << 32) + last), "{cascade}");
                    rows[k - 1] = last;
                    rows.reverse();
                    rows[k / 2] = if k % 2 == 0 { n as u64 + 3 } else { (1 << 32) + 3 };
                    let err = column.take_into(&rows, &mut out).unwrap_err();
                    assert!(
                        matches!(err, Error::RowOutOfRange { row, .. } if row == rows[k / 2]),
                        "{cascade} {k}: {err}"
                    );
                }
                for row in [rng.below(n) as u64, 0, n as u64 - 1] {
                    assert_eq!(column.get(row).unwrap(), Some(data[row as usize]), "{cascade}: row {row}");
                }
                assert!(matches!(column.get(n as u64), Err(Error::RowOutOfRange { .. })), "{cascade}");
            }
        }
    }

    /// Arithmetic segments that continue one another (keys repeated eight times, 37 runs a segment; ids)
    /// read as one run of values, computed from the row; a jump between segments, or another step, keeps
    /// them apart. (A segment of `rle(sequence, sequence)` cannot end mid-run: its last run would be
    /// short, and its ends no sequence.) Either way takes of any order and either width of row id agree
    /// with the values, and a row out of range is named.
    #[test]
    fn arithmetic_segments_that_continue_read_as_one() {
        let keys: Vec<u32> = (0..5_000u32).map(|i| 700 + 3 * (i / 8)).collect();
        let ids: Vec<u32> = (0..5_000u32).map(|i| 5 + 2 * i).collect();
        let jumped: Vec<u32> = (0..5_000u32).map(|i| 5 + 2 * i + if i >= 592 { 1_000 } else { 0 }).collect();
        let bent: Vec<u32> = (0..5_000u32).map(|i| if i < 592 { 2 * i } else { 1_184 + 3 * (i - 592) }).collect();
        let mut rng = crate::stats::SplitMix(11);
        for (data, cascade, one) in [
            (&keys, "rle(sequence, sequence)", true),
            (&ids, "sequence", true),
            (&jumped, "sequence", false),
            (&bent, "sequence", false),
        ] {
            let options = EncodeOptions {
                segment_rows: 296,
                ..EncodeOptions::with_encoding(cascade.parse::<Cascade>().unwrap())
            };
            let encoded = EncodedColumn::encode(data, None, options).unwrap();
            let column = encoded.open::<u32>().unwrap();
            let parts = match &column.in_place {
                Some(InPlaceParts::Stepped { parts, .. }) => parts.len(),
                _ => panic!("{cascade}: not read as arithmetic values"),
            };
            assert_eq!(parts == 1, one, "{cascade}: {parts} parts");
            assert_eq!(column.in_place.as_ref().is_some_and(InPlaceParts::computes), one, "{cascade}");
            let n = data.len();
            for k in [1, 9, 1_000, 20_000] {
                let mut rows: Vec<u32> = (0..k).map(|_| rng.below(n) as u32).collect();
                rows[0] = n as u32 - 1;
                for sorted in [false, true] {
                    if sorted {
                        rows.sort_unstable();
                    }
                    let mut out = vec![0u32; k];
                    column.take_into(&rows, &mut out).unwrap();
                    assert!(out.iter().zip(&rows).all(|(&o, &r)| o == data[r as usize]), "{cascade} {k} {sorted}");
                    let wide: Vec<u64> = rows.iter().map(|&r| r.into()).collect();
                    column.take_into(&wide, &mut out).unwrap();
                    assert!(out.iter().zip(&rows).all(|(&o, &r)| o == data[r as usize]), "{cascade} {k} u64");
                    let mut past = rows.clone();
                    *past.last_mut().unwrap() = n as u32;
                    let err = column.take_into(&past, &mut out).unwrap_err();
                    let named = Error::RowOutOfRange { row: n as u64, rows: n as u64 };
                    assert_eq!(err.to_string(), named.to_string(), "{cascade} {k} {sorted}");
                }
            }
        }
    }

    /// `u32` row ids over equal segments of packed fields up to 25 bits wide are read eight or sixteen at
    /// a time from registers (`PartsInRegisters`), frames up to half the rows: frames of every width of
    /// value, codes into dictionaries and scaled fields alike (fields under a reference per block by the
    /// loop), in any order, with repeats, as `u64` row ids read them; a row out of range is named, in a
    /// full block or the tail.
    #[test]
    fn sparse_takes_over_few_segments_read_from_registers_as_the_values() {
        use crate::stats::SplitMix;
        let n = 16 * 256 - 100;
        let mut rng = SplitMix(5);
        // Each segment holds its range's ends, so every one is 20 bits wide under `bitpack` and `for`.
        let field = |i: usize, x: u64| match i % 256 {
            0 => 0,
            1 => (1 << 20) - 1,
            _ => (x & ((1 << 20) - 1)) as u32,
        };
        let fields: Vec<u32> = (0..n).map(|i| field(i, rng.next())).collect();
        // Under `for`, another base in each segment.
        let framed: Vec<u32> = fields.iter().enumerate().map(|(i, &f)| f + (i as u32 / 256) * 3_000).collect();
        // `bitpack` stores a negative `i32` at 32 bits: only `for` frames negative values narrowly.
        let signed = |values: &[u32], less: i32| values.iter().map(|&v| v as i32 - less).collect::<Vec<_>>();
        // Returns the scale the registers multiply fields by (1 where they do not), `None` without them.
        fn check<T: Value + PartialEq + std::fmt::Debug>(
            values: &[T],
            cascade: &str,
            rng: &mut SplitMix,
        ) -> Option<u32> {
            let n = values.len();
            let options = EncodeOptions {
                segment_rows: 256,
                ..EncodeOptions::with_encoding(cascade.parse::<Cascade>().unwrap())
            };
            let encoded = EncodedColumn::encode(values, None, options).unwrap();
            let column = encoded.open::<T>().unwrap();
            let kind = match column.in_place {
                Some(InPlaceParts::Frames(_)) => "bitpack for",
                Some(InPlaceParts::Coded(_)) => "dict",
                Some(InPlaceParts::Patched { .. }) => "pfor",
                Some(InPlaceParts::Referenced(_)) => "for_n",
                Some(InPlaceParts::Scaled(_)) => "gcd",
                _ => "",
            };
            assert!(kind.contains(cascade.split([':', '(']).next().unwrap()), "{cascade}: read as {kind:?}");
            // Fields under a reference per block read faster by the loop.
            assert_eq!(column.registers.is_some(), crate::kernels::cpu::avx2() && kind != "for_n", "{cascade}");
            // One row in 32 or fewer, and (from registers alone) up to one in two: each is read where
            // it lies.
            for k in [1, 8, 9, 100, 1_500] {
                let mut ids: Vec<u32> = (0..k).map(|_| rng.below(n) as u32).collect();
                ids.push(ids[0]);
                let mut out = vec![T::default(); ids.len()];
                column.take_into(&ids, &mut out).unwrap();
                let expected: Vec<T> = ids.iter().map(|&r| values[r as usize]).collect();
                assert_eq!(out, expected, "{} {cascade}, {k} rows", T::TYPE);
                let wide: Vec<u64> = ids.iter().map(|&r| r.into()).collect();
                column.take_into(&wide, &mut out).unwrap();
                assert_eq!(out, expected, "{} {cascade}, {k} u64 rows", T::TYPE);
                // Ascending, as a match vector comes: frames read these from registers too.
                let mut sorted = ids.clone();
                sorted.sort_unstable();
                column.take_into(&sorted, &mut out).unwrap();
                let expected: Vec<T> = sorted.iter().map(|&r| values[r as usize]).collect();
                assert_eq!(out, expected, "{} {cascade}, {k} sorted rows", T::TYPE);
                *sorted.last_mut().unwrap() = n as u32;
                let err = column.take_into(&sorted, &mut out).unwrap_err();
                let named = Error::RowOutOfRange { row: n as u64, rows: n as u64 };
                assert_eq!(err.to_string(), named.to_string(), "{} {cascade}, {k} sorted rows", T::TYPE);
                let bad = k / 2;
                ids[bad] = n as u32 + bad as u32;
                let err = column.take_into(&ids, &mut out).unwrap_err();
                let named = Error::RowOutOfRange { row: ids[bad].into(), rows: n as u64 };
                assert_eq!(err.to_string(), named.to_string(), "{} {cascade}, {k} rows", T::TYPE);
            }
            column.registers.map(|registers| registers.scale())
        }
        check(&fields, "bitpack", &mut rng);
        check(&framed, "for", &mut rng);
        check(&signed(&fields, 0), "bitpack", &mut rng);
        check(&signed(&framed, 600_000), "for", &mut rng);
        // 8-byte values (keys and money as Arrow's `Int64`), bases far past 32 bits.
        let long = |values: &[u32], less: i64| values.iter().map(|&v| i64::from(v) - less).collect::<Vec<_>>();
        check(&long(&fields, 0), "bitpack", &mut rng);
        check(&long(&framed, 5 << 40), "for", &mut rng);
        check(&long(&framed, 0).iter().map(|&v| v as u64 + (3 << 33)).collect::<Vec<_>>(), "for", &mut rng);
        // 1- and 2-byte frames, their bases added after the gather.
        check(&fields.iter().map(|&f| (f >> 4) as u16).collect::<Vec<_>>(), "bitpack", &mut rng);
        check(&framed.iter().map(|&f| (f >> 12) as i16 - 300).collect::<Vec<_>>(), "for", &mut rng);
        check(&fields.iter().map(|&f| (f >> 12) as u8).collect::<Vec<_>>(), "bitpack", &mut rng);
        // Codes into a dictionary of each segment's own values (a few hundred of them), and fields under
        // a reference per block of 16 rows, of every width of value.
        let few: Vec<u32> = fields.iter().map(|&f| f % 97 * 40_503 + f % 3).collect();
        check(&few, "dict", &mut rng);
        check(&long(&few, 1 << 40), "dict", &mut rng);
        check(&few.iter().map(|&v| v as u16).collect::<Vec<_>>(), "dict", &mut rng);
        let climbing: Vec<u32> = framed.iter().enumerate().map(|(i, &f)| (i as u32) * 5_000 + (f & 0xfff)).collect();
        check(&climbing, "for_n:16", &mut rng);
        check(&signed(&climbing, 1 << 30), "for_n:16", &mut rng);
        check(&long(&climbing, 7 << 36), "for_n:16", &mut rng);
        // Quotients times a divisor (l_quantity's cents: multiples of 100), below zero too.
        // One divisor in every segment: the registers multiply (`i64` and `u32`).
        let cents: Vec<i64> = fields.iter().map(|&f| i64::from(f % 5_000) * 100 - 7).collect();
        let avx2 = crate::kernels::cpu::avx2();
        assert_eq!(check(&cents, "gcd(bitpack)", &mut rng), avx2.then_some(100));
        assert_eq!(check(&framed.iter().map(|&f| f * 3).collect::<Vec<_>>(), "gcd(for)", &mut rng), avx2.then_some(3));
        check(&framed.iter().map(|&f| (f % 9_000) as i16 * 3 - 20_000).collect::<Vec<_>>(), "gcd(for)", &mut rng);
        // Another divisor in the second half of the segments: each segment's product made after the gather.
        let halves: Vec<u32> = framed.iter().enumerate().map(|(i, &f)| f * if i < 2_048 { 3 } else { 5 }).collect();
        assert_eq!(check(&halves, "gcd(bitpack)", &mut rng), avx2.then_some(1));
        // Exceptions (one row in 13 far above the rest), and ordinary rows on the marker.
        let patched: Vec<u32> =
            fields.iter().enumerate().map(|(i, &f)| (f & 0x3ff) + u32::from(i % 13 == 0) * f * 64).collect();
        check(&patched, "pfor", &mut rng);
        check(&long(&patched, 3 << 40), "pfor", &mut rng);
        check(&patched.iter().map(|&v| (v >> 4) as u16).collect::<Vec<_>>(), "pfor", &mut rng);
    }
}
