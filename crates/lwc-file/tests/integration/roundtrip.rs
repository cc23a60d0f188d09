//! Round trips of every supported type through a real file and through bytes.

use std::sync::Arc;

use crate::common::{all_types, cut};
use arrow_array::*;
use arrow_schema::{DataType, Field, Schema};
use lwc::{EncodeOptions, Predicate};
use lwc_file::{with_int_column, write_file, write_to_bytes, Error, FileWriter, LwcFile, Storage, WriteOptions};

fn options(segment_rows: usize) -> WriteOptions {
    WriteOptions { encode: EncodeOptions { segment_rows, ..Default::default() }, ..Default::default() }
}

/// Writes `batches` to a file and to bytes, checks both read back as `expected`, and returns the file.
fn round_trip(batches: &[RecordBatch], options: WriteOptions) -> (LwcFile, tempfile::TempDir) {
    let schema = batches[0].schema();
    let expected = arrow_select::concat::concat_batches(&schema, batches).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.lwc");
    let summary = write_file(&path, schema.clone(), batches, options.clone()).unwrap();
    assert_eq!(summary.rows, expected.num_rows() as u64);
    assert_eq!(summary.file_bytes, std::fs::metadata(&path).unwrap().len());
    let file = LwcFile::open(&path).unwrap();
    assert_eq!(file.columns(), &summary.columns[..]);
    let bytes = write_to_bytes(schema.clone(), batches, options).unwrap();
    assert_eq!(&bytes[..], &std::fs::read(&path).unwrap()[..], "file and bytes are the same format");
    for f in [&file, &LwcFile::from_bytes(bytes).unwrap()] {
        f.verify().unwrap();
        assert_eq!(f.schema(), schema);
        assert_eq!(f.num_rows(), expected.num_rows() as u64);
        let batch = f.read_batch().unwrap();
        assert_eq!(batch.schema(), schema);
        assert_eq!(batch, expected);
        for c in 0..schema.fields().len() {
            assert_eq!(f.read_column(c).unwrap().as_ref(), expected.column(c).as_ref(), "column {c}");
            assert_eq!(f.columns()[c].nulls as usize, expected.column(c).null_count());
        }
    }
    (file, dir)
}

#[test]
fn every_type_with_nulls_in_one_row_group() {
    round_trip(&[all_types(1000, 1)], WriteOptions::default());
}

#[test]
fn every_type_over_many_row_groups_and_uneven_batches() {
    let batch = all_types(2500, 2);
    let (file, _dir) = round_trip(&cut(&batch, &[1, 700, 33, 1024, 5]), options(256));
    assert!(file.columns().iter().all(|c| c.segments.len() == 10));
    assert!(file.options().contains("segment_rows=256"));
}

/// The writer buffers one row group per thread before encoding; row groups cut across uneven batches
/// come out the same whatever the thread count, so the bytes do too.
#[test]
fn thread_counts_write_the_same_bytes_from_uneven_batches() {
    let batch = all_types(2500, 6);
    let batches = cut(&batch, &[1, 700, 33, 1024, 5, 256, 255]);
    let write = |threads| {
        let options = WriteOptions { threads: Some(threads), ..options(256) };
        write_to_bytes(batch.schema(), &batches, options).unwrap()
    };
    let one = write(1);
    for threads in [2, 3, 16, 17] {
        assert_eq!(&write(threads)[..], &one[..], "{threads} threads");
    }
    let (file, _dir) = round_trip(&batches, WriteOptions { threads: Some(3), ..options(256) });
    assert!(file.columns().iter().all(|c| c.segments.len() == 10));
}

#[test]
fn one_row_and_empty_tables() {
    round_trip(&[all_types(1, 3)], options(16));
    let empty = all_types(0, 4);
    let (file, _dir) = round_trip(&[empty], WriteOptions::default());
    assert_eq!(file.num_rows(), 0);
    assert!(file.columns().iter().all(|c| c.segments.is_empty()));
    assert_eq!(file.read_range(0, 0..0).unwrap().len(), 0);
}

