//! The error type of the `.lwc` file layer. Bad files are data, not bugs: every corrupt or truncated
//! byte ends here as a typed error, never in a panic.

use std::path::PathBuf;

use arrow_schema::{ArrowError, DataType};

/// Everything that can go wrong writing or reading a `.lwc` file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading, writing, syncing or renaming a file failed.
    #[error("I/O error on {}: {source}", path.display())]
    Io {
        /// The file (or directory) involved.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// The file's bytes are not a valid `.lwc` file; the message names what is wrong and where.
    #[error("corrupt lwc file: {0}")]
    Corrupt(String),
    /// An error from the lwc core that belongs to no one column (parsing a cascade, ...).
    #[error(transparent)]
    Lwc(#[from] lwc::Error),
    /// An error from the lwc core raised in a column (and one of its segments, when known): encoding the
    /// segment, or the segment's own validation on read. The core's kind is kept in `source`.
    #[error("column '{column}'{}: {error}", segment.map(|s| format!(", segment {s}")).unwrap_or_default())]
    InColumn {
        /// Name of the column.
        column: String,
        /// Index of the segment in the column, when the error belongs to one.
        segment: Option<usize>,
        /// The core's error (part of the message, so not also reported as a source).
        error: lwc::Error,
    },
    /// An error from Arrow (building an array or a record batch).
    #[error("arrow: {0}")]
    Arrow(#[from] ArrowError),
    /// A column has an Arrow type that `.lwc` files cannot store.
    #[error("column '{column}' has type {data_type}, which lwc files do not support")]
    UnsupportedType {
        /// Name of the column.
        column: String,
        /// Its Arrow type.
        data_type: DataType,
    },
    /// No column has this name.
    #[error("no column named '{name}'; the file has columns: {available}")]
    ColumnNotFound {
        /// The name asked for.
        name: String,
        /// The file's column names, comma separated.
        available: String,
    },
    /// A column index past the last column.
    #[error("column {index} is out of range: the file has {columns} columns")]
    ColumnOutOfRange {
        /// The index asked for.
        index: usize,
        /// Number of columns.
        columns: usize,
    },
    /// A row id past the end of the table.
    #[error("row {row} is out of range for {rows} rows")]
    RowOutOfRange {
        /// The offending row (or range end).
        row: u64,
        /// Rows in the table.
        rows: u64,
    },
    /// The column is not stored as integers (strings, floats, wide decimals).
    #[error("column '{column}' ({data_type}) is not stored as integers")]
    NotInteger {
        /// Name of the column.
        column: String,
        /// Its Arrow type.
        data_type: DataType,
    },
    /// A filter cannot run on its column: a literal that is no value of the column's type, a prefix test
    /// on numbers.
    #[error("filter on column '{column}': {message}")]
    InvalidFilter {
        /// Name of the column.
        column: String,
        /// What is wrong.
        message: String,
    },
    /// An argument is invalid (a batch whose schema differs from the file's, a zero segment size, ...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

impl Error {
    /// An [`Error::Io`] for `path`.
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }

    /// The error with the column (and segment) it arose in named, when it does not say already.
    pub(crate) fn located(self, column: &str, segment: Option<usize>) -> Self {
        let place = match segment {
            Some(s) => format!("column '{column}', segment {s}"),
            None => format!("column '{column}'"),
        };
        match self {
            Error::Lwc(error) => Error::InColumn { column: column.to_string(), segment, error },
            Error::InvalidArgument(m) => Error::InvalidArgument(format!("{place}: {m}")),
            e => e,
        }
    }

    /// Whether the error says the file's bytes are damaged: the file layer found it, or a segment's
    /// own validation did (truncated, corrupt, an unknown encoding, misaligned).
    pub fn is_corrupt(&self) -> bool {
        match self {
            Error::Corrupt(_) => true,
            Error::InColumn { error, .. } | Error::Lwc(error) => matches!(
                error,
                lwc::Error::Corrupt(_)
                    | lwc::Error::Truncated { .. }
                    | lwc::Error::UnknownEncoding(_)
                    | lwc::Error::Misaligned { .. }
                    | lwc::Error::TypeMismatch { .. }
            ),
            _ => false,
        }
    }
}

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
