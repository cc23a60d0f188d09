//! Golden files: `.lwc` files written by earlier versions, read back by this version and compared with
//! their expected contents (`tests/golden/expected/NAME.arrow`, Arrow IPC, shared by every version's file
//! of that name). A change that breaks one must bump the format version and keep reading
//! the old one.
//!
//! `tests/golden/vN/` was written once (per version N) by `LWC_WRITE_GOLDEN=1 cargo test -p lwc-file --test integration -- golden::`, which
//! adds files only for cases that have none (into the folder of the format this build writes, [`CURRENT`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use lwc::{EncodeOptions, Encoding};
use lwc_file::{write_file, LwcFile, WriteOptions};

/// The version new golden files are written as: the format this build writes.
const CURRENT: &str = "v3";

fn dir(version: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(version)
}

/// The tables of the golden cases (name, table, how it is encoded): every stored type across several
/// segments, one row, no rows.
fn cases() -> Vec<(&'static str, RecordBatch, EncodeOptions)> {
    let rows = |segment_rows: usize| EncodeOptions { segment_rows, ..EncodeOptions::default() };
    let blocks = |cascade: Encoding| EncodeOptions { segment_rows: 4_000, ..EncodeOptions::with_encoding(cascade) };
    let one = crate::common::all_types(1, 11);
    let empty = one.slice(0, 0);
    let ids: ArrayRef = Arc::new(Int64Array::from_iter((0..2_000i64).map(|i| (i % 13 != 5).then_some(i * 3))));
    let text: ArrayRef = Arc::new(StringArray::from_iter((0..2_000).map(|i| match i % 9 {
        0 => None,
        1 => Some(String::new()),
        _ => Some(format!("{}-{}", ["MAIL", "SHIP", "AIR"][i % 3], "x".repeat(i % 40))),
    })));
    let schema = Schema::new(vec![Field::new("id", DataType::Int64, true), Field::new("text", DataType::Utf8, true)]);
    let mixed = RecordBatch::try_new(Arc::new(schema), vec![ids, text]).unwrap();
    vec![
        ("all_types", crate::common::all_types(1_000, 7), rows(300)),
        ("one_row", one, rows(65_536)),
        ("empty", empty, rows(65_536)),
        ("ids_and_text", mixed, rows(512)),
        // Floats and strings as core segments (footer storage tags 4 and 5), added within version 2:
        // the files above hold them as plain floats and the file's own dictionary (tags 2 and 3).
        ("all_types_in_core_segments", crate::common::all_types(1_000, 7), rows(300)),
        // The float and string encodings of issue 14 (alp, alp_rd, fsst), added within version 2.
        ("floats_and_text", floats_and_text(3_000), rows(1_024)),
        // Byte strings in compressed blocks (issue 14), added within version 2.
        ("text_in_zstd_blocks", text_only(floats_and_text(9_000)), blocks(Encoding::BytesZstd)),
        ("text_in_lz4_blocks", text_only(floats_and_text(9_000)), blocks(Encoding::BytesLz4)),
        // A dictionary of text with FSST-compressed entries (issue 14), added within version 2.
        ("text_in_dict_fsst", repeated_urls(6_000), blocks(Encoding::BytesDictFsst)),
        // Version 3: ascending sequences without nulls are implied by their index entries (no bytes);
        // a descending one, one with nulls and a constant are stored.
        ("implied_sequences", sequences(3_000), rows(1_000)),
    ]
}

/// Prices of decimal origin (`alp`), doubles of other origin (`alp_rd`), `f32` prices, and free text with
/// nulls and empty strings (`fsst`).
fn floats_and_text(rows: usize) -> RecordBatch {
    use arrow_array::{Float32Array, Float64Array};
    let mut x = 0x5eed_u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut columns: Vec<(&str, ArrayRef)> = Vec::new();
    let prices: Vec<Option<f64>> =
        (0..rows).map(|i| (i % 50 != 7).then(|| (90_000 + next() % 1_000_000) as f64 / 100.0)).collect();
    columns.push(("price", Arc::new(Float64Array::from(prices))));
    // Full mantissas at three magnitudes far apart: few front bits, random tails.
    let readings: Vec<f64> =
        (0..rows).map(|i| (1.0 + (next() >> 11) as f64 / (1u64 << 53) as f64) * [1e-30, 1.0, 1e30][i % 3]).collect();
    columns.push(("reading", Arc::new(Float64Array::from(readings))));
    let small: Vec<f32> = (0..rows).map(|_| (next() % 10_000) as f32 / 100.0).collect();
    columns.push(("price32", Arc::new(Float32Array::from(small))));
    let words = ["carefully", "final", "deposits", "sleep", "quickly", "among", "the", "ironic", "packages"];
    let text: Vec<Option<String>> = (0..rows)
        .map(|i| match i % 97 {
            0 => None,
            1 => Some(String::new()),
            _ => Some((0..4 + next() % 6).map(|_| words[(next() % 9) as usize]).collect::<Vec<_>>().join(" ")),
        })
        .collect();
    columns.push(("comment", Arc::new(StringArray::from(text))));
    let fields: Vec<Field> = columns.iter().map(|(n, a)| Field::new(*n, a.data_type().clone(), true)).collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns.into_iter().map(|(_, a)| a).collect()).unwrap()
}