#[test]
fn zero_columns() {
    let schema = Arc::new(Schema::empty());
    let bytes = write_to_bytes(schema.clone(), &[], WriteOptions::default()).unwrap();
    let file = LwcFile::from_bytes(bytes).unwrap();
    assert_eq!(file.read_batch().unwrap().num_columns(), 0);
    assert!(matches!(file.column_index("x"), Err(Error::ColumnNotFound { .. })));
}

#[test]
fn strings_choose_dictionary_or_fsst() {
    let (file, _dir) = round_trip(&[all_types(3000, 5)], options(1000));
    let storage = |name: &str| file.columns()[file.column_index(name).unwrap()].storage;
    let tops = |name: &str| -> Vec<String> {
        let cascades = &file.columns()[file.column_index(name).unwrap()].cascades;
        cascades.iter().map(|(c, n)| format!("{} x{n}", c.split('(').next().unwrap())).collect()
    };
    assert_eq!(storage("s_dict"), Storage::Bytes(lwc::strings::BytesType::Utf8));
    assert_eq!(storage("bin"), Storage::Bytes(lwc::strings::BytesType::Binary));
    assert_eq!(tops("s_dict"), ["dict x3"]);
    // Mostly distinct text: FSST, on its rows or on a dictionary's entries where enough of them repeat.
    let fsst = |t: &String| t.starts_with("fsst x") || t.starts_with("dict_fsst x");
    assert!(tops("s_plain").iter().all(fsst), "{:?}", tops("s_plain"));
    assert_eq!(storage("s_dict").to_string(), "bytes");
    assert_eq!(storage("f64"), Storage::Values(lwc::ValueType::F64));
    assert_eq!(storage("dec128_wide"), Storage::Plain(16));
    assert_eq!(storage("dec128_small"), Storage::Values(lwc::ValueType::I64));
    assert_eq!(storage("bool"), Storage::Values(lwc::ValueType::U8));
    let dict = &file.columns()[file.column_index("s_dict").unwrap()];
    assert!(dict.encoded_bytes * 4 < dict.plain_bytes, "{dict:?}");
    assert!(dict.cascades.iter().all(|(c, _)| c.starts_with("dict(")), "{:?}", dict.cascades);
}

/// Large segments: a probe of spread rows rules the dictionary out for all-distinct strings without
/// hashing every row, while strings that repeat (each one twice) still have one estimated.
#[test]
fn large_string_segments_probe_before_hashing_every_row() {
    let rows = 20_000;
    let schema = Arc::new(Schema::new(vec![
        Field::new("unique", DataType::Utf8, true),
        Field::new("twice", DataType::Utf8, false),
    ]));
    let unique = StringArray::from_iter((0..rows).map(|i| (i % 9 != 0).then(|| format!("comment number {i}"))));
    let twice = StringArray::from_iter_values((0..rows).map(|i| format!("clerk {}", i % (rows / 2))));
    let batch = RecordBatch::try_new(schema, vec![Arc::new(unique), Arc::new(twice)]).unwrap();
    let (file, _dir) = round_trip(std::slice::from_ref(&batch), options(rows));
    let top = |c: usize| file.columns()[c].cascades[0].0.split('(').next().unwrap().to_string();
    // Each string twice: a dictionary of half the rows, its entries FSST-compressed, beats FSST on every row.
    assert_eq!((top(0), top(1)), ("fsst".to_string(), "dict_fsst".to_string()));
    let dict_estimate = |c: usize| {
        let explains = lwc_file::explain_array(batch.column(c).as_ref(), &options(rows).encode).unwrap();
        let dict = explains[0].candidates.iter().find(|k| k.encoding == lwc::EncodingId::BytesDict).unwrap();
        (dict.estimated_bytes.is_some(), dict.note)
    };
    assert_eq!(dict_estimate(0), (false, "nearly every string is distinct"));
    assert!(dict_estimate(1).0);
}

