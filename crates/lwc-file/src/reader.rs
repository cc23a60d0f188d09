//! Reading `.lwc` files: [`LwcFile`] validates header, tail and footer once when opened, then serves
//! columns, ranges and row lists as Arrow arrays, and integer columns as lwc views, straight from the
//! memory map. A segment's checksum is verified the first time the segment is touched.

use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use arrow_array::{new_empty_array, ArrayRef, RecordBatch, RecordBatchOptions, UInt64Array};
use arrow_buffer::ArrowNativeType;
use arrow_schema::{DataType, SchemaRef};
use lwc::kernels::divisor::EqualParts;
use lwc::strings::BytesSegment;
use lwc::{AlignedBytes, Bitmap, ByteArray, Column, Segment, Value, ValueType};
use rayon::prelude::*;
use self_cell::self_cell;

use crate::chunk::ChunkRef;
use crate::decode::{
    bytes_to_arrow, decode_chunk, open_bytes_segment, open_value_segment, take_chunk, values_to_arrow,
};
use crate::encode::index_value;
use crate::error::{Error, Result};
use crate::filter::plan::key_to;
use crate::format::{checksummed_len, implied_segment, locate_footer, ColumnFooter, Footer, HEADER_LEN, IMPLIED_SINCE};
use crate::info::ColumnInfo;
use crate::int_column::IntColumn;
use crate::schema::Storage;

/// Rows a segment, on average, from which a take of integers goes through the column's take: a take of
/// that many random rows touches about 98 % of the segments, so opening them all costs little more, and
/// each run of rows in one segment (a lone row, for random rows) no longer costs a call of its own.
const TAKE_AS_COLUMN: usize = 4;

/// A take of strings (or wide decimals) with fewer rows than one in this many of the table's takes only
/// its rows from each segment; a longer one decodes the segments it touches whole.
const SPARSE_TAKE: usize = 2;

/// Bytes (as Arrow holds them, offsets included) from which a take of strings takes from its segments in
/// parallel: below it, the parts of a short list cost more to make Arrow arrays and join than they save
/// (300 rows of a one-byte flag from 92 segments took 84 µs in parallel, 100 took 19 µs alone).
const PARALLEL_TAKE_BYTES: u64 = 16 << 10;

enum Backing {
    Mmap(memmap2::Mmap),
    Bytes(AlignedBytes),
}

impl Backing {
    fn bytes(&self) -> &[u8] {
        match self {
            Backing::Mmap(m) => m,
            Backing::Bytes(b) => b,
        }
    }
}

/// Everything a segment's bytes are borrowed from: the file, and the segments rebuilt from the index.
struct Store {
    backing: Backing,
    /// Per column and segment: the bytes of an implied segment (length 0 in the index), rebuilt on first use.
    implied: Vec<Vec<OnceLock<Option<AlignedBytes>>>>,
}

/// A column of values kept open, whatever its type: its takes answer as Arrow arrays.
trait OpenValues: Send + Sync {
    fn take_to_arrow(&self, rows: &[u64], data_type: &DataType, name: &str) -> Result<ArrayRef>;
}

impl<T: Value + ArrowNativeType> OpenValues for Column<'_, T> {
    fn take_to_arrow(&self, rows: &[u64], data_type: &DataType, name: &str) -> Result<ArrayRef> {
        let taken =
            self.take(rows).map_err(|error| Error::InColumn { column: name.to_string(), segment: None, error })?;
        values_to_arrow::<T>(data_type, taken.values, taken.validity)
    }
}

/// A column kept open: its segments' views and in-place readers, never its decoded values.
enum Kept<'a> {
    Values(Box<dyn OpenValues + 'a>),
    /// Byte-string segments. A dictionary view may also keep its entries' ends, and `dict_fsst` its entries
    /// decompressed, once reads have cost about that much (at most the dictionaries' text).
    Bytes(Vec<BytesSegment<'a>>),
}

/// Per column: the column kept open once a take opened it whole (`None` where one of its segments
/// would not open; takes then open the segments they touch, and fail only on those).
type OpenColumns<'a> = Vec<OnceLock<Option<Kept<'a>>>>;

self_cell!(
    /// The file's bytes and the columns opened from them.
    struct StoreAndOpen {
        owner: Store,
        #[not_covariant]
        dependent: OpenColumns,
    }
);

/// How a file is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// Verify the footer's CRC-32C on open and each segment's the first time it is read (the default).
    /// Without it, damaged bytes are still caught where they break the structure (never a panic), but may
    /// decode to other values than were written: for data verified already, or for fuzzing the decoders
    /// below the checksums.
    pub verify_checksums: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions { verify_checksums: true }
    }
}

