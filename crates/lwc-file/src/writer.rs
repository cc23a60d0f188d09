//! Writing `.lwc` files: a streaming [`FileWriter`] that buffers rows up to one row group per thread,
//! encodes those row groups' columns in parallel and appends them; the footer goes last, then the file
//! is synced and renamed into place.

use std::collections::BTreeMap;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use arrow_schema::{Schema, SchemaRef};
use lwc::{EncodeOptions, Objective};
use rayon::prelude::*;
use tempfile::NamedTempFile;

use crate::encode::{encode_chunk, ChoiceChain, EncodedChunk};
use crate::error::{Error, Result};
use crate::format::{header, segment_checksum, tail, ColumnFooter, Footer};
use crate::info::{FileSummary, SegmentInfo};
use crate::schema::{check_schema, Storage};

/// Row groups encoded together (in parallel) when a batch spans many.
const GROUPS_AT_ONCE: usize = 16;

/// How a file is written.
#[derive(Debug, Clone, Default)]
pub struct WriteOptions {
    /// How integer segments are encoded; `segment_rows` is also the row group size of the file.
    pub encode: EncodeOptions,
    /// Threads encoding columns in parallel; `None` uses rayon's global pool. The writer buffers one
    /// row group (`encode.segment_rows` rows) per thread before it encodes them together.
    pub threads: Option<usize>,
    /// Objectives for single columns, by name, in place of `encode.objective` (see
    /// [`crate::plan_budget`], which picks them so a table fits a memory budget).
    pub column_objectives: BTreeMap<String, Objective>,
}

impl WriteOptions {
    /// The encode options of each column of `schema`; fails on a column objective naming no column.
    fn per_column(&self, schema: &Schema) -> Result<Vec<EncodeOptions>> {
        if let Some(name) = self.column_objectives.keys().find(|name| schema.index_of(name).is_err()) {
            return Err(Error::InvalidArgument(format!("an objective is given for '{name}', which is not a column")));
        }
        Ok(schema
            .fields()
            .iter()
            .map(|field| match self.column_objectives.get(field.name()) {
                Some(&objective) => EncodeOptions { objective, ..self.encode.clone() },
                None => self.encode.clone(),
            })
            .collect())
    }

    /// What the footer records the file was written with (informational).
    fn describe(&self) -> String {
        let e = &self.encode;
        let mut text = format!("cascade={} objective={} segment_rows={}", e.cascade, e.objective, e.segment_rows);
        if let Some(rows) = e.working_set_rows {
            text.push_str(&format!(" working_set_rows={rows}"));
        }
        if !self.column_objectives.is_empty() {
            let each: Vec<String> = self.column_objectives.iter().map(|(name, o)| format!("{name}:{o}")).collect();
            text.push_str(&format!(" column_objectives={}", each.join(";")));
        }
        text
    }
}

enum Sink {
    /// A temporary file in the target's directory, renamed to `path` by `finish`.
    File {
        out: BufWriter<NamedTempFile>,
        path: PathBuf,
    },
    Memory(Vec<u8>),
}

/// Writes a `.lwc` file batch by batch.
///
/// Nothing appears under the target name until [`FileWriter::finish`] succeeds: rows go to a temporary
/// file next to it, which is removed if the writer is dropped or fails.
pub struct FileWriter {
    sink: Sink,
    schema: SchemaRef,
    storage: Vec<Storage>,
    options: WriteOptions,
    /// How each column is encoded: `options.encode` with its column objective, if any.
    column_encode: Vec<EncodeOptions>,
    pool: Option<rayon::ThreadPool>,
    /// Full row groups buffered before they are encoded together: the pool's thread count.
    groups_per_flush: usize,
    pending: Vec<RecordBatch>,
    pending_rows: usize,
    position: u64,
    columns: Vec<ColumnFooter>,
    /// Per column, the choice its next segments may keep.
    choices: Vec<ChoiceChain>,
    rows: u64,
    failed: bool,
}

/// The pool `threads` asks for; `None` (no count given) means rayon's global pool.
pub(crate) fn thread_pool(threads: Option<usize>) -> Result<Option<rayon::ThreadPool>> {
    threads
        .map(|n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|e| Error::InvalidArgument(format!("cannot start {n} threads: {e}")))
        })
        .transpose()
}