#[test]
fn extremes_and_all_null_segments() {
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::UInt64, true),
        Field::new("s", DataType::Utf8, true),
        Field::new("f", DataType::Float32, true),
    ]));
    let a = Int64Array::from(vec![Some(i64::MIN), Some(i64::MAX), None, None, None, None, Some(0), Some(-1)]);
    let b = UInt64Array::from(vec![Some(u64::MAX), Some(0), None, None, None, None, None, Some(1)]);
    let s = StringArray::from(vec![Some("x"), None, None, None, None, None, None, Some("")]);
    let f = Float32Array::from(vec![None, None, None, None, Some(1.5), None, None, Some(f32::INFINITY)]);
    let batch = RecordBatch::try_new(schema, vec![Arc::new(a), Arc::new(b), Arc::new(s), Arc::new(f)]).unwrap();
    let (file, _dir) = round_trip(&[batch], options(2));
    let a = &file.columns()[0].segments;
    assert_eq!((a[0].min, a[0].max), (Some(i64::MIN as i128), Some(i64::MAX as i128)));
    assert_eq!((a[1].min, a[1].max), (None, None));
    let b = &file.columns()[1].segments;
    assert_eq!(b[0].max, Some(u64::MAX as i128));
}

#[test]
fn read_range_across_segment_boundaries_and_take() {
    // Segments of a power of two rows, and of any other equal length, are found by their own cut.
    for segment_rows in [64, 100] {
        read_range_across_segment_boundaries_and_take_in(segment_rows);
    }
}

fn read_range_across_segment_boundaries_and_take_in(segment_rows: usize) {
    let batch = all_types(1000, 6);
    let (file, _dir) = round_trip(std::slice::from_ref(&batch), options(segment_rows));
    let rows: Vec<u64> = vec![999, 0, 64, 63, 63, 500, 1, 999, 128, 127, 99, 100, 199, 200, 899, 900];
    let indices = UInt64Array::from(rows.clone());
    for c in 0..batch.num_columns() {
        for range in [0..1u64, 60..70, 63..64, 64..65, 10..900, 999..1000, 5..5] {
            let got = file.read_range(c, range.clone()).unwrap();
            let want = batch.column(c).slice(range.start as usize, (range.end - range.start) as usize);
            assert_eq!(got.as_ref(), want.as_ref(), "column {c} range {range:?}");
        }
        let got = file.take(c, &rows).unwrap();
        let want = arrow_select::take::take(batch.column(c).as_ref(), &indices, None).unwrap();
        assert_eq!(got.as_ref(), want.as_ref(), "take column {c}");
        // Rows enough to go through the column's take (4 a segment or more): scattered with repeats, then
        // ascending.
        let mut many: Vec<u64> = (0..300u64).map(|i| i * 7_919 % 1000).chain([999, 0, 0]).collect();
        for _ in 0..2 {
            let indices = UInt64Array::from(many.clone());
            let want = arrow_select::take::take(batch.column(c).as_ref(), &indices, None).unwrap();
            assert_eq!(file.take(c, &many).unwrap().as_ref(), want.as_ref(), "take of {} rows, column {c}", many.len());
            many.sort_unstable();
        }
        // The short list again, read now from the column the long ones kept open.
        assert_eq!(file.take(c, &rows).unwrap().as_ref(), want.as_ref(), "take column {c}, kept open");
        assert!(file.take(c, &[1, 1000]).is_err());
        assert!(matches!(
            file.take(c, &[5; 300].iter().copied().chain([1000]).collect::<Vec<_>>()),
            Err(Error::RowOutOfRange { row: 1000, .. })
        ));
        assert!(matches!(file.read_range(c, 990..1001), Err(Error::RowOutOfRange { .. })));
    }
    assert!(matches!(file.read_column(batch.num_columns()), Err(Error::ColumnOutOfRange { .. })));
}