/// The file's shape, not its bytes: format version, rows and columns.
impl std::fmt::Debug for LwcFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LwcFile")
            .field("version", &self.version)
            .field("rows", &self.rows)
            .field("columns", &self.infos.iter().map(|c| (&c.name, &c.data_type)).collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// An open `.lwc` file.
///
/// A column of values (integers, decimals, dates, floats, ...) or of byte strings that a take opens whole
/// stays open until the file is dropped: its segments' views and in-place readers, not its values (250
/// bytes a segment under `bitpack`, 725 under l_orderkey's run-length cascade). A string dictionary's view
/// also keeps what reads paid to decode once they have cost about that much: its entries' ends, and under
/// `dict_fsst` its entries decompressed, so at most the dictionaries' text. A take opens the column whole
/// where it touches most segments (several rows a segment), or once the takes before it opened as many
/// segments one by one as the column has.
pub struct LwcFile {
    store: StoreAndOpen,
    /// The path it was opened from (`None` for a file in memory).
    path: Option<std::path::PathBuf>,
    schema: SchemaRef,
    rows: u64,
    options: String,
    columns: Vec<ColumnFooter>,
    infos: Vec<ColumnInfo>,
    /// Per column: first row of each segment, then the row count.
    pub(crate) starts: Vec<Vec<u64>>,
    /// Per column: its segments as equal parts, where they are (a row's segment is then a multiply, not a
    /// search of `starts`).
    parts: Vec<Option<EqualParts>>,
    /// Per column and segment: the checksum verdict, computed on first use.
    checked: Vec<Vec<OnceLock<std::result::Result<(), String>>>>,
    /// Per column: segments opened one by one by takes (see [`LwcFile`]).
    opened_one_by_one: Vec<AtomicUsize>,
    footer_start: usize,
    /// The format version the file was written in.
    version: u16,
    read_options: ReadOptions,
}

impl LwcFile {
    /// Opens and memory-maps a file, validating its header, tail and footer (not yet its segments).
    ///
    /// The file must not be modified or truncated while it is open (`.lwc` writers never modify a
    /// file in place: they write a new one and rename it).
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        LwcFile::open_with(path, ReadOptions::default())
    }

    /// [`LwcFile::open`] with options.
    pub fn open_with(path: impl AsRef<Path>, options: ReadOptions) -> Result<Self> {
        let path = path.as_ref();
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
        if len < 24 {
            return Err(Error::Corrupt(format!("{}: truncated: {len} bytes, a file has at least 24", path.display())));
        }
        let map = crate::mmap::map(&file).map_err(|e| Error::io(path, e))?;
        let mut file = LwcFile::with_backing(Backing::Mmap(map), options)?;
        file.path = Some(path.to_path_buf());
        Ok(file)
    }

    /// The path the file was opened from, `None` for one opened from bytes.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Opens a file held in memory.
    pub fn from_bytes(bytes: AlignedBytes) -> Result<Self> {
        LwcFile::with_backing(Backing::Bytes(bytes), ReadOptions::default())
    }

    /// [`LwcFile::from_bytes`] with options.
    pub fn from_bytes_with(bytes: AlignedBytes, options: ReadOptions) -> Result<Self> {
        LwcFile::with_backing(Backing::Bytes(bytes), options)
    }

    fn with_backing(backing: Backing, options: ReadOptions) -> Result<Self> {
        let bytes = backing.bytes();
        let (version, footer_range) = locate_footer(bytes, options.verify_checksums)?;
        let footer = Footer::decode(&bytes[footer_range.clone()], bytes.len() as u64)?;
        let footer_start = footer_range.start as u64;
        let mut starts = Vec::with_capacity(footer.columns.len());
        for (c, field) in footer.columns.iter().zip(footer.schema.fields()) {
            let name = field.name();
            let mut row = 0u64;
            let mut column_starts = Vec::with_capacity(c.segments.len() + 1);
            for (i, s) in c.segments.iter().enumerate() {
                let bad = |m: String| Error::Corrupt(format!("column '{name}', segment {i}: {m}"));
                let end = s.offset.checked_add(s.len);
                if s.offset < HEADER_LEN as u64 || s.offset % 8 != 0 || end.is_none_or(|e| e > footer_start) {
                    return Err(bad(format!(
                        "offset {} + length {} is not an 8-aligned range between the header and the footer (at {footer_start})",
                        s.offset, s.len
                    )));
                }
                if s.nulls > s.rows {
                    return Err(bad(format!("{} nulls in {} rows", s.nulls, s.rows)));
                }
                if let (Some(lo), Some(hi)) = (s.min, s.max) {
                    if lo > hi {
                        return Err(bad(format!("min {lo} exceeds max {hi}")));
                    }
                }
                if matches!(c.storage, Storage::Values(_)) && s.min.is_some() != (s.nulls < s.rows) {
                    return Err(bad("min/max present for an all-null segment, or missing for one with values".into()));
                }
                column_starts.push(row);
                row += s.rows as u64;
            }
            column_starts.push(row);
            if row != footer.rows {
                return Err(Error::Corrupt(format!(
                    "column '{name}': segments hold {row} rows, the table has {}",
                    footer.rows
                )));
            }
            starts.push(column_starts);
        }
        if version >= 2 {
            check_tiling(&footer, footer_start, version >= IMPLIED_SINCE)?;
        }
        let rows_of = |c: &ColumnFooter| c.segments.iter().map(|s| s.rows as u64).collect::<Vec<_>>();
        let parts = footer.columns.iter().map(|c| EqualParts::of_lengths(&rows_of(c))).collect();
        let infos = footer.columns.iter().zip(footer.schema.fields()).map(|(c, f)| c.info(f)).collect();
        let checked = footer.columns.iter().map(|c| c.segments.iter().map(|_| OnceLock::new()).collect()).collect();
        let implied = footer.columns.iter().map(|c| c.segments.iter().map(|_| OnceLock::new()).collect()).collect();
        let columns = footer.columns.len();
        Ok(LwcFile {
            store: StoreAndOpen::new(Store { backing, implied }, |_| (0..columns).map(|_| OnceLock::new()).collect()),
            opened_one_by_one: (0..columns).map(|_| AtomicUsize::new(0)).collect(),
            path: None,
            schema: Arc::new(footer.schema),
            rows: footer.rows,
            options: footer.options,
            columns: footer.columns,
            infos,
            starts,
            parts,
            checked,
            footer_start: footer_range.start,
            version,
            read_options: options,
        })
    }

    /// The table's schema.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// Rows in the table.
    pub fn num_rows(&self) -> u64 {
        self.rows
    }

    /// Size of the file in bytes.
    pub fn file_bytes(&self) -> u64 {
        self.bytes().len() as u64
    }

    /// The options the file says it was written with.
    pub fn options(&self) -> &str {
        &self.options
    }

    /// The columns with their segment index.
    pub fn columns(&self) -> &[ColumnInfo] {
        &self.infos
    }

    /// The smallest and largest non-null value of a column of values (integers, decimals, dates, times,
    /// booleans, floats in IEEE total order) as one-row arrays of its type, from the footer's zone maps: no
    /// segment is read. `None` for strings and binaries, plain-stored columns and columns without a value.
    pub fn column_range(&self, column: usize) -> Result<Option<(ArrayRef, ArrayRef)>> {
        self.column_in_range(column)?;
        let info = &self.infos[column];
        let Storage::Values(t) = info.storage else { return Ok(None) };
        let mut range: Option<(i128, i128)> = None;
        for s in info.segments.iter().filter(|s| s.nulls < s.rows) {
            let (Some(lo), Some(hi)) = (s.min, s.max) else { return Ok(None) };
            range = Some(range.map_or((lo, hi), |(a, b)| (a.min(lo), b.max(hi))));
        }
        let Some((lo, hi)) = range else { return Ok(None) };
        value_dispatch!(t, T => {
            let one = |k: i128| values_to_arrow::<T>(&info.data_type, vec![key_to::<T>(k)], None);
            Ok(Some((one(lo)?, one(hi)?)))
        })
    }

    /// The index of the column named `name`; the error lists the names there are.
    pub fn column_index(&self, name: &str) -> Result<usize> {
        self.schema.fields().iter().position(|f| f.name() == name).ok_or_else(|| Error::ColumnNotFound {
            name: name.to_string(),
            available: self.schema.fields().iter().map(|f| f.name().as_str()).collect::<Vec<_>>().join(", "),
        })
    }

    fn check_column(&self, column: usize) -> Result<()> {
        if column >= self.columns.len() {
            return Err(Error::ColumnOutOfRange { index: column, columns: self.columns.len() });
        }
        Ok(())
    }

    /// The format version the file was written in.
    pub fn format_version(&self) -> u16 {
        self.version
    }

    /// The whole file.
    fn bytes(&self) -> &[u8] {
        self.store.borrow_owner().backing.bytes()
    }

    /// The bytes of a segment, its checksum (over them and, from version 2, their padding) verified on
    /// first use.
    fn segment_bytes<'s>(&self, store: &'s Store, column: usize, segment: usize) -> Result<&'s [u8]> {
        let s = &self.columns[column].segments[segment];
        if s.len == 0 && self.version >= IMPLIED_SINCE {
            let storage = self.columns[column].storage;
            let rebuilt = store.implied[column][segment]
                .get_or_init(|| implied_segment(storage, s.rows, s.nulls, s.min, s.max))
                .as_deref();
            return rebuilt.ok_or_else(|| {
                Error::Corrupt(format!(
                    "column '{}', segment {segment}: no bytes are stored, and its index entry ({} rows, {} nulls, \
                     min {:?}, max {:?}) describes no segment",
                    self.infos[column].name, s.rows, s.nulls, s.min, s.max
                ))
            });
        }
        let all = store.backing.bytes();
        let bytes = &all[s.offset as usize..(s.offset + s.len) as usize];
        let verdict = self.checked[column][segment].get_or_init(|| {
            let covered = &all[s.offset as usize..(s.offset + checksummed_len(self.version, s.len)) as usize];
            let actual = if self.read_options.verify_checksums { crc32c::crc32c(covered) } else { s.checksum };
            if actual == s.checksum {
                Ok(())
            } else {
                Err(format!(
                    "column '{}', segment {segment}: checksum mismatch (stored {:#010x}, computed {actual:#010x})",
                    self.infos[column].name, s.checksum
                ))
            }
        });
        verdict.clone().map_err(Error::Corrupt)?;
        Ok(bytes)
    }

    /// An error of the core in segment `segment` of `column`, its kind kept.
    fn core_error(&self, column: usize, segment: usize, source: lwc::Error) -> Error {
        Error::InColumn { column: self.infos[column].name.clone(), segment: Some(segment), error: source }
    }

    /// Runs `f` on a checked segment.
    pub(crate) fn with_chunk<'s, R>(
        &'s self,
        column: usize,
        segment: usize,
        f: impl FnOnce(&ChunkRef<'s>) -> Result<R>,
    ) -> Result<R> {
        let bytes = self.segment_bytes(self.store.borrow_owner(), column, segment)?;
        f(&self.chunk(column, segment, bytes))
    }

    /// Segment `segment` of `column` with its bytes.
    fn chunk<'s>(&'s self, column: usize, segment: usize, bytes: &'s [u8]) -> ChunkRef<'s> {
        let s = &self.columns[column].segments[segment];
        let name = &self.infos[column].name;
        ChunkRef { bytes, rows: s.rows as usize, nulls: s.nulls as usize, column: name, segment }
    }

    /// The segment holding `row` (`row < rows`).
    pub(crate) fn locate(&self, column: usize, row: u64) -> usize {
        match self.parts[column] {
            Some(parts) => parts.locate(row).0 as usize,
            None => self.starts[column].partition_point(|&s| s <= row) - 1,
        }
    }

    /// A whole column.
    pub fn read_column(&self, column: usize) -> Result<ArrayRef> {
        self.read_range(column, 0..self.rows)
    }

    /// Rows `rows` of a column (segments decoded in parallel).
    pub fn read_range(&self, column: usize, rows: Range<u64>) -> Result<ArrayRef> {
        self.check_column(column)?;
        if rows.start > rows.end || rows.end > self.rows {
            return Err(Error::RowOutOfRange { row: rows.end.max(rows.start), rows: self.rows });
        }
        let data_type = self.schema.field(column).data_type();
        if rows.is_empty() {
            return Ok(new_empty_array(data_type));
        }
        let storage = self.columns[column].storage;
        let starts = &self.starts[column];
        let (first, last) = (self.locate(column, rows.start), self.locate(column, rows.end - 1));
        let parts = (first..=last)
            .into_par_iter()
            .map(|s| {
                let local = rows.start.max(starts[s]) - starts[s]..rows.end.min(starts[s + 1]) - starts[s];
                self.with_chunk(column, s, |chunk| {
                    decode_chunk(chunk, data_type, storage, local.start as usize..local.end as usize)
                })
            })
            .collect::<Result<Vec<_>>>()?;
        concat(data_type, parts)
    }

    /// The rows at `rows` of a column, in the order given (repeats allowed). A take of values or of
    /// byte strings may keep the column open for the takes after it (see [`LwcFile`]).
    pub fn take(&self, column: usize, rows: &[u64]) -> Result<ArrayRef> {
        self.check_column(column)?;
        if let Some(&row) = rows.iter().find(|&&r| r >= self.rows) {
            return Err(Error::RowOutOfRange { row, rows: self.rows });
        }
        match self.columns[column].storage {
            Storage::Values(t) => self.take_values(column, rows, t),
            Storage::Bytes(_) if self.is_sparse(rows) => self.take_bytes(column, rows),
            storage => self.take_decoded(column, rows, storage),
        }
    }

    /// Whether a take of `rows` takes only its rows from each segment rather than decoding the segments
    /// it touches whole.
    fn is_sparse(&self, rows: &[u64]) -> bool {
        rows.len().saturating_mul(SPARSE_TAKE) < self.rows as usize
    }

    /// The rows of a take grouped by segment.
    fn group_by_segment(&self, column: usize, rows: &[u64]) -> BySegment {
        let starts = &self.starts[column];
        let segment_of: Vec<u32> = rows.iter().map(|&r| self.locate(column, r) as u32).collect();
        let mut first = vec![0usize; starts.len()];
        for &s in &segment_of {
            first[s as usize + 1] += 1;
        }
        for s in 1..first.len() {
            first[s] += first[s - 1];
        }
        let (mut next, mut local, mut placed) = (first.clone(), vec![0u32; rows.len()], Vec::with_capacity(rows.len()));
        for (&s, &r) in segment_of.iter().zip(rows) {
            let slot = &mut next[s as usize];
            local[*slot] = (r - starts[s as usize]) as u32;
            placed.push(*slot as u64);
            *slot += 1;
        }
        BySegment { segment_of, first, local, placed }
    }

    /// The column kept open, opened whole first where this take of `rows` rows calls for it (see
    /// [`LwcFile`]); `None` where it is not (or cannot be) kept.
    fn kept<'k, 's>(
        &self,
        store: &'s Store,
        kept: &'k OnceLock<Option<Kept<'s>>>,
        column: usize,
        rows: usize,
    ) -> Option<&'k Kept<'s>> {
        let segments = self.columns[column].segments.len();
        if kept.get().is_none()
            && (rows >= TAKE_AS_COLUMN * segments || self.opened_one_by_one[column].load(Ordering::Relaxed) >= segments)
        {
            let opened = match self.columns[column].storage {
                Storage::Values(t) => value_dispatch!(t, T => {
                    self.open_column_in::<T>(store, column).ok().map(|c| Kept::Values(Box::new(c)))
                }),
                Storage::Bytes(_) => self.open_bytes_in(store, column).ok().map(Kept::Bytes),
                _ => None,
            };
            // A take beside this one may have opened it too: either is kept.
            let _ = kept.set(opened);
        }
        kept.get()?.as_ref()
    }

    /// [`LwcFile::take`] of a column whose values are not kept as lwc segments (wide decimals, and
    /// strings in version 1 files), or of a long list of strings: each segment touched gives the rows
    /// asked of it, in parallel, and one gather puts them in the caller's order. A short list takes only
    /// its rows from each segment; a long one decodes each segment it touches whole.
    fn take_decoded(&self, column: usize, rows: &[u64], storage: Storage) -> Result<ArrayRef> {
        let data_type = self.schema.field(column).data_type();
        let starts = &self.starts[column];
        if self.is_sparse(rows) {
            let groups = self.group_by_segment(column, rows);
            let parts = groups
                .touched()
                .par_iter()
                .map(|&s| {
                    self.with_chunk(column, s, |chunk| take_chunk(chunk, data_type, storage, groups.positions(s)))
                })
                .collect::<Result<Vec<_>>>()?;
            let indices = UInt64Array::from(groups.placed);
            return Ok(arrow_select::take::take(concat(data_type, parts)?.as_ref(), &indices, None)?);
        }
        let mut touched: Vec<usize> = rows.iter().map(|&r| self.locate(column, r)).collect();
        touched.sort_unstable();
        touched.dedup();
        let parts = touched
            .par_iter()
            .map(|&s| self.with_chunk(column, s, |chunk| decode_chunk(chunk, data_type, storage, 0..chunk.rows)))
            .collect::<Result<Vec<_>>>()?;
        let mut base = vec![0u64; touched.len()];
        let mut next = 0u64;
        for (b, part) in base.iter_mut().zip(&parts) {
            *b = next;
            next += part.len() as u64;
        }
        let indices: UInt64Array = rows
            .iter()
            .map(|&r| {
                let s = self.locate(column, r);
                let k = touched.binary_search(&s).unwrap_or_default();
                base[k] + (r - starts[s])
            })
            .collect();
        let all = concat(data_type, parts)?;
        Ok(arrow_select::take::take(all.as_ref(), &indices, None)?)
    }

    /// [`LwcFile::take`] of a column of values: through the column's take (which reads scattered rows in
    /// place or groups them by segment) where the column is kept open or this take opens it (see
    /// [`LwcFile`]), else run by run of rows in one segment, opening only the segments touched.
    fn take_values(&self, column: usize, rows: &[u64], t: ValueType) -> Result<ArrayRef> {
        let data_type = self.schema.field(column).data_type();
        self.store.with_dependent(|store, open| {
            if let Some(Kept::Values(open)) = self.kept(store, &open[column], column, rows.len()) {
                return open.take_to_arrow(rows, data_type, &self.infos[column].name);
            }
            value_dispatch!(t, T => {
                let (values, validity) = self.take_segment_by_segment::<T>(column, rows)?;
                values_to_arrow::<T>(data_type, values, validity)
            })
        })
    }

    /// [`LwcFile::take`] of a short list of byte strings: each segment touched takes only its rows (a
    /// row of text decoded, not the 65,536 of its segment), from the column kept open where it is (see
    /// [`LwcFile`]) or else opened for this take alone. A list of less than [`PARALLEL_TAKE_BYTES`] is
    /// gathered into the caller's order and made one Arrow array; a longer one is taken, and each
    /// segment's rows made an Arrow array (checked as UTF-8), in parallel, and Arrow's take puts them in
    /// order.
    fn take_bytes(&self, column: usize, rows: &[u64]) -> Result<ArrayRef> {
        let data_type = self.schema.field(column).data_type();
        let groups = self.group_by_segment(column, rows);
        let touched = groups.touched();
        let to_arrow = |segment: Option<usize>, taken: ByteArray| {
            bytes_to_arrow(data_type, taken, || {
                let at = segment.map(|s| format!(", segment {s}")).unwrap_or_default();
                format!("column '{}'{at}", self.infos[column].name)
            })
        };
        self.store.with_dependent(|store, open| {
            let kept = match self.kept(store, &open[column], column, rows.len()) {
                Some(Kept::Bytes(segments)) => Some(segments),
                _ => None,
            };
            if kept.is_none() {
                self.opened_one_by_one[column].fetch_add(touched.len(), Ordering::Relaxed);
            }
            let take = |s: usize| match kept {
                Some(segments) => segments[s].take(groups.positions(s)).map_err(|e| self.core_error(column, s, e)),
                None => self.with_chunk(column, s, |chunk| {
                    open_bytes_segment(chunk)?.take(groups.positions(s)).map_err(|e| chunk.core_error(e))
                }),
            };
            let bytes = rows.len() as u64 * self.infos[column].plain_bytes / self.rows.max(1);
            if bytes < PARALLEL_TAKE_BYTES {
                let parts = touched.iter().map(|&s| take(s)).collect::<Result<Vec<_>>>()?;
                return to_arrow(None, groups.gather(&touched, &parts));
            }
            let parts = touched
                .par_iter()
                .map(|&s| take(s).and_then(|part| to_arrow(Some(s), part)))
                .collect::<Result<Vec<_>>>()?;
            let indices = UInt64Array::from(groups.placed.clone());
            Ok(arrow_select::take::take(concat(data_type, parts)?.as_ref(), &indices, None)?)
        })
    }

    /// Gathers values run by run of rows in one segment, opening only the segments touched.
    fn take_segment_by_segment<T: Value>(&self, column: usize, rows: &[u64]) -> Result<(Vec<T>, Option<Bitmap>)> {
        let mut values = vec![T::default(); rows.len()];
        let mut valid = vec![true; rows.len()];
        let mut opened: Vec<Option<Segment<'_, T>>> = (0..self.columns[column].segments.len()).map(|_| None).collect();
        let starts = &self.starts[column];
        let mut local = Vec::new();
        let mut k = 0;
        while k < rows.len() {
            let s = self.locate(column, rows[k]);
            if opened[s].is_none() {
                opened[s] = Some(self.with_chunk(column, s, |chunk| open_value_segment::<T>(chunk))?);
            }
            let segment = opened[s].as_ref().expect("opened above");
            let range = starts[s]..starts[s + 1];
            local.clear();
            while k + local.len() < rows.len() && range.contains(&rows[k + local.len()]) {
                local.push((rows[k + local.len()] - range.start) as u32);
            }
            let n = local.len();
            segment.take_into(&local, &mut values[k..k + n]).map_err(|e| self.core_error(column, s, e))?;
            if let Some(words) = segment.validity() {
                for (j, &p) in local.iter().enumerate() {
                    valid[k + j] = words[p as usize / 64] >> (p % 64) & 1 == 1;
                }
            }
            k += n;
        }
        let touched = opened.iter().filter(|s| s.is_some()).count();
        self.opened_one_by_one[column].fetch_add(touched, Ordering::Relaxed);
        let validity = valid.contains(&false).then(|| Bitmap::from_bools(&valid));
        Ok((values, validity))
    }

    /// The whole table (columns decoded in parallel).
    pub fn read_batch(&self) -> Result<RecordBatch> {
        let columns =
            (0..self.columns.len()).into_par_iter().map(|c| self.read_column(c)).collect::<Result<Vec<_>>>()?;
        let options = RecordBatchOptions::new().with_row_count(Some(self.rows as usize));
        Ok(RecordBatch::try_new_with_options(self.schema.clone(), columns, &options)?)
    }

    fn open_column<T: Value>(&self, column: usize) -> Result<Column<'_, T>> {
        self.open_column_in(self.store.borrow_owner(), column)
    }

    /// Opens every segment of `column`, its bytes borrowed from `store` (not from the chunk, whose
    /// lifetime is also `self`'s: a column kept open lives as long as the store).
    fn open_column_in<'s, T: Value>(&self, store: &'s Store, column: usize) -> Result<Column<'s, T>> {
        let segments = (0..self.columns[column].segments.len())
            .map(|s| {
                let bytes = self.segment_bytes(store, column, s)?;
                let chunk = self.chunk(column, s, bytes);
                chunk.open_values::<T>(bytes, chunk.rows, Some(chunk.nulls))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Column::from_segments(segments))
    }

    /// Opens every segment of a column of byte strings, as [`LwcFile::open_column_in`] does values.
    fn open_bytes_in<'s>(&self, store: &'s Store, column: usize) -> Result<Vec<BytesSegment<'s>>> {
        (0..self.columns[column].segments.len())
            .map(|s| {
                let bytes = self.segment_bytes(store, column, s)?;
                self.chunk(column, s, bytes).open_bytes(bytes)
            })
            .collect()
    }

    /// An integer-backed column as an lwc view (get, take, filter, aggregate on the encoded segments).
    /// Strings, floats and wide decimals are [`Error::NotInteger`].
    pub fn int_column(&self, column: usize) -> Result<IntColumn<'_>> {
        self.check_column(column)?;
        let not_integer = || {
            let field = self.schema.field(column);
            Error::NotInteger { column: field.name().clone(), data_type: field.data_type().clone() }
        };
        let Storage::Values(t) = self.columns[column].storage else { return Err(not_integer()) };
        Ok(match t {
            lwc::ValueType::U8 => IntColumn::U8(self.open_column(column)?),
            lwc::ValueType::U16 => IntColumn::U16(self.open_column(column)?),
            lwc::ValueType::U32 => IntColumn::U32(self.open_column(column)?),
            lwc::ValueType::U64 => IntColumn::U64(self.open_column(column)?),
            lwc::ValueType::I8 => IntColumn::I8(self.open_column(column)?),
            lwc::ValueType::I16 => IntColumn::I16(self.open_column(column)?),
            lwc::ValueType::I32 => IntColumn::I32(self.open_column(column)?),
            lwc::ValueType::I64 => IntColumn::I64(self.open_column(column)?),
            lwc::ValueType::F32 | lwc::ValueType::F64 => return Err(not_integer()),
        })
    }

    /// Checks everything: every segment's checksum and structure (decoding it fully), that integer
    /// segments agree with the index's min/max, and that no bytes outside the indexed segments (the
    /// padding) are non-zero.
    pub fn verify(&self) -> Result<()> {
        (0..self.columns.len()).into_par_iter().try_for_each(|c| {
            let storage = self.columns[c].storage;
            let data_type = self.schema.field(c).data_type();
            (0..self.columns[c].segments.len()).try_for_each(|s| {
                self.with_chunk(c, s, |chunk| {
                    let array = decode_chunk(chunk, data_type, storage, 0..chunk.rows)?;
                    if array.logical_null_count() != chunk.nulls {
                        return Err(Error::Corrupt(format!("{}: null count differs from the index", chunk.what())));
                    }
                    if let Storage::Values(t) = storage {
                        let info = &self.columns[c].segments[s];
                        let (lo, hi) = value_dispatch!(t, T => {
                            let seg = open_value_segment::<T>(chunk)?;
                            (seg.min().map(index_value), seg.max().map(index_value))
                        });
                        if (lo, hi) != (info.min, info.max) {
                            return Err(Error::Corrupt(format!("{}: min/max differ from the index", chunk.what())));
                        }
                    }
                    Ok(())
                })
            })
        })?;
        let mut spans: Vec<(u64, u64)> =
            self.columns.iter().flat_map(|c| c.segments.iter().map(|s| (s.offset, s.offset + s.len))).collect();
        spans.sort_unstable();
        let bytes = self.bytes();
        let mut cursor = HEADER_LEN as u64;
        for (start, end) in spans.into_iter().chain([(self.footer_start as u64, self.footer_start as u64)]) {
            if start < cursor {
                return Err(Error::Corrupt(format!("segments overlap at byte {start}")));
            }
            if let Some(at) = bytes[cursor as usize..start as usize].iter().position(|&b| b != 0) {
                return Err(Error::Corrupt(format!("non-zero padding byte at {}", cursor as usize + at)));
            }
            cursor = end;
        }
        Ok(())
    }
}