/// Runs `work` on `pool`, or on rayon's global pool without one.
pub(crate) fn run_on<R: Send>(pool: Option<&rayon::ThreadPool>, work: impl FnOnce() -> R + Send) -> R {
    match pool {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

/// A temporary file in `dir` that gets the mode a plain `File::create` would (0666 less the umask on
/// Unix), not tempfile's private 0600: the file is renamed into place and should read like any other.
fn temp_file_in(dir: &Path) -> std::io::Result<NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(".lwc-tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir)
}

impl FileWriter {
    /// Starts writing a file at `path` (created or replaced when [`FileWriter::finish`] succeeds).
    /// Fails at once if a column's type cannot be stored or the options are invalid.
    pub fn create(path: impl AsRef<Path>, schema: SchemaRef, options: WriteOptions) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let storage = check_schema(&schema)?;
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let tmp = temp_file_in(&dir).map_err(|e| Error::io(&dir, e))?;
        FileWriter::start(Sink::File { out: BufWriter::with_capacity(1 << 20, tmp), path }, schema, storage, options)
    }

    /// A writer that keeps the file in memory (see [`write_to_bytes`]).
    fn in_memory(schema: SchemaRef, options: WriteOptions) -> Result<Self> {
        let storage = check_schema(&schema)?;
        FileWriter::start(Sink::Memory(Vec::new()), schema, storage, options)
    }

    fn start(sink: Sink, schema: SchemaRef, storage: Vec<Storage>, options: WriteOptions) -> Result<Self> {
        let segment_rows = options.encode.segment_rows;
        if segment_rows == 0 || segment_rows > u32::MAX as usize {
            return Err(Error::InvalidArgument(format!("segment_rows {segment_rows} is not in 1..=2^32-1")));
        }
        options.encode.cascade.check()?;
        let column_encode = options.per_column(&schema)?;
        let choices = column_encode.iter().map(ChoiceChain::new).collect();
        let pool = thread_pool(options.threads)?;
        // One row group's columns rarely cost alike (a comment column outweighs a flag), so a writer fed a
        // row group at a time would leave threads idle: it buffers as many row groups as it has threads.
        let groups_per_flush = run_on(pool.as_ref(), rayon::current_num_threads).clamp(1, GROUPS_AT_ONCE);
        let columns = storage
            .iter()
            .map(|&storage| ColumnFooter {
                storage,
                plain_bytes: 0,
                segments: Vec::new(),
                kinds: Vec::new(),
                cascades: Vec::new(),
            })
            .collect();
        let mut writer = FileWriter {
            sink,
            schema,
            storage,
            options,
            column_encode,
            pool,
            groups_per_flush,
            pending: Vec::new(),
            pending_rows: 0,
            position: 0,
            choices,
            columns,
            rows: 0,
            failed: false,
        };
        writer.write_bytes(&header())?;
        Ok(writer)
    }

    /// Rows accepted so far (written or buffered).
    pub fn rows_written(&self) -> u64 {
        self.rows + self.pending_rows as u64
    }

    /// Appends a batch of any size. Its columns must have the file's names and types (in order), and
    /// no nulls where the schema says a field is not nullable.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        if self.failed {
            return Err(Error::InvalidArgument("the writer failed earlier; start a new file".into()));
        }
        let fields = self.schema.fields();
        if batch.num_columns() != fields.len() {
            return Err(Error::InvalidArgument(format!(
                "batch has {} columns, the file's schema {}",
                batch.num_columns(),
                fields.len()
            )));
        }
        for (field, theirs) in fields.iter().zip(batch.schema().fields()) {
            if field.name() != theirs.name() || field.data_type() != theirs.data_type() {
                return Err(Error::InvalidArgument(format!(
                    "batch column '{}' ({}) does not match the file's column '{}' ({})",
                    theirs.name(),
                    theirs.data_type(),
                    field.name(),
                    field.data_type()
                )));
            }
        }
        let batch = RecordBatch::try_new(self.schema.clone(), batch.columns().to_vec())
            .map_err(|e| Error::InvalidArgument(format!("batch does not fit the file's schema: {e}")))?;
        if batch.num_rows() == 0 {
            return Ok(());
        }
        self.pending_rows += batch.num_rows();
        self.pending.push(batch);
        if self.pending_rows >= self.options.encode.segment_rows * self.groups_per_flush {
            self.flush(false)?;
        }
        Ok(())
    }

    /// Appends segments encoded beforehand (by [`crate::plan_budget`]): per column, one per row group of
    /// `segment_rows`, `rows` in all.
    pub(crate) fn write_encoded(&mut self, rows: u64, columns: Vec<Vec<EncodedChunk>>) -> Result<()> {
        let seg = self.options.encode.segment_rows as u64;
        let groups = rows.div_ceil(seg) as usize;
        if self.rows_written() != 0 || columns.len() != self.storage.len() || columns.iter().any(|c| c.len() != groups)
        {
            return Err(Error::InvalidArgument("planned segments do not match the file being written".into()));
        }
        let mut columns: Vec<_> = columns.into_iter().map(Vec::into_iter).collect();
        for g in 0..groups as u64 {
            for (c, chunks) in columns.iter_mut().enumerate() {
                self.append(c, chunks.next().expect("counted above"))?;
            }
            self.rows += seg.min(rows - g * seg);
        }
        Ok(())
    }

    /// Encodes and appends every full row group buffered (and the last partial one when `last`).
    fn flush(&mut self, last: bool) -> Result<()> {
        let groups = self.buffered_groups(last).inspect_err(|_| self.failed = true)?;
        // Windows never span two blocks of segments that keep one choice (see `ChoiceChain`).
        let first = (self.rows / self.options.encode.segment_rows as u64) as usize;
        let mut windows: Vec<std::ops::Range<usize>> = Vec::new();
        for g in 0..groups.len() {
            match windows.last_mut() {
                Some(w)
                    if w.len() < GROUPS_AT_ONCE
                        && ChoiceChain::place(first + g, self.options.encode.keep_choice) != 0 =>
                {
                    w.end += 1
                }
                _ => windows.push(g..g + 1),
            }
        }
        for window in windows.into_iter().map(|w| &groups[w]) {
            let chunks = self.encode_groups(window).inspect_err(|_| self.failed = true)?;
            let ncols = self.storage.len();
            for (k, chunk) in chunks.into_iter().enumerate() {
                self.append(k % ncols, chunk)?;
            }
            self.rows += window.iter().map(|b| b.num_rows() as u64).sum::<u64>();
        }
        Ok(())
    }

    /// Takes the buffered rows as row groups of `segment_rows` (and the partial rest when `last`),
    /// leaving the rest buffered. A row group inside one batch is a slice of it (no copy); only a group
    /// that spans batches is copied together.
    fn buffered_groups(&mut self, last: bool) -> Result<Vec<RecordBatch>> {
        let seg = self.options.encode.segment_rows;
        let (mut groups, mut pieces, mut piece_rows) = (Vec::new(), Vec::new(), 0);
        for batch in std::mem::take(&mut self.pending) {
            let mut at = 0;
            while at < batch.num_rows() {
                let n = (seg - piece_rows).min(batch.num_rows() - at);
                pieces.push(batch.slice(at, n));
                (piece_rows, at) = (piece_rows + n, at + n);
                if piece_rows == seg {
                    groups.push(self.joined(std::mem::take(&mut pieces))?);
                    piece_rows = 0;
                }
            }
        }
        if last && piece_rows > 0 {
            groups.push(self.joined(std::mem::take(&mut pieces))?);
            piece_rows = 0;
        }
        (self.pending, self.pending_rows) = (pieces, piece_rows);
        Ok(groups)
    }

    /// `pieces` as one batch: the piece itself when there is one, a copy of them together otherwise.
    fn joined(&self, mut pieces: Vec<RecordBatch>) -> Result<RecordBatch> {
        match pieces.len() {
            1 => Ok(pieces.pop().expect("one piece")),
            _ => Ok(arrow_select::concat::concat_batches(&self.schema, &pieces)?),
        }
    }

    /// Encodes every column of every row group in `window`, in parallel; results in (group, column) order.
    fn encode_groups(&self, window: &[RecordBatch]) -> Result<Vec<EncodedChunk>> {
        let ncols = self.storage.len();
        let run = || {
            (0..window.len() * ncols)
                .into_par_iter()
                .map(|k| {
                    let (group, c) = (k / ncols, k % ncols);
                    let segment = self.columns[c].segments.len() + group;
                    let previous = self.choices[c].previous(segment);
                    encode_chunk(
                        window[group].column(c).as_ref(),
                        self.storage[c],
                        &self.column_encode[c],
                        previous.as_ref(),
                    )
                    .map_err(|e| e.located(self.schema.field(c).name(), Some(segment)))
                })
                .collect::<Result<Vec<_>>>()
        };
        run_on(self.pool.as_ref(), run)
    }

    fn write_bytes(&mut self, bytes: &[u8]) -> Result<()> {
        match &mut self.sink {
            Sink::File { out, path } => {
                if let Err(e) = out.write_all(bytes) {
                    self.failed = true;
                    return Err(Error::io(path.clone(), e));
                }
            }
            Sink::Memory(v) => v.extend_from_slice(bytes),
        }
        self.position += bytes.len() as u64;
        Ok(())
    }

    fn pad_to_8(&mut self) -> Result<()> {
        let pad = (self.position.next_multiple_of(8) - self.position) as usize;
        self.write_bytes(&[0u8; 8][..pad])
    }

    /// Appends one encoded segment of column `column` and indexes it.
    fn append(&mut self, column: usize, chunk: EncodedChunk) -> Result<()> {
        self.pad_to_8()?;
        let offset = self.position;
        let stored = chunk.stored();
        self.write_bytes(stored)?;
        let (len, checksum) = (stored.len() as u64, segment_checksum(stored));
        let segment = self.columns[column].segments.len();
        self.choices[column].written(segment, chunk.choice);
        let c = &mut self.columns[column];
        c.segments.push(SegmentInfo {
            offset,
            len,
            rows: chunk.rows,
            nulls: chunk.nulls,
            min: chunk.min,
            max: chunk.max,
            bytes_zone: chunk.bytes_zone,
            checksum,
        });
        c.plain_bytes += chunk.plain_bytes;
        match c.cascades.iter_mut().find(|(text, _)| *text == chunk.cascade) {
            Some((_, n)) => *n += 1,
            None => c.cascades.push((chunk.cascade, 1)),
        }
        Ok(())
    }

    /// Writes what is buffered and the footer; for a file, syncs it and renames it into place.
    pub fn finish(self) -> Result<FileSummary> {
        self.finish_inner().map(|(summary, _)| summary)
    }

    fn finish_inner(mut self) -> Result<(FileSummary, Vec<u8>)> {
        if self.failed {
            return Err(Error::InvalidArgument("the writer failed earlier; start a new file".into()));
        }
        self.flush(true)?;
        let footer = Footer {
            options: self.options.describe(),
            rows: self.rows,
            segment_rows: self.options.encode.segment_rows as u64,
            schema: self.schema.as_ref().clone(),
            columns: std::mem::take(&mut self.columns),
        };
        let bytes = footer.encode()?;
        self.pad_to_8()?;
        self.write_bytes(&bytes)?;
        self.write_bytes(&tail(&bytes))?;
        let columns = footer.columns.iter().zip(self.schema.fields()).map(|(c, f)| c.info(f)).collect();
        let mut summary = FileSummary { path: PathBuf::new(), rows: self.rows, file_bytes: self.position, columns };
        match self.sink {
            Sink::Memory(v) => Ok((summary, v)),
            Sink::File { out, path } => {
                let tmp = out.into_inner().map_err(|e| Error::io(path.clone(), e.into_error()))?;
                tmp.as_file().sync_all().map_err(|e| Error::io(tmp.path(), e))?;
                tmp.persist(&path).map_err(|e| Error::io(path.clone(), e.error))?;
                // Make the rename durable too (best effort: not every platform syncs directories).
                if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                    if let Ok(d) = std::fs::File::open(dir) {
                        let _ = d.sync_all();
                    }
                }
                summary.path = path;
                Ok((summary, Vec::new()))
            }
        }
    }
}

