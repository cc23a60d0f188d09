//! Input bytes as an `.lwc` file, read with checksums off so that every byte reaches the footer parser and
//! the segment decoders (with checksums on, nearly every input would stop at the footer's CRC): opening may
//! fail, reading may fail, nothing may panic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use lwc::AlignedBytes;
use lwc_file::{LwcFile, ReadOptions};
use lwc_fuzz::exercise_file;

fuzz_target!(|data: &[u8]| {
    let options = ReadOptions { verify_checksums: false };
    if let Ok(file) = LwcFile::from_bytes_with(AlignedBytes::copy_from(data), options) {
        let _ = exercise_file(&file);
    }
});
