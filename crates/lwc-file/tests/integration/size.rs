//! The per-segment overhead of the file stays small: 0..n as u64 costs its index alone (implied segments).

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
fn ten_million_integers_take_their_index_alone() {
    // 153 segments, all implied by their index entries (version 3): no segment bytes are stored, and the
    // index's columns (offsets, lengths, rows, checksums, min, max) are constants and sequences.
    let bytes = sequence_file_bytes(10_000_000);
    assert!(bytes < 2_000, "{bytes} bytes");
}

/// Issue 16's goal: 0 … 10^8 − 1 in at most 10 KB (pcodec: 9.6 KB), with O(1) `get`.
/// `cargo test --release -p lwc-file --test integration -- size:: --ignored --nocapture`
#[test]
#[ignore]
fn a_hundred_million_integers_take_under_ten_kilobytes() {
    let bytes = sequence_file_bytes(100_000_000);
    assert!(bytes <= 10_000, "{bytes}");
}

#[test]
fn implied_segments_read_like_stored_ones() {
    use lwc_file::ScanOptions;
    let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::UInt64, true)]));
    // A sequence, then a segment with a null (stored), then a sequence again.
    let values: Vec<Option<u64>> = (0..300_000u64).map(|i| (i != 140_000).then_some(10 + 2 * i)).collect();
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(UInt64Array::from(values.clone()))]).unwrap();
    let bytes = lwc_file::write_to_bytes(schema, std::slice::from_ref(&batch), WriteOptions::default()).unwrap();
    let file = LwcFile::from_bytes(bytes).unwrap();
    let lens: Vec<u64> = file.columns()[0].segments.iter().map(|s| s.len).collect();
    assert_eq!(lens.iter().filter(|&&l| l == 0).count(), 4, "{lens:?}");
    assert!(lens[2] > 0, "{lens:?}");
    file.verify().unwrap();
    assert_eq!(file.read_batch().unwrap(), batch);
    let picks = [299_999, 0, 140_000, 65_536, 65_535];
    let taken = file.take(0, &picks).unwrap();
    let want: Vec<Option<u64>> = picks.iter().map(|&i| values[i as usize]).collect();
    assert_eq!(taken.as_ref(), &UInt64Array::from(want) as &dyn arrow_array::Array);
    let filter = lwc_file::Filter::parse("n", "between 100 and 200").unwrap();
    let rows: usize =
        file.scan(ScanOptions::default().with_filter(filter)).unwrap().map(|b| b.unwrap().num_rows()).sum();
    assert_eq!(rows, 51);
}
