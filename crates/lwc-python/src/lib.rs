//! The native half of the `lwc` Python package (`lwc._lwc`): lwc-file, lwc core and lwc-datafusion
//! behind a few functions and the `File` class. The Python half (`python/lwc/__init__.py`) turns pandas
//! and numpy into Arrow and documents the API; Arrow crosses through the C data and stream interfaces.
//!
//! Every call that encodes, decodes or queries releases the GIL, and every error is a Python exception
//! carrying lwc's message: bad files and bad arguments never abort the interpreter.

use std::str::FromStr;

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyIndexError, PyKeyError, PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;

mod column;
mod file;
mod sql;

create_exception!(
    _lwc,
    LwcError,
    PyException,
    "An error lwc reports: a file it cannot read, a query it cannot run. Argument errors are ValueError, \
     KeyError (no such column), IndexError (no such row) or TypeError (a type lwc does not store)."
);
create_exception!(
    _lwc,
    CorruptFileError,
    LwcError,
    "Bytes that are not a valid lwc file or column: corrupt or truncated."
);

/// An lwc-file error as the Python exception a user would expect.
fn file_error(e: lwc_file::Error) -> PyErr {
    exception_for(&e)
}

/// The exception for an lwc-file error, which may sit inside another error (a query's).
fn exception_for(e: &lwc_file::Error) -> PyErr {
    use lwc_file::Error as E;
    let message = e.to_string();
    if e.is_corrupt() {
        return CorruptFileError::new_err(message);
    }
    match e {
        E::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            pyo3::exceptions::PyFileNotFoundError::new_err(message)
        }
        E::Io { .. } => PyOSError::new_err(message),
        E::ColumnNotFound { .. } => PyKeyError::new_err(message),
        E::ColumnOutOfRange { .. } | E::RowOutOfRange { .. } => PyIndexError::new_err(message),
        E::UnsupportedType { .. } | E::NotInteger { .. } => PyTypeError::new_err(message),
        E::InvalidArgument(_) | E::InvalidFilter { .. } => PyValueError::new_err(message),
        E::Lwc(core) | E::InColumn { error: core, .. } => match core {
            lwc::Error::RowOutOfRange { .. } => PyIndexError::new_err(message),
            lwc::Error::InvalidArgument(_) | lwc::Error::NotApplicable { .. } => PyValueError::new_err(message),
            lwc::Error::Unsupported(_) => PyTypeError::new_err(message),
            _ => LwcError::new_err(message),
        },
        _ => LwcError::new_err(message),
    }
}

/// A core error as a Python exception.
fn core_error(e: lwc::Error) -> PyErr {
    file_error(lwc_file::Error::Lwc(e))
}

/// Parses an objective (`size`, `scan`, `random`, `balanced`, or weights such as `scan=0.8,get=0.2`).
fn objective(text: &str) -> PyResult<lwc::Objective> {
    lwc::Objective::from_str(text).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Encode options from the package's keyword arguments.
fn encode_options(encoding: &str, objective_text: &str, segment_rows: usize) -> PyResult<lwc::EncodeOptions> {
    if segment_rows == 0 || segment_rows > lwc::DEFAULT_SEGMENT_ROWS {
        return Err(PyValueError::new_err(format!(
            "segment_rows must be in 1..={}, not {segment_rows}",
            lwc::DEFAULT_SEGMENT_ROWS
        )));
    }
    let cascade = lwc::Cascade::from_str(encoding).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(lwc::EncodeOptions { cascade, objective: objective(objective_text)?, segment_rows, ..Default::default() })
}

#[pymodule]
fn _lwc(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("LwcError", m.py().get_type::<LwcError>())?;
    m.add("CorruptFileError", m.py().get_type::<CorruptFileError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    let encodings: Vec<&str> = std::iter::once("auto").chain(lwc::EncodingId::ALL.iter().map(|e| e.name())).collect();
    m.add("ENCODINGS", encodings)?;
    m.add_class::<file::File>()?;
    m.add_function(wrap_pyfunction!(file::write, m)?)?;
    m.add_function(wrap_pyfunction!(column::encode, m)?)?;
    m.add_function(wrap_pyfunction!(column::decode, m)?)?;
    m.add_function(wrap_pyfunction!(column::describe, m)?)?;
    m.add_function(wrap_pyfunction!(sql::sql, m)?)?;
    Ok(())
}