/// Row ids, a countdown, ids with gaps for nulls, and a constant.
fn sequences(rows: usize) -> RecordBatch {
    use arrow_array::{Int16Array, Int32Array, UInt64Array};
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("id", Arc::new(UInt64Array::from_iter_values((0..rows as u64).map(|i| 1_000_000 + 5 * i)))),
        ("down", Arc::new(Int32Array::from_iter_values((0..rows as i32).map(|i| 7 - 3 * i)))),
        ("gapped", Arc::new(Int64Array::from_iter((0..rows as i64).map(|i| (i % 10 != 3).then_some(-40 + 2 * i))))),
        ("one", Arc::new(Int16Array::from_iter_values((0..rows).map(|_| -12)))),
    ];
    let fields: Vec<Field> = columns.iter().map(|(n, a)| Field::new(*n, a.data_type().clone(), true)).collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns.into_iter().map(|(_, a)| a).collect()).unwrap()
}

/// 1,500 distinct URLs over `rows` rows, with nulls and empty strings.
fn repeated_urls(rows: usize) -> RecordBatch {
    let urls = StringArray::from_iter((0..rows).map(|i| match i % 101 {
        0 => None,
        1 => Some(String::new()),
        _ => Some(format!("https://example.com/{}/{}", ["a", "bb", "ccc"][i % 3], i * 7 % 1_500)),
    }));
    let schema = Schema::new(vec![Field::new("url", DataType::Utf8, true)]);
    RecordBatch::try_new(Arc::new(schema), vec![Arc::new(urls)]).unwrap()
}

/// The text column of a table.
fn text_only(batch: RecordBatch) -> RecordBatch {
    batch.project(&[batch.schema().index_of("comment").unwrap()]).unwrap()
}

fn read_ipc(path: &Path) -> RecordBatch {
    let file = std::fs::File::open(path).unwrap();
    let reader = arrow_ipc::reader::FileReader::try_new(file, None).unwrap();
    let schema = reader.schema();
    let batches: Vec<RecordBatch> = reader.map(|b| b.unwrap()).collect();
    arrow_select_concat(schema, &batches)
}

fn arrow_select_concat(schema: arrow_schema::SchemaRef, batches: &[RecordBatch]) -> RecordBatch {
    if batches.is_empty() {
        return RecordBatch::new_empty(schema);
    }
    let columns: Vec<ArrayRef> = (0..schema.fields().len())
        .map(|c| {
            let parts: Vec<&dyn Array> = batches.iter().map(|b| b.column(c).as_ref()).collect();
            arrow_select::concat::concat(&parts).unwrap()
        })
        .collect();
    let options =
        arrow_array::RecordBatchOptions::new().with_row_count(Some(batches.iter().map(|b| b.num_rows()).sum()));
    RecordBatch::try_new_with_options(schema, columns, &options).unwrap()
}

fn write_missing(version: &str) {
    if std::env::var_os("LWC_WRITE_GOLDEN").is_none() {
        return;
    }
    let dir = dir(version);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, batch, encode) in cases() {
        let lwc = dir.join(format!("{name}.lwc"));
        if lwc.exists() {
            continue;
        }
        let options = WriteOptions { encode, ..WriteOptions::default() };
        write_file(&lwc, batch.schema(), std::slice::from_ref(&batch), options).unwrap();
        let expected = dir.parent().unwrap().join("expected").join(format!("{name}.arrow"));
        if expected.exists() {
            continue;
        }
        let ipc = std::fs::File::create(expected).unwrap();
        let mut writer = arrow_ipc::writer::FileWriter::try_new(ipc, &batch.schema()).unwrap();
        writer.write(&batch).unwrap();
        writer.finish().unwrap();
    }
}

/// Reads every golden file of `version` and compares it with its expected contents; returns how many.
fn check_version(version: &str) -> usize {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir(version))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "lwc"))
        .collect();
    files.sort();
    for path in &files {
        let name = path.display();
        let stem = path.file_stem().unwrap().to_string_lossy();
        let expected = read_ipc(&dir(version).parent().unwrap().join("expected").join(format!("{stem}.arrow")));
        let file = LwcFile::open(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(format!("v{}", file.format_version()), version, "{name}: format version");
        file.verify().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(file.schema(), expected.schema(), "{name}: schema");
        assert_eq!(file.read_batch().unwrap(), expected, "{name}: contents");
        let rows = expected.num_rows() as u64;
        let picks: Vec<u64> = (0..rows).rev().step_by(7).collect();
        for c in 0..expected.num_columns() {
            let taken = file.take(c, &picks).unwrap();
            let indices = arrow_array::UInt64Array::from(picks.clone());
            let want = arrow_select::take::take(expected.column(c).as_ref(), &indices, None).unwrap();
            assert_eq!(taken.as_ref(), want.as_ref(), "{name}: take of column {c}");
        }
    }
    files.len()
}

#[test]
fn golden_files_of_every_version_read_back_exactly() {
    write_missing(CURRENT);
    for (version, cases) in [("v1", 4), ("v2", 9), ("v3", 10)] {
        assert_eq!(check_version(version), cases, "{version}: every case has its golden files");
    }
}