/// Writes `batches` to a new file at `path`.
pub fn write_file(
    path: impl AsRef<Path>,
    schema: SchemaRef,
    batches: &[RecordBatch],
    options: WriteOptions,
) -> Result<FileSummary> {
    let mut writer = FileWriter::create(path, schema, options)?;
    for batch in batches {
        writer.write(batch)?;
    }
    writer.finish()
}

/// A file of segments encoded beforehand, in memory (see [`FileWriter::write_encoded`]).
pub(crate) fn encoded_to_bytes(
    schema: SchemaRef,
    options: WriteOptions,
    rows: u64,
    columns: Vec<Vec<EncodedChunk>>,
) -> Result<lwc::AlignedBytes> {
    let mut writer = FileWriter::in_memory(schema, options)?;
    writer.write_encoded(rows, columns)?;
    let (_, bytes) = writer.finish_inner()?;
    Ok(lwc::AlignedBytes::copy_from(&bytes))
}

/// The same file as [`write_file`], in memory.
pub fn write_to_bytes(schema: SchemaRef, batches: &[RecordBatch], options: WriteOptions) -> Result<lwc::AlignedBytes> {
    let mut writer = FileWriter::in_memory(schema, options)?;
    for batch in batches {
        writer.write(batch)?;
    }
    let (_, bytes) = writer.finish_inner()?;
    Ok(lwc::AlignedBytes::copy_from(&bytes))
}
