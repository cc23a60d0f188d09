//! One memory-mapped file, many threads: random row lookups, range reads and scans on the encoded
//! segments, all at once, each answer checked against the table that was written. Segments are opened and
//! their checksums verified lazily, the first time any thread touches them, so threads race on that too.

use std::sync::Arc;

use arrow_array::{Array, RecordBatch, UInt64Array};
use lwc::Predicate;
use lwc_file::{with_int_column, write_file, LwcFile, WriteOptions};
use rand::{Rng, SeedableRng};

const THREADS: usize = 8;
const ROUNDS: usize = 400;

#[test]
fn many_threads_read_one_mapped_file_correctly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("flights.lwc");
    let table = lwc_testdata::flights(20_000, 21);
    let mut options = WriteOptions::default();
    options.encode.segment_rows = 1_000;
    write_file(&path, table.schema(), std::slice::from_ref(&table), options).unwrap();
    let file = Arc::new(LwcFile::open(&path).unwrap());
    let table = Arc::new(table);

    let workers: Vec<_> = (0..THREADS)
        .map(|t| {
            let (file, table) = (file.clone(), table.clone());
            std::thread::spawn(move || reader(t as u64, &file, &table))
        })
        .collect();
    for w in workers {
        w.join().expect("a reader thread panicked");
    }
}

/// One thread's work: takes of random rows, ranges, and filtered sums, in random order over the columns.
fn reader(seed: u64, file: &LwcFile, table: &RecordBatch) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let rows = table.num_rows() as u64;
    for _ in 0..ROUNDS {
        let c = rng.gen_range(0..table.num_columns());
        match rng.gen_range(0..3) {
            0 => {
                let picks: Vec<u64> = (0..rng.gen_range(1..50)).map(|_| rng.gen_range(0..rows)).collect();
                let want = arrow_select::take::take(table.column(c).as_ref(), &UInt64Array::from(picks.clone()), None);
                assert_eq!(file.take(c, &picks).unwrap().as_ref(), want.unwrap().as_ref(), "take of column {c}");
            }
            1 => {
                let start = rng.gen_range(0..rows);
                let end = rng.gen_range(start..=rows.min(start + 3_000));
                let want = table.column(c).slice(start as usize, (end - start) as usize);
                assert_eq!(file.read_range(c, start..end).unwrap().as_ref(), want.as_ref(), "range of column {c}");
            }
            _ => {
                let Ok(column) = file.int_column(c) else { continue };
                let values = table.column(c).as_any().downcast_ref::<arrow_array::Int64Array>();
                let Some(values) = values else { continue };
                let pivot = values.value(rng.gen_range(0..rows as usize));
                let want: i128 = values.iter().flatten().filter(|&v| v > pivot).map(i128::from).sum();
                let got = with_int_column!(&column, col => {
                    let selection = col.filter(&Predicate::Gt(pivot as _));
                    col.aggregate(Some(&selection)).unwrap().sum
                });
                assert_eq!(got, want, "sum of column {c} above {pivot}");
            }
        }
    }
}
