//! Input bytes as a column (header, segment table, segments), opened as each of several types: opening
//! may fail, but whatever opens must answer every operation without panicking.

#![no_main]

use libfuzzer_sys::fuzz_target;
use lwc::{Column, EncodedColumn, LwcInt};
use lwc_fuzz::{exercise_column, FULL_UP_TO};

fn run<T: LwcInt>(column: &EncodedColumn) {
    if let Ok(c) = column.open::<T>() {
        exercise_column(&c, FULL_UP_TO);
    }
}

fuzz_target!(|data: &[u8]| {
    // `from_bytes` copies into aligned storage, as a reader of a file would.
    let column = EncodedColumn::from_bytes(data);
    run::<u8>(&column);
    run::<u16>(&column);
    run::<u32>(&column);
    run::<u64>(&column);
    run::<i8>(&column);
    run::<i16>(&column);
    run::<i32>(&column);
    run::<i64>(&column);
    // The same bytes through the borrowing constructor.
    let _ = Column::<u32>::open(column.as_bytes()).map(|c| exercise_column(&c, FULL_UP_TO));
});
