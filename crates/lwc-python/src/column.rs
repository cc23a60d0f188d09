//! Single columns as bytes: `encode` an Arrow array of integers or floats, `decode` it back, `describe`
//! what it holds. The bytes are an lwc column (`lwc::EncodedColumn`): segments behind one header.

use arrow_array::{make_array, Array, ArrayRef, PrimitiveArray};
use arrow_data::ArrayData;
use arrow_pyarrow::PyArrowType;
use lwc::{EncodedColumn, ValueType};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::{core_error, encode_options, file_error};

/// Runs `$body` with `$T` the Rust type and `$A` the Arrow type of a value type.
macro_rules! with_types {
    ($t:expr, $T:ident, $A:ident => $body:expr) => {{
        use arrow_array::types::*;
        match $t {
            ValueType::U8 => {
                type $T = u8;
                type $A = UInt8Type;
                $body
            }
            ValueType::U16 => {
                type $T = u16;
                type $A = UInt16Type;
                $body
            }
            ValueType::U32 => {
                type $T = u32;
                type $A = UInt32Type;
                $body
            }
            ValueType::U64 => {
                type $T = u64;
                type $A = UInt64Type;
                $body
            }
            ValueType::I8 => {
                type $T = i8;
                type $A = Int8Type;
                $body
            }
            ValueType::I16 => {
                type $T = i16;
                type $A = Int16Type;
                $body
            }
            ValueType::I32 => {
                type $T = i32;
                type $A = Int32Type;
                $body
            }
            ValueType::I64 => {
                type $T = i64;
                type $A = Int64Type;
                $body
            }
            ValueType::F32 => {
                type $T = f32;
                type $A = Float32Type;
                $body
            }
            ValueType::F64 => {
                type $T = f64;
                type $A = Float64Type;
                $body
            }
        }
    }};
}

/// The value type of an Arrow integer or float type.
fn value_type(data_type: &arrow_schema::DataType) -> Option<ValueType> {
    use arrow_schema::DataType::*;
    Some(match data_type {
        UInt8 => ValueType::U8,
        UInt16 => ValueType::U16,
        UInt32 => ValueType::U32,
        UInt64 => ValueType::U64,
        Int8 => ValueType::I8,
        Int16 => ValueType::I16,
        Int32 => ValueType::I32,
        Int64 => ValueType::I64,
        Float32 => ValueType::F32,
        Float64 => ValueType::F64,
        _ => return None,
    })
}

/// Encodes an Arrow array of integers or floats (nulls allowed) as one lwc column.
#[pyfunction]
#[pyo3(signature = (array, encoding="auto", objective="balanced", segment_rows=65536))]
pub fn encode<'py>(
    py: Python<'py>,
    array: PyArrowType<ArrayData>,
    encoding: &str,
    objective: &str,
    segment_rows: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    let options = encode_options(encoding, objective, segment_rows)?;
    let array = make_array(array.0);
    let t = value_type(array.data_type()).ok_or_else(|| {
        PyTypeError::new_err(format!(
            "lwc.encode takes integers or floats (numpy int8 ... uint64, float32, float64), not {}",
            array.data_type()
        ))
    })?;
    let encoded = py
        .detach(|| {
            with_types!(t, T, A => {
                let typed = array.as_any().downcast_ref::<PrimitiveArray<A>>().expect("checked type");
                EncodedColumn::encode::<T>(typed.values(), lwc_file::validity_of(typed).as_ref(), options)
            })
        })
        .map_err(core_error)?;
    Ok(PyBytes::new(py, encoded.as_bytes()))
}

/// Decodes bytes from `encode` into an Arrow array of their type.
#[pyfunction]
pub fn decode(py: Python<'_>, data: &[u8]) -> PyResult<PyArrowType<ArrayData>> {
    let column = EncodedColumn::from_bytes(data);
    let t = column.value_type().map_err(core_error)?;
    let array: ArrayRef = py
        .detach(|| {
            with_types!(t, T, A => {
                let view = column.open::<T>()?;
                let decoded = view.decode(0..view.rows())?;
                lwc_file::values_to_arrow::<T>(&<A as ArrowPrimitiveType>::DATA_TYPE, decoded.values, decoded.validity)
            })
        })
        .map_err(file_error)?;
    Ok(PyArrowType(array.to_data()))
}

/// What bytes from `encode` hold: type, rows, bytes, and each cascade with its segment count.
#[pyfunction]
pub fn describe<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyDict>> {
    let column = EncodedColumn::from_bytes(data);
    let t = column.value_type().map_err(core_error)?;
    let (rows, segments, cascades) = with_types!(t, T, A => {
        let _ = std::marker::PhantomData::<A>;
        let view = column.open::<T>().map_err(core_error)?;
        (view.rows(), view.segments().len(), view.cascades())
    });
    let out = PyDict::new(py);
    out.set_item("type", t.name())?;
    out.set_item("rows", rows)?;
    out.set_item("bytes", data.len())?;
    out.set_item("plain_bytes", rows as usize * t.byte_width())?;
    out.set_item("segments", segments)?;
    let each: Vec<String> = cascades.iter().map(|(c, n)| format!("{c} ×{n}")).collect();
    out.set_item("encodings", each.join(", "))?;
    Ok(out)
}
