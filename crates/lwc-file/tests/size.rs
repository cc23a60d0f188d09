//! The per-segment overhead of the file stays small: 0..n as u64 costs a few dozen bytes per segment.

use std::sync::Arc;

use arrow_array::{RecordBatch, UInt64Array};
use arrow_schema::{DataType, Field, Schema};
use lwc_file::{FileWriter, LwcFile, WriteOptions};

/// Writes 0..n (u64) in batches of a million rows; returns the file size.
fn sequence_file_bytes(n: u64) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seq.lwc");
    let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::UInt64, false)]));
    let mut w = FileWriter::create(&path, schema.clone(), WriteOptions::default()).unwrap();
    let mut start = 0;
    while start < n {
        let end = (start + 1_000_000).min(n);
        let batch =
            RecordBatch::try_new(schema.clone(), vec![Arc::new(UInt64Array::from_iter_values(start..end))]).unwrap();
        w.write(&batch).unwrap();
        start = end;
    }
    let summary = w.finish().unwrap();
    let file = LwcFile::open(&path).unwrap();
    assert_eq!(file.num_rows(), n);
    let column = file.int_column(0).unwrap();
    let lwc_file::IntColumn::U64(c) = &column else { panic!("u64") };
    assert_eq!(c.get(n - 1).unwrap(), Some(n - 1));
    assert_eq!(c.aggregate(None).unwrap().sum, (n as i128 - 1) * n as i128 / 2);
    let segments = summary.columns[0].segments.len() as u64;
    println!(
        "0..{n} as u64: {} bytes in {segments} segments ({:.1} bytes per segment, {:?})",
        summary.file_bytes,
        summary.file_bytes as f64 / segments as f64,
        summary.columns[0].cascades
    );
    summary.file_bytes
}

#[test]
fn ten_million_integers_take_a_few_kilobytes() {
    let n: u64 = 10_000_000;
    let segments = n.div_ceil(1 << 16);
    let bytes = sequence_file_bytes(n);
    // 153 segments: lwc's own segment header is 32 bytes; a sequence body and the file's index add little.
    assert!(bytes < segments * 96, "{bytes} bytes for {segments} segments");
}

/// `cargo test --release -p lwc-file --test size -- --ignored --nocapture`
#[test]
#[ignore]
fn a_hundred_million_integers_stay_well_under_a_megabyte() {
    let bytes = sequence_file_bytes(100_000_000);
    assert!(bytes < 1_000_000 / 4, "{bytes}");
}
