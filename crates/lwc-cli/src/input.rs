//! Reading tables: CSV (schema inferred), Parquet and Arrow IPC (file or stream format), as a stream of
//! record batches with a byte position for the progress bar.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use arrow::error::ArrowError;

/// Rows per batch read from CSV and Parquet.
pub const BATCH_ROWS: usize = 64 * 1024;

/// A table format the tool reads or writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Comma-separated (or `--delimiter`) text with a header line.
    Csv,
    /// Apache Parquet.
    Parquet,
    /// Arrow IPC file format (`ARROW1` magic; `.arrow`, `.ipc`, `.feather`).
    IpcFile,
    /// Arrow IPC stream format (`.arrows`).
    IpcStream,
    /// An `.lwc` file.
    Lwc,
}

impl Format {
    /// The format an extension names, if any.
    pub fn from_extension(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "csv" | "tsv" | "txt" => Format::Csv,
            "parquet" | "pq" => Format::Parquet,
            "arrow" | "ipc" | "feather" => Format::IpcFile,
            "arrows" => Format::IpcStream,
            "lwc" => Format::Lwc,
            _ => return None,
        })
    }

    /// The format of an existing file: by magic bytes where they tell, else by extension, else CSV if the
    /// start of the file is text.
    pub fn detect(path: &Path) -> Result<Format> {
        let mut head = Vec::with_capacity(4096);
        File::open(path)
            .with_context(|| format!("cannot open {}", path.display()))?
            .take(4096)
            .read_to_end(&mut head)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let by_magic = if head.starts_with(b"PAR1") {
            Some(Format::Parquet)
        } else if head.starts_with(b"ARROW1") {
            Some(Format::IpcFile)
        } else if head.starts_with(&[0xff, 0xff, 0xff, 0xff]) {
            Some(Format::IpcStream)
        } else if head.starts_with(b"LWCF") {
            Some(Format::Lwc)
        } else {
            None
        };
        match (Format::from_extension(path), by_magic) {
            // An IPC extension with stream bytes (or the reverse) is still IPC: trust the bytes.
            (_, Some(format)) => Ok(format),
            (Some(Format::Lwc), None) => Ok(Format::Lwc),
            (Some(Format::Csv), None) => Ok(Format::Csv),
            (Some(other), None) if !head.is_empty() => {
                bail!("{} has a {other:?} extension but does not start like one", path.display())
            }
            _ if head.is_empty() => bail!("{} is empty", path.display()),
            _ if !head.contains(&0) && std::str::from_utf8(&head[..head.len().min(4000)]).is_ok() => Ok(Format::Csv),
            _ => bail!(
                "cannot tell the format of {}: not CSV text, Parquet, Arrow IPC or .lwc (name it .csv, .parquet, .arrow or .arrows)",
                path.display()
            ),
        }
    }
}

/// CSV reading options.
#[derive(Debug, Clone, Copy)]
pub struct CsvOptions {
    /// Field delimiter (`,` unless given; `\t` for `.tsv`).
    pub delimiter: Option<u8>,
}

/// How far into the input the reader is.
enum Position {
    /// Bytes consumed, counted by the reader.
    Counted(Arc<AtomicU64>),
    /// Rows read of a known total (Parquet).
    Rows { done: u64, total: u64 },
    /// Batches read of a known total (IPC file).
    Batches { done: u64, total: u64 },
}

/// An open table: its schema and its batches.
pub struct Input {
    /// The detected format.
    pub format: Format,
    /// The schema, with types `.lwc` files do not store cast to ones they do (see [`lwc_file::storable_type`]).
    pub schema: SchemaRef,
    /// The file's size in bytes.
    pub file_bytes: u64,
    /// Rows in the file where its metadata says (Parquet, `.lwc`).
    pub rows: Option<u64>,
    batches: Box<dyn Iterator<Item = std::result::Result<RecordBatch, ArrowError>>>,
    position: Position,
    cast: bool,
}

