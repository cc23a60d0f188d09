//! Corrupt and truncated files give errors naming what is wrong, never panics.

use std::path::Path;
use std::sync::Arc;

use arrow_array::*;
use arrow_schema::{DataType, Field, Schema};
use lwc::EncodeOptions;
use lwc_file::{write_file, Error, LwcFile, Result, WriteOptions};

/// A small file with every storage kind and several segments per column.
fn small_file(dir: &Path) -> Vec<u8> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("k", DataType::UInt8, true),
        Field::new("city", DataType::Utf8, true),
        Field::new("note", DataType::Utf8, true),
        Field::new("x", DataType::Float64, true),
        Field::new("d", DataType::Decimal128(30, 2), true),
    ]));
    let n = 300;
    let cities = ["Oslo", "Lima", "Pune"];
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(Int64Array::from_iter_values(0..n as i64)),
            Arc::new(UInt8Array::from_iter((0..n).map(|i| (i % 5 != 0).then_some((i * 7 % 13) as u8)))),
            Arc::new(StringArray::from_iter((0..n).map(|i| (i % 4 != 0).then_some(cities[i % 3])))),
            Arc::new(StringArray::from_iter((0..n).map(|i| (i % 6 != 0).then(|| format!("note {}", i * 31 % 97))))),
            Arc::new(Float64Array::from_iter((0..n).map(|i| (i % 3 != 0).then_some(i as f64 * 0.5)))),
            Arc::new(
                Decimal128Array::from_iter((0..n).map(|i| (i % 2 == 0).then_some(i as i128 * 10i128.pow(20))))
                    .with_precision_and_scale(30, 2)
                    .unwrap(),
            ),
        ],
    )
    .unwrap();
    let path = dir.join("small.lwc");
    let options =
        WriteOptions { encode: EncodeOptions { segment_rows: 128, ..Default::default() }, ..Default::default() };
    write_file(&path, schema, &[batch], options).unwrap();
    std::fs::read(&path).unwrap()
}

/// Opens, reads everything and verifies.
fn open_read_verify(path: &Path) -> Result<()> {
    let file = LwcFile::open(path)?;
    file.read_batch()?;
    for c in 0..file.columns().len() {
        file.take(c, &[0, file.num_rows().saturating_sub(1)])?;
        if file.int_column(c).is_ok() {
            file.int_column(c)?;
        }
    }
    file.verify()
}

#[test]
fn the_intact_file_reads() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = small_file(dir.path());
    open_read_verify(&dir.path().join("small.lwc")).unwrap();
    assert!(bytes.len() > 1000);
}

#[test]
fn every_flipped_byte_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = small_file(dir.path());
    let path = dir.path().join("flipped.lwc");
    for i in 0..bytes.len() {
        let masks: &[u8] = if i % 4 == 0 { &[0x01, 0x80] } else { &[0x01] };
        for &mask in masks {
            let mut b = bytes.clone();
            b[i] ^= mask;
            std::fs::write(&path, &b).unwrap();
            assert!(open_read_verify(&path).is_err(), "flipping byte {i} with {mask:#x} went unnoticed");
        }
    }
}

/// Every bit of the file is covered: flipping any one is reported when the file is opened or read (no
/// `verify`), padding and reserved bytes included.
#[test]
fn every_bit_flip_is_reported_on_open_or_read() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = small_file(dir.path());
    let mut missed = Vec::new();
    for i in 0..bytes.len() {
        for bit in 0..8 {
            let mut b = bytes.clone();
            b[i] ^= 1 << bit;
            let read = LwcFile::from_bytes(lwc::AlignedBytes::copy_from(&b)).and_then(|f| f.read_batch());
            if read.is_ok() {
                missed.push((i, bit));
            }
        }
    }
    assert!(missed.is_empty(), "{} of {} flips went unnoticed: {missed:?}", missed.len(), 8 * bytes.len());
}

/// Files written before checksums covered padding still read (and their padding is still checked by
/// `verify`).
#[test]
fn version_1_files_still_read() {
    let v1 = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/v1/ids_and_text.lwc");
    let file = LwcFile::open(&v1).unwrap();
    assert_eq!(file.format_version(), 1);
    file.read_batch().unwrap();
    file.verify().unwrap();
}

#[test]
fn every_truncation_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = small_file(dir.path());
    let path = dir.path().join("cut.lwc");
    for len in 0..bytes.len() {
        std::fs::write(&path, &bytes[..len]).unwrap();
        let err = open_read_verify(&path).expect_err("a truncated file opened");
        assert!(matches!(err, Error::Corrupt(_)), "{len}: {err}");
    }
}

#[test]
fn random_garbage_in_segments_never_panics() {
    use rand::{Rng, SeedableRng};
    let dir = tempfile::tempdir().unwrap();
    let bytes = small_file(dir.path());
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    for _ in 0..300 {
        let mut b = bytes.clone();
        let start = rng.gen_range(0..b.len());
        let len = rng.gen_range(1..64).min(b.len() - start);
        rng.fill(&mut b[start..start + len]);
        if b != bytes {
            let file = LwcFile::from_bytes(lwc::AlignedBytes::copy_from(&b));
            if let Ok(file) = file {
                let _ = file.read_batch();
                assert!(file.verify().is_err());
            }
        }
    }
}

