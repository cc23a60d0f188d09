//! Writing tables: CSV with a header, Parquet with zstd, Arrow IPC file format.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use anyhow::{bail, Context, Result};
use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

use crate::input::Format;

/// A table being written batch by batch.
pub enum TableWriter {
    /// CSV with a header line.
    Csv(arrow::csv::Writer<BufWriter<File>>),
    /// Parquet, zstd-compressed.
    Parquet(ArrowWriter<BufWriter<File>>),
    /// Arrow IPC file format.
    Ipc(arrow::ipc::writer::FileWriter<BufWriter<File>>),
}

/// Parquet writer settings used for output files and for the demo's size comparison: zstd level 3.
pub fn parquet_properties() -> WriterProperties {
    WriterProperties::builder().set_compression(Compression::ZSTD(ZstdLevel::default())).build()
}

impl TableWriter {
    /// Creates `path` in `format` (CSV, Parquet or IPC file).
    pub fn create(path: &Path, format: Format, schema: &SchemaRef) -> Result<TableWriter> {
        let file = File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
        let out = BufWriter::with_capacity(1 << 20, file);
        Ok(match format {
            Format::Csv => TableWriter::Csv(arrow::csv::WriterBuilder::new().with_header(true).build(out)),
            Format::Parquet => {
                TableWriter::Parquet(ArrowWriter::try_new(out, schema.clone(), Some(parquet_properties()))?)
            }
            Format::IpcFile | Format::IpcStream => {
                TableWriter::Ipc(arrow::ipc::writer::FileWriter::try_new(out, schema)?)
            }
            Format::Lwc => bail!("use `lwc compress` to write .lwc files"),
        })
    }

    /// Appends a batch.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        match self {
            TableWriter::Csv(w) => w.write(batch)?,
            TableWriter::Parquet(w) => w.write(batch)?,
            TableWriter::Ipc(w) => w.write(batch)?,
        }
        Ok(())
    }

    /// Writes the footer (Parquet, IPC) and flushes.
    pub fn finish(self) -> Result<()> {
        use std::io::Write;
        match self {
            TableWriter::Csv(w) => w.into_inner().flush()?,
            TableWriter::Parquet(w) => {
                w.close()?;
            }
            TableWriter::Ipc(mut w) => {
                w.finish()?;
                w.into_inner()?.flush()?;
            }
        }
        Ok(())
    }
}

/// The Parquet (zstd) bytes of a table, written in memory.
pub fn parquet_bytes(schema: &SchemaRef, batches: &[RecordBatch]) -> Result<Vec<u8>> {
    let mut writer = ArrowWriter::try_new(Vec::new(), schema.clone(), Some(parquet_properties()))?;
    for batch in batches {
        writer.write(batch)?;
    }
    Ok(writer.into_inner()?)
}