/// Checks that the segments of every column tile the file from the header to the footer, each starting
/// where the one before ends, rounded up to 8: then every byte of a version 2 file lies in the header
/// (checked by value), in a segment or its padding (covered by the segment's checksum), in the footer or
/// in the tail (covered by the footer's checksum and the magic).
fn check_tiling(footer: &Footer, footer_start: u64, implied_allowed: bool) -> Result<()> {
    let mut spans: Vec<(u64, u64)> =
        footer.columns.iter().flat_map(|c| c.segments.iter().map(|s| (s.offset, s.len))).collect();
    spans.sort_unstable();
    let mut cursor = HEADER_LEN as u64;
    for (offset, len) in spans {
        // An implied segment (no bytes) sits where the next stored one starts.
        if offset != cursor || (len == 0 && !implied_allowed) {
            return Err(Error::Corrupt(format!(
                "segment at byte {offset} ({len} bytes) does not start where the one before ends (byte {cursor})"
            )));
        }
        cursor = (offset + len).next_multiple_of(8);
    }
    if cursor != footer_start {
        return Err(Error::Corrupt(format!("the segments end at byte {cursor}, the footer starts at {footer_start}")));
    }
    Ok(())
}

/// One array from the parts of a range, in order.
fn concat(data_type: &arrow_schema::DataType, parts: Vec<ArrayRef>) -> Result<ArrayRef> {
    if parts.is_empty() {
        return Ok(new_empty_array(data_type));
    }
    if parts.len() == 1 {
        return Ok(parts.into_iter().next().expect("one part"));
    }
    let refs: Vec<&dyn arrow_array::Array> = parts.iter().map(|a| a.as_ref()).collect();
    Ok(arrow_select::concat::concat(&refs)?)
}

