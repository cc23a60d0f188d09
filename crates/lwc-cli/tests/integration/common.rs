//! Helpers shared by the tests that run the `lwc` binary.

use std::fs::File;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;

pub fn lwc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lwc")).args(args).env("RUST_BACKTRACE", "1").output().expect("run lwc")
}

/// Runs lwc and expects success; returns stdout.
pub fn ok(args: &[&str]) -> String {
    let out = lwc(args);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "lwc {args:?} failed\nstdout: {stdout}\nstderr: {stderr}");
    stdout.into_owned()
}

/// Runs lwc and expects a clean failure; returns stderr.
pub fn fails(args: &[&str]) -> String {
    let out = lwc(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "lwc {args:?} should fail");
    assert!(!stderr.contains("panicked") && !stderr.contains("backtrace"), "lwc {args:?} panicked: {stderr}");
    assert!(stderr.starts_with("error"), "lwc {args:?}: unclear message: {stderr}");
    stderr
}

pub fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

pub fn write_csv(path: &Path, batch: &RecordBatch) {
    let mut w = arrow::csv::WriterBuilder::new().with_header(true).build(File::create(path).unwrap());
    w.write(batch).unwrap();
}

pub fn write_parquet(path: &Path, batch: &RecordBatch) {
    let mut w = parquet::arrow::ArrowWriter::try_new(File::create(path).unwrap(), batch.schema(), None).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
}

pub fn write_ipc_file(path: &Path, batch: &RecordBatch) {
    let mut w = arrow::ipc::writer::FileWriter::try_new(File::create(path).unwrap(), &batch.schema()).unwrap();
    w.write(batch).unwrap();
    w.finish().unwrap();
}

pub fn write_ipc_stream(path: &Path, batch: &RecordBatch) {
    let mut w = arrow::ipc::writer::StreamWriter::try_new(File::create(path).unwrap(), &batch.schema()).unwrap();
    let half = batch.num_rows() / 2;
    w.write(&batch.slice(0, half)).unwrap();
    w.write(&batch.slice(half, batch.num_rows() - half)).unwrap();
    w.finish().unwrap();
}

/// Reads a whole table back (one batch), as the command reads it (CSV: the schema inferred from every row).
pub fn read_back(path: &Path) -> RecordBatch {
    let (schema, batches): (SchemaRef, Vec<RecordBatch>) = match path.extension().unwrap().to_str().unwrap() {
        "parquet" => {
            let builder =
                parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap())
                    .unwrap();
            (builder.schema().clone(), builder.build().unwrap().map(Result::unwrap).collect())
        }
        "arrow" => {
            let reader = arrow::ipc::reader::FileReader::try_new(File::open(path).unwrap(), None).unwrap();
            (reader.schema(), reader.map(Result::unwrap).collect())
        }
        "csv" => {
            let mut f = File::open(path).unwrap();
            let format = arrow::csv::reader::Format::default().with_header(true);
            let (schema, _) = format.infer_schema(&mut f, None).unwrap();
            let schema = Arc::new(schema);
            let reader = arrow::csv::ReaderBuilder::new(schema.clone())
                .with_header(true)
                .build(File::open(path).unwrap())
                .unwrap();
            (schema, reader.map(Result::unwrap).collect())
        }
        other => panic!("no reader for {other}"),
    };
    arrow::compute::concat_batches(&schema, &batches).unwrap()
}

/// Compares two tables column by column: types, values, nulls. Schema metadata is ignored.
pub fn assert_same(got: &RecordBatch, want: &RecordBatch, what: &str) {
    assert_eq!(got.num_columns(), want.num_columns(), "{what}: columns");
    assert_eq!(got.num_rows(), want.num_rows(), "{what}: rows");
    for (i, field) in want.schema().fields().iter().enumerate() {
        let g = got.schema().field(i).clone();
        assert_eq!(g.name(), field.name(), "{what}: name of column {i}");
        assert_eq!(g.data_type(), field.data_type(), "{what}: type of {}", field.name());
        assert_eq!(got.column(i).to_data(), want.column(i).to_data(), "{what}: values of {}", field.name());
    }
}