/// Takes of strings long enough to go in parallel (16 KiB of text and more) and short ones gathered in
/// order, before and after the column is kept open: nulls, empty strings, multi-byte text, repeats and
/// unsorted rows, under dictionaries and FSST alike.
#[test]
fn string_takes_long_and_short_agree_with_arrow() {
    let rows = 20_000;
    let words = ["", "naïve", "日本", "slyly final deposits", "x"];
    let text = |i: usize| format!("{} {i} {}", words[i % 5], "q".repeat(i % 37));
    let schema = Arc::new(Schema::new(vec![
        Field::new("flag", DataType::Utf8, true),
        Field::new("note", DataType::LargeUtf8, true),
        Field::new("blob", DataType::Binary, false),
    ]));
    let batch = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(StringArray::from_iter((0..rows).map(|i| (i % 7 != 3).then_some(words[i % 5])))),
            Arc::new(LargeStringArray::from_iter((0..rows).map(|i| (i % 11 != 0).then(|| text(i))))),
            Arc::new(BinaryArray::from_iter_values((0..rows).map(|i| text(i * 7).into_bytes()))),
        ],
    )
    .unwrap();
    let (file, _dir) = round_trip(std::slice::from_ref(&batch), options(1024));
    let long: Vec<u64> = (0..6_000u64).map(|i| i * 7_919 % rows as u64).chain([0, 0, rows as u64 - 1]).collect();
    let short: Vec<u64> = vec![19_999, 0, 1023, 1024, 1024, 77, 5_000];
    for c in 0..batch.num_columns() {
        // The short list first (segments opened one by one), then the long one (which keeps the column
        // open), then both again from the kept column.
        for rows in [&short, &long, &short, &long] {
            let want =
                arrow_select::take::take(batch.column(c).as_ref(), &UInt64Array::from(rows.clone()), None).unwrap();
            assert_eq!(file.take(c, rows).unwrap().as_ref(), want.as_ref(), "column {c}, {} rows", rows.len());
        }
        assert!(matches!(file.take(c, &[3, rows as u64]), Err(Error::RowOutOfRange { .. })));
        assert_eq!(file.take(c, &[]).unwrap().len(), 0);
    }
}

#[test]
fn int_column_get_filter_aggregate_agree() {
    let batch = all_types(3000, 7);
    let (file, _dir) = round_trip(std::slice::from_ref(&batch), options(500));
    let c = file.column_index("i64").unwrap();
    let column = file.int_column(c).unwrap();
    let lwc_file::IntColumn::I64(col) = &column else { panic!("i64 column") };
    let values = batch.column(c).as_any().downcast_ref::<Int64Array>().unwrap();
    for row in [0usize, 3, 499, 500, 2999] {
        assert_eq!(col.get(row as u64).unwrap(), values.is_valid(row).then(|| values.value(row)));
    }
    let sel = col.filter(&Predicate::Gt(0));
    let want: Vec<u64> = (0..3000).filter(|&i| values.is_valid(i) && values.value(i) > 0).map(|i| i as u64).collect();
    assert_eq!(sel.row_ids(), want);
    let agg = col.aggregate(Some(&sel)).unwrap();
    assert_eq!(agg.sum, want.iter().map(|&i| values.value(i as usize) as i128).sum::<i128>());
    // Generic dispatch over every integer-backed column.
    for name in ["i8", "u16", "u64", "bool", "date32", "ts_utc", "dec64", "dec128_small"] {
        let c = file.column_index(name).unwrap();
        let column = file.int_column(c).unwrap();
        let agg = with_int_column!(&column, col => col.aggregate(None).unwrap().count);
        assert_eq!(agg as usize, 3000 - batch.column(c).null_count(), "{name}");
        assert_eq!(column.rows(), 3000);
    }
    let b = file.int_column(file.column_index("bool").unwrap()).unwrap();
    let bools = batch.column(file.column_index("bool").unwrap()).as_any().downcast_ref::<BooleanArray>().unwrap();
    assert_eq!(b.get_i128(1).unwrap(), bools.is_valid(1).then(|| bools.value(1) as i128));
    for name in ["s_dict", "f32", "dec128_wide"] {
        assert!(matches!(file.int_column(file.column_index(name).unwrap()), Err(Error::NotInteger { .. })));
    }
}

