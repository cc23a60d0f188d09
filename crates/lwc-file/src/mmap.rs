//! The one `unsafe` call of this crate: memory-mapping a file for zero-copy reading.

use std::fs::File;

use memmap2::Mmap;

/// Maps `file` read-only.
#[allow(unsafe_code)]
pub(crate) fn map(file: &File) -> std::io::Result<Mmap> {
    // SAFETY: memmap2 marks mapping unsafe because another process could modify or truncate the file
    // while it is mapped, changing bytes behind a `&[u8]` (or raising SIGBUS). lwc files are written
    // once to a temporary name and renamed into place, never modified afterwards; `LwcFile::open`
    // documents that the file must not be changed while it is open. Every byte read from the map is
    // validated (lengths, checksums) before use, so the contents themselves need not be trusted.
    unsafe { Mmap::map(file) }
}