fn message(bytes: &[u8]) -> String {
    match LwcFile::from_bytes(lwc::AlignedBytes::copy_from(bytes)) {
        Ok(file) => file.verify().expect_err("corruption went unnoticed").to_string(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn messages_name_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = small_file(dir.path());
    let n = bytes.len();

    let mut b = bytes.clone();
    b[0] = b'X';
    assert!(message(&b).contains("bad magic at the start"), "{}", message(&b));
    let mut b = bytes.clone();
    b[n - 1] = b'X';
    assert!(message(&b).contains("bad magic at the end"), "{}", message(&b));
    let mut b = bytes.clone();
    b[4] = 4;
    assert!(message(&b).contains("unsupported format version 4"), "{}", message(&b));
    let mut b = bytes.clone();
    b[n - 20] ^= 1; // last byte of the footer
    assert!(message(&b).contains("footer checksum mismatch"), "{}", message(&b));
    let mut b = bytes.clone();
    b[n - 16..n - 8].copy_from_slice(&(n as u64).to_le_bytes());
    assert!(message(&b).contains("footer length"), "{}", message(&b));

    // A byte inside the second segment of column "city": opening works, reading that segment fails.
    let file = LwcFile::from_bytes(lwc::AlignedBytes::copy_from(&bytes)).unwrap();
    let city = file.column_index("city").unwrap();
    let seg = &file.columns()[city].segments[1];
    let mut b = bytes.clone();
    b[(seg.offset + seg.len / 2) as usize] ^= 0x10;
    let file = LwcFile::from_bytes(lwc::AlignedBytes::copy_from(&b)).unwrap();
    file.read_range(city, 0..10).unwrap(); // segment 0 is intact
    let err = file.read_range(city, 200..210).unwrap_err().to_string();
    assert!(err.contains("column 'city', segment 1: checksum mismatch"), "{err}");
    assert!(file.read_column(0).is_ok(), "other columns are untouched");
    assert!(file.verify().is_err());

    assert!(matches!(LwcFile::open(dir.path().join("missing.lwc")), Err(Error::Io { .. })));
    let err = file.column_index("nope").unwrap_err().to_string();
    assert!(err.contains("id, k, city, note, x, d"), "{err}");
}

/// A take of values or strings fails on a damaged segment it touches, and only on one it touches: a take
/// that opens the column whole to keep it open (a dense list, or many short ones) must not make the takes
/// after it fail over a segment they do not read.
#[test]
fn takes_of_values_and_strings_fail_only_on_the_damaged_segment_they_touch() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = small_file(dir.path());
    let file = LwcFile::from_bytes(lwc::AlignedBytes::copy_from(&bytes)).unwrap();
    let columns = ["k", "x", "city", "note"].map(|name| file.column_index(name).unwrap());
    let mut b = bytes.clone();
    for column in columns {
        let seg = &file.columns()[column].segments[1];
        assert!(seg.len > 0, "segment 1 of column {column} is stored");
        b[(seg.offset + seg.len / 2) as usize] ^= 0x10;
    }
    let file = LwcFile::from_bytes(lwc::AlignedBytes::copy_from(&b)).unwrap();
    let intact = LwcFile::from_bytes(lwc::AlignedBytes::copy_from(&bytes)).unwrap();
    // Rows 0-127 lie in segment 0, 128-255 in the damaged segment 1, 256-299 in segment 2.
    let clear: Vec<u64> = vec![5, 290, 0, 299, 127, 256];
    let every: Vec<u64> = (0..300).rev().collect();
    for column in columns {
        for round in 0..8 {
            // The dense take opens the column whole, which fails; short takes then add up past the segment
            // count, which tries again.
            let err = file.take(column, &every).unwrap_err().to_string();
            assert!(err.contains("segment 1: checksum mismatch"), "round {round}: {err}");
            let err = file.take(column, &[3, 200]).unwrap_err().to_string();
            assert!(err.contains("segment 1: checksum mismatch"), "round {round}: {err}");
            let taken = file.take(column, &clear).unwrap();
            assert_eq!(taken.as_ref(), intact.take(column, &clear).unwrap().as_ref(), "round {round}");
        }
    }
}

/// Found by the corruption campaign: one byte made a string segment's dictionary claim 2,130,706,437
/// entries, which were decoded (39 s) before an offset check failed. The count is now checked first.
#[test]
fn a_dictionary_claiming_billions_of_entries_is_rejected_at_once() {
    let bytes = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions/dictionary_claims_billions_of_entries.lwc"),
    )
    .unwrap();
    let options = lwc_file::ReadOptions { verify_checksums: false };
    let file = LwcFile::from_bytes_with(lwc::AlignedBytes::copy_from(&bytes), options).unwrap();
    let err = file.read_column(file.column_index("category").unwrap()).unwrap_err().to_string();
    assert!(err.contains("2130706437 dictionary entries for 48 rows"), "{err}");
}