#[test]
fn unsupported_types_and_mismatched_batches_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.lwc");
    let schema = Arc::new(Schema::new(vec![Field::new("l", DataType::Utf8View, true)]));
    let err = FileWriter::create(&path, schema, WriteOptions::default()).err().unwrap();
    assert!(matches!(&err, Error::UnsupportedType { column, .. } if column == "l"), "{err}");
    assert!(err.to_string().contains("Utf8View"));

    let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int32, false)]));
    let mut w = FileWriter::create(&path, schema.clone(), options(4)).unwrap();
    let good = RecordBatch::try_new(schema, vec![Arc::new(Int32Array::from(vec![1, 2, 3, 4, 5]))]).unwrap();
    w.write(&good).unwrap();
    assert_eq!(w.rows_written(), 5);
    let other = Arc::new(Schema::new(vec![Field::new("a", DataType::Int64, false)]));
    let bad = RecordBatch::try_new(other, vec![Arc::new(Int64Array::from(vec![1]))]).unwrap();
    assert!(matches!(w.write(&bad), Err(Error::InvalidArgument(_))));
    let nullable = Arc::new(Schema::new(vec![Field::new("a", DataType::Int32, true)]));
    let nulls = RecordBatch::try_new(nullable, vec![Arc::new(Int32Array::from(vec![Some(1), None]))]).unwrap();
    assert!(matches!(w.write(&nulls), Err(Error::InvalidArgument(_))));
    drop(w);
    assert!(!path.exists(), "a writer that never finished leaves no file");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "and no temporary file");
}

#[test]
fn write_file_failing_midway_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("y.lwc");
    let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int32, false)]));
    let good = RecordBatch::try_new(schema.clone(), vec![Arc::new(Int32Array::from(vec![1; 100]))]).unwrap();
    let other = Arc::new(Schema::new(vec![Field::new("b", DataType::Int32, false)]));
    let bad = RecordBatch::try_new(other, vec![Arc::new(Int32Array::from(vec![1]))]).unwrap();
    assert!(write_file(&path, schema, &[good.clone(), good, bad], options(16)).is_err());
    assert!(!path.exists());
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(leftovers.is_empty(), "temporary file left behind: {leftovers:?}");
}

/// The file gets the mode any newly created file gets (umask applied), not a temp file's 0600.
#[cfg(unix)]
#[test]
fn written_file_has_ordinary_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let reference = dir.path().join("reference");
    std::fs::File::create(&reference).unwrap();
    let path = dir.path().join("p.lwc");
    let batch = all_types(10, 3);
    write_file(&path, batch.schema(), std::slice::from_ref(&batch), options(16)).unwrap();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&path), mode(&reference));
}

#[test]
fn threads_option_and_replacing_a_file() {
    let batch = all_types(700, 8);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("z.lwc");
    std::fs::write(&path, b"old contents").unwrap();
    let opts = WriteOptions { threads: Some(2), ..options(100) };
    write_file(&path, batch.schema(), std::slice::from_ref(&batch), opts).unwrap();
    assert_eq!(LwcFile::open(&path).unwrap().read_batch().unwrap(), batch);
}

/// Segments of a column keep the choice of the segment before their block (lwc::SegmentChoice): the
/// explain records say which, a file written on any number of threads keeps the same ones, and the
/// values read back. Odd segments are shifted by 2^12: kept from an even one (`bitpack`) they pack at
/// 13 bits, within 10 % of the 12 that chose, while chosen alone they take `for` at 12, so a thread
/// count that changed which segments keep would change the bytes.
#[test]
fn segments_keep_choices_whatever_the_threads() {
    let value = |i: i64| (i * 7_919) % 4_096 + (i / 256 % 2) * 4_096;
    let values = Int64Array::from_iter_values((0..120 * 256).map(value));
    let schema = Arc::new(Schema::new(vec![Field::new("v", DataType::Int64, false)]));
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(values.clone())]).unwrap();
    let explains = lwc_file::explain_array(&values, &options(256).encode).unwrap();
    let kept: Vec<usize> =
        (0..explains.len()).filter(|&k| explains[k].reason.starts_with("kept the cascade chosen")).collect();
    // Segment 0 chooses, then the last of each block, for the next block to keep: blocks of 16, 31 and
    // 61 segments, as each choice is kept for twice as many segments as the one before, up to 60.
    let choosers = [0, 16, 47, 108];
    assert_eq!(kept, (0..120).filter(|k| !choosers.contains(k)).collect::<Vec<_>>());
    let write = |threads| {
        let options = WriteOptions { threads: Some(threads), ..options(256) };
        write_to_bytes(schema.clone(), &cut(&batch, &[1000, 3000, 7]), options).unwrap()
    };
    let one = write(1);
    for threads in [2, 5, 16] {
        assert!(write(threads)[..] == one[..], "{threads} threads wrote other bytes");
    }
    let every = WriteOptions { encode: EncodeOptions { keep_choice: 0, ..options(256).encode }, ..options(256) };
    assert!(lwc_file::explain_array(&values, &every.encode).unwrap().iter().all(|e| !e.reason.starts_with("kept")));
    round_trip(std::slice::from_ref(&batch), every);
    round_trip(&[batch], options(256));
}