/// The rows of a take grouped by segment (a counting sort), each segment's in the caller's order.
struct BySegment {
    /// Per row of the take: its segment.
    segment_of: Vec<u32>,
    /// Per segment: where its rows start in `local`; then the take's length.
    first: Vec<usize>,
    /// The rows within their segment, segment after segment.
    local: Vec<u32>,
    /// Per row of the take: its place in `local`.
    placed: Vec<u64>,
}

impl BySegment {
    /// The segments holding at least one row, ascending.
    fn touched(&self) -> Vec<usize> {
        (0..self.first.len() - 1).filter(|&s| self.first[s] < self.first[s + 1]).collect()
    }

    /// Segment `s`'s rows within it.
    fn positions(&self, s: usize) -> &[u32] {
        &self.local[self.first[s]..self.first[s + 1]]
    }

    /// The take in the caller's order, from `parts`: one per segment of `touched`, holding its
    /// [`BySegment::positions`] in order.
    fn gather(&self, touched: &[usize], parts: &[ByteArray]) -> ByteArray {
        let mut part_of = vec![0u32; self.first.len() - 1];
        for (p, &s) in touched.iter().enumerate() {
            part_of[s] = p as u32;
        }
        let mut out = ByteArray::with_capacity(self.placed.len());
        out.data.reserve(parts.iter().map(|p| p.data.len()).sum());
        let nulls = parts.iter().any(|p| p.validity.is_some());
        let mut valid = Vec::with_capacity(if nulls { self.placed.len() } else { 0 });
        for (&s, &slot) in self.segment_of.iter().zip(&self.placed) {
            let row = parts[part_of[s as usize] as usize].get(slot as usize - self.first[s as usize]);
            if nulls {
                valid.push(row.is_some());
            }
            out.push(row.unwrap_or_default());
        }
        out.validity = nulls.then(|| Bitmap::from_bools(&valid));
        out
    }
}