impl Input {
    /// Opens `path` (format detected) for reading.
    pub fn open(path: &Path, csv: CsvOptions) -> Result<Input> {
        let format = Format::detect(path)?;
        let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
        let file_bytes = file.metadata()?.len();
        let mut rows = None;
        let (schema, batches, position): (SchemaRef, Box<dyn Iterator<Item = _>>, Position) = match format {
            Format::Csv => {
                let is_tsv = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("tsv"));
                let delimiter = csv.delimiter.unwrap_or(if is_tsv { b'\t' } else { b',' });
                let mut reader = BufReader::new(file);
                let (schema, _) = arrow::csv::reader::Format::default()
                    .with_header(true)
                    .with_delimiter(delimiter)
                    .infer_schema(&mut reader, None)
                    .with_context(|| {
                        format!("cannot read the CSV header and infer a schema from {}", path.display())
                    })?;
                if schema.fields().is_empty() {
                    bail!("{} has no header line", path.display());
                }
                let mut file = reader.into_inner();
                file.seek(SeekFrom::Start(0))?;
                let counter = Arc::new(AtomicU64::new(0));
                let counted = CountingReader { inner: file, count: counter.clone() };
                let schema = Arc::new(schema);
                let reader = arrow::csv::ReaderBuilder::new(schema.clone())
                    .with_header(true)
                    .with_delimiter(delimiter)
                    .with_batch_size(BATCH_ROWS)
                    .build(BufReader::with_capacity(1 << 20, counted))?;
                (schema, Box::new(reader), Position::Counted(counter))
            }
            Format::Parquet => {
                let builder = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
                    .with_context(|| format!("cannot read the Parquet metadata of {}", path.display()))?;
                let total = builder.metadata().file_metadata().num_rows().max(0) as u64;
                rows = Some(total);
                let schema = builder.schema().clone();
                let reader = builder.with_batch_size(BATCH_ROWS).build()?;
                (schema, Box::new(reader), Position::Rows { done: 0, total })
            }
            Format::IpcFile => {
                let reader = arrow::ipc::reader::FileReader::try_new(BufReader::new(file), None)
                    .with_context(|| format!("cannot read {} as an Arrow IPC file", path.display()))?;
                let total = reader.num_batches() as u64;
                (reader.schema(), Box::new(reader), Position::Batches { done: 0, total })
            }
            Format::IpcStream => {
                let counter = Arc::new(AtomicU64::new(0));
                let counted = CountingReader { inner: file, count: counter.clone() };
                let reader = arrow::ipc::reader::StreamReader::try_new(BufReader::new(counted), None)
                    .with_context(|| format!("cannot read {} as an Arrow IPC stream", path.display()))?;
                (reader.schema(), Box::new(reader), Position::Counted(counter))
            }
            Format::Lwc => {
                // Compressing an .lwc file again (with other options): its rows, decoded in row groups.
                drop(file);
                let lwc = lwc_file::LwcFile::open(path)?;
                rows = Some(lwc.num_rows());
                let schema = lwc.schema();
                let batches = lwc.read_batch().map_err(|e| ArrowError::ExternalError(Box::new(e)));
                (schema, Box::new(std::iter::once(batches)), Position::Batches { done: 0, total: 1 })
            }
        };
        let storable = lwc_file::storable_schema(&schema);
        let cast = storable != schema;
        Ok(Input { format, schema: storable, file_bytes, rows, batches, position, cast })
    }

    /// The next batch, `None` at the end.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        let Some(batch) = self.batches.next() else { return Ok(None) };
        let batch = batch.context("cannot read the input")?;
        match &mut self.position {
            Position::Rows { done, .. } => *done += batch.num_rows() as u64,
            Position::Batches { done, .. } => *done += 1,
            Position::Counted(_) => {}
        }
        Ok(Some(if self.cast { lwc_file::cast_to_schema(&batch, &self.schema)? } else { batch }))
    }

    /// Bytes of the file read so far (estimated from rows or batches where the reader does not count).
    pub fn bytes_read(&self) -> u64 {
        let share = |done: u64, total: u64| {
            if total == 0 {
                self.file_bytes
            } else {
                (self.file_bytes as f64 * done as f64 / total as f64) as u64
            }
        };
        match &self.position {
            Position::Counted(count) => count.load(Ordering::Relaxed),
            Position::Rows { done, total } | Position::Batches { done, total } => share(*done, *total),
        }
        .min(self.file_bytes)
    }
}

/// Counts the bytes read through it.
struct CountingReader<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}
