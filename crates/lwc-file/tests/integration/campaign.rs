//! A bounded corruption campaign over whole `.lwc` files, run by `cargo test` on stable Rust. Files of the
//! realistic-table corpus (`lwc-testdata`: flights, orders, sensors, one row, no rows, with many small
//! segments) are damaged by `lwc_testdata::mutate`, then read:
//!
//! - as they are: the outcome is a typed error or exactly the rows that were written (every byte is under a
//!   checksum, so damage never turns into other values);
//! - with checksums off (half of the inputs), to reach the footer parser and every segment decoder below the
//!   checksums: a typed error or some answer, never a panic.
//!
//! Every read runs: the whole table to Arrow, `take` of rows of every column, integer columns through lwc
//! (`get`, `filter`, `aggregate`), and `verify`. `LWC_CAMPAIGN_INPUTS` sets the number of mutated files
//! (100,000 by default); the summary prints with `--nocapture`.

use std::collections::BTreeMap;
use std::time::Instant;

use arrow_array::RecordBatch;
use lwc::AlignedBytes;
use lwc_file::{write_to_bytes, Error, LwcFile, ReadOptions, WriteOptions};
use lwc_testdata::exercise::exercise_file;
use lwc_testdata::mutate::Mutator;
use lwc_testdata::panics;

/// An input that takes this long to read or reject has found unbounded work (every one here takes well
/// under a millisecond).
const SLOW_SECONDS: u64 = 5;

fn inputs() -> usize {
    std::env::var("LWC_CAMPAIGN_INPUTS").ok().and_then(|v| v.parse().ok()).unwrap_or(100_000)
}

/// The files damaged, with the rows each holds.
fn bases() -> Vec<(&'static str, Vec<u8>, RecordBatch)> {
    let tables = [
        ("flights", lwc_testdata::flights(150, 1)),
        ("orders", lwc_testdata::orders(120, 2)),
        ("sensors", lwc_testdata::sensors(120, 3)),
        ("boundary", lwc_testdata::boundary(150, 4)),
        ("one_row", lwc_testdata::orders(1, 5)),
        ("empty", lwc_testdata::orders(0, 6)),
    ];
    tables
        .into_iter()
        .map(|(name, batch)| {
            let mut options = WriteOptions::default();
            options.encode.segment_rows = 48;
            let bytes = write_to_bytes(batch.schema(), std::slice::from_ref(&batch), options).unwrap();
            (name, bytes.to_vec(), batch)
        })
        .collect()
}

/// Reads the whole table and some rows of every column, which must be exactly the written ones.
fn read_back_exactly(file: &LwcFile, want: &RecordBatch) -> lwc_file::Result<()> {
    assert_eq!(&file.read_batch()?, want, "damage went unnoticed and changed the rows");
    let rows = file.num_rows();
    let picks: Vec<u64> = [0, rows / 2, rows.saturating_sub(1), rows / 3].into_iter().filter(|&r| r < rows).collect();
    let indices = arrow_array::UInt64Array::from(picks.clone());
    for c in 0..file.columns().len() {
        let expected = arrow_select::take::take(want.column(c).as_ref(), &indices, None).unwrap();
        assert_eq!(file.take(c, &picks)?.as_ref(), expected.as_ref(), "damage went unnoticed in a take");
    }
    file.verify()
}

/// Short names of errors, for the summary.
fn kind(e: &Error) -> String {
    match e {
        Error::InColumn { error, .. } => {
            format!("InColumn/{}", format!("{error:?}").split(['(', ' ', '{']).next().unwrap_or(""))
        }
        e => format!("{e:?}").split(['(', ' ', '{']).next().unwrap_or("").to_string(),
    }
}

#[test]
fn damaged_files_give_typed_errors_or_the_written_rows() {
    let bases = bases();
    let donors: Vec<Vec<u8>> = bases.iter().map(|(_, b, _)| b.clone()).collect();
    let mut mutator = Mutator::new(0xf11e);
    let (mut checked_errors, mut unchecked_errors) =
        (BTreeMap::<String, usize>::new(), BTreeMap::<String, usize>::new());
    let (mut intact, mut answered, mut failures) = (0usize, 0usize, Vec::new());
    let start = Instant::now();
    let n = inputs();
    for round in 0..n {
        let (name, base, want) = &bases[mutator.below(bases.len())];
        let (bytes, how) = mutator.mutate(base, &donors);
        let unchecked = round % 2 == 1;
        let t0 = Instant::now();
        let outcome = panics::catch(|| {
            let aligned = AlignedBytes::copy_from(&bytes);
            let options = ReadOptions { verify_checksums: !unchecked };
            let file = LwcFile::from_bytes_with(aligned, options)?;
            if unchecked {
                exercise_file(&file)
            } else {
                read_back_exactly(&file, want)
            }
        });
        // Damage must not buy unbounded work: a few bytes once claimed two billion dictionary entries and
        // took 39 s to reject (see tests/regressions/).
        if t0.elapsed().as_secs() >= SLOW_SECONDS {
            failures.push(format!("round {round}: {name}, {how}: took {:?}", t0.elapsed()));
        }
        match outcome {
            Ok(Ok(())) if unchecked => answered += 1,
            Ok(Ok(())) => intact += 1,
            Ok(Err(e)) if unchecked => *unchecked_errors.entry(kind(&e)).or_default() += 1,
            Ok(Err(e)) => *checked_errors.entry(kind(&e)).or_default() += 1,
            Err(message) => {
                failures.push(format!(
                    "round {round}: {name}, {how}, checksums {}: {message}",
                    if unchecked { "off" } else { "on" }
                ));
            }
        }
    }
    println!(
        "files: {n} mutated inputs in {:.1} s\n  checksums on: {intact} read back the written rows; errors: {checked_errors:?}\n  \
         checksums off: {answered} answered every read; errors: {unchecked_errors:?}",
        start.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "{} failures, first: {:#?}", failures.len(), &failures[..failures.len().min(5)]);
}