/// A block whose last segment hands on no choice (written `constant`, taken at once) leaves the next
/// block keeping the choice before it, on the next block's schedule: only segments 0, 16 and 47 choose,
/// whatever the threads.
#[test]
fn a_constant_segment_between_blocks_keeps_the_choice_before_it() {
    let value = |i: i64| if i / 256 == 16 { 5 } else { (i * 7_919) % 4_096 };
    let values = Int64Array::from_iter_values((0..64 * 256).map(value));
    let explains = lwc_file::explain_array(&values, &options(256).encode).unwrap();
    assert_eq!(explains[16].chosen.to_string(), "constant");
    let chose: Vec<usize> =
        (0..explains.len()).filter(|&k| !explains[k].reason.starts_with("kept the cascade chosen")).collect();
    assert_eq!(chose, [0, 16, 47]);
    let schema = Arc::new(Schema::new(vec![Field::new("v", DataType::Int64, false)]));
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(values)]).unwrap();
    let write = |threads| {
        let options = WriteOptions { threads: Some(threads), ..options(256) };
        write_to_bytes(schema.clone(), &cut(&batch, &[1000, 3000, 7]), options).unwrap()
    };
    assert!(write(1)[..] == write(5)[..], "5 threads wrote other bytes");
    round_trip(&[batch], options(256));
}

/// String columns keep their choices too: a column of ship modes (nulls in runs) keeps the dictionary
/// segment 0 chose, a comment column keeps FSST, with the same bytes on any thread count, and both read
/// back.
#[test]
fn string_segments_keep_choices_whatever_the_threads() {
    let modes = ["AIR", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK", "FOB"];
    let words = ["carefully", "final", "deposits", "sleep", "quickly", "ironic", "packages", "among", "the"];
    let rows = 40 * 256;
    let mode = StringArray::from_iter((0..rows).map(|i| (i / 100 % 9 != 3).then(|| modes[i * 7_919 % 7])));
    let comment =
        StringArray::from_iter_values((0..rows).map(|i| {
            format!("{} {i}", (0..3 + i % 5).map(|k| words[(i * 31 + k * 7) % 9]).collect::<Vec<_>>().join(" "))
        }));
    for (array, want) in [(&mode, "dict"), (&comment, "fsst")] {
        let explains = lwc_file::explain_array(array, &options(256).encode).unwrap();
        let kept = explains.iter().filter(|e| e.reason.starts_with("kept the cascade chosen")).count();
        assert_eq!(kept, 40 - 2, "segments 0 and 16 choose");
        assert!(explains.iter().all(|e| e.chosen.encoding().id().unwrap().name() == want), "{}", explains[1]);
    }
    let schema = Arc::new(Schema::new(vec![
        Field::new("mode", DataType::Utf8, true),
        Field::new("comment", DataType::Utf8, false),
    ]));
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(mode), Arc::new(comment)]).unwrap();
    let write = |threads| {
        let options = WriteOptions { threads: Some(threads), ..options(256) };
        write_to_bytes(schema.clone(), &cut(&batch, &[1000, 3000, 7]), options).unwrap()
    };
    let one = write(1);
    assert!(write(3)[..] == one[..], "3 threads wrote other bytes");
    round_trip(&[batch], options(256));
}
