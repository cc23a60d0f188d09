//! The one error type of lwc. Bad input is data, not a bug: every malformed byte string,
//! out-of-range row or wrong type ends here, never in a panic.

/// Everything that can go wrong when encoding or reading lwc data.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The bytes end before a section the header announced.
    #[error("truncated input: {what} needs {needed} bytes at offset {offset}, but only {available} remain")]
    Truncated {
        /// The section being read.
        what: &'static str,
        /// Byte offset of the section.
        offset: usize,
        /// Bytes the section needs.
        needed: usize,
        /// Bytes left in the input.
        available: usize,
    },
    /// A header field holds a value no writer produces.
    #[error("corrupt input: {0}")]
    Corrupt(String),
    /// A section of the input is not aligned for zero-copy reading.
    #[error("misaligned input: {what} at address offset {offset} is not {align}-byte aligned; copy the bytes into an `AlignedBytes` first")]
    Misaligned {
        /// The section being read.
        what: &'static str,
        /// Offset of the section within the input.
        offset: usize,
        /// Required alignment in bytes.
        align: usize,
    },
    /// The encoding id in the bytes is unknown to this version.
    #[error("unknown encoding id {0}")]
    UnknownEncoding(u8),
    /// The data was written for another integer type than the one asked for.
    #[error("type mismatch: the data holds {found}, but {expected} was requested")]
    TypeMismatch {
        /// Type requested by the caller.
        expected: &'static str,
        /// Type stored in the data.
        found: &'static str,
    },
    /// A row id or position is past the end.
    #[error("row {row} is out of range for {rows} rows")]
    RowOutOfRange {
        /// The offending row.
        row: u64,
        /// Number of rows available.
        rows: u64,
    },
    /// The requested encoding cannot represent these values (for example `constant` on two distinct values).
    #[error("encoding {encoding} cannot represent this data: {reason}")]
    NotApplicable {
        /// Name of the encoding.
        encoding: &'static str,
        /// Why it does not apply.
        reason: String,
    },
    /// This build of lwc lacks what the data needs (a compressor left out by a cargo feature).
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// An argument is invalid (a validity bitmap of the wrong length, a zero segment size, ...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

/// Result with lwc's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
