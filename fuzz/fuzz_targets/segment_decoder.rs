//! Input bytes as one segment, opened as each of several types: opening may fail, but whatever opens
//! must answer every operation without panicking.

#![no_main]

use libfuzzer_sys::fuzz_target;
use lwc::{AlignedBytes, LwcInt, Segment};
use lwc_fuzz::{exercise_segment, FULL_UP_TO};

fn run<T: LwcInt>(bytes: &[u8]) {
    if let Ok(segment) = Segment::<T>::open(bytes) {
        exercise_segment(&segment, FULL_UP_TO);
    }
}

fuzz_target!(|data: &[u8]| {
    // Segments are read in place and need 8-aligned bytes.
    let bytes = AlignedBytes::copy_from(data);
    // Only the stored type opens; the others stop at the type check, which is worth fuzzing too.
    run::<u8>(&bytes);
    run::<u16>(&bytes);
    run::<u32>(&bytes);
    run::<u64>(&bytes);
    run::<i8>(&bytes);
    run::<i16>(&bytes);
    run::<i32>(&bytes);
    run::<i64>(&bytes);
});
