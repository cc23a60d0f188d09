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
    /// An error from the lwc core (encoding a segment, or a segment's own validation).
    #[error(transparent)]
    Lwc(#[from] lwc::Error),
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
    /// An argument is invalid (a batch whose schema differs from the file's, a zero segment size, ...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

impl Error {
    /// An [`Error::Io`] for `path`.
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }

    /// The error with the column it arose in named, when the message does not say already.
    pub(crate) fn in_column(self, column: &str) -> Self {
        match self {
            Error::InvalidArgument(m) => Error::InvalidArgument(format!("column '{column}': {m}")),
            e => e,
        }
    }
}

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
