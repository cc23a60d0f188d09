//! `.lwc` files: `write` from an Arrow stream, and `File` (open, read, take, scan, explain).

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::ffi_stream::ArrowArrayStreamReader;
use arrow_array::{make_array, Array, ArrayRef, RecordBatch, RecordBatchReader, UInt64Array};
use arrow_data::ArrayData;
use arrow_pyarrow::{PyArrowType, Table, ToPyArrow};
use arrow_schema::{DataType, Schema};
use lwc_file::{ColumnInfo, Filter, LwcFile, ScanOptions, Sum, WriteOptions};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::{encode_options, file_error, LwcError};

/// Writes the Arrow stream `data` to `path` as a `.lwc` file, batch by batch (or, with a memory budget,
/// after reading it whole: the plan needs every row). Returns what was written.
#[pyfunction]
#[pyo3(signature = (data, path, objective="balanced", memory_budget=None, segment_rows=65536, threads=None, encoding="auto"))]
#[allow(clippy::too_many_arguments)]
pub fn write<'py>(
    py: Python<'py>,
    data: PyArrowType<ArrowArrayStreamReader>,
    path: PathBuf,
    objective: &str,
    memory_budget: Option<u64>,
    segment_rows: usize,
    threads: Option<usize>,
    encoding: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let encode = encode_options(encoding, objective, segment_rows)?;
    if threads == Some(0) {
        return Err(PyValueError::new_err("threads must be at least 1"));
    }
    let mix = match memory_budget {
        None => None,
        Some(_) if encoding != "auto" => {
            return Err(PyValueError::new_err("a memory budget chooses encodings per column; leave encoding='auto'"))
        }
        Some(bytes) => Some((
            bytes,
            encode.objective.access_mix().ok_or_else(|| {
                PyValueError::new_err(
                    "objective 'size' already takes the smallest encoding; a memory budget needs an access mix \
                 (scan, random, balanced or weights such as 'scan=1,get=0.1')",
                )
            })?,
        )),
    };
    let options = WriteOptions { encode, threads, ..Default::default() };
    let reader = data.0;
    let summary = py
        .detach(move || -> lwc_file::Result<lwc_file::FileSummary> {
            let schema = lwc_file::storable_schema(&reader.schema());
            let storable = schema.clone();
            let batches = reader.map(move |b| lwc_file::cast_to_schema(&b?, &storable));
            match mix {
                Some((budget, mix)) => {
                    let batches = batches.collect::<lwc_file::Result<Vec<_>>>()?;
                    lwc_file::plan_budget(schema, &batches, budget, mix, &options)?.write_file(&path)
                }
                None => {
                    let mut writer = lwc_file::FileWriter::create(&path, schema, options)?;
                    for batch in batches {
                        writer.write(&batch?)?;
                    }
                    writer.finish()
                }
            }
        })
        .map_err(file_error)?;
    let out = PyDict::new(py);
    out.set_item("path", summary.path)?;
    out.set_item("rows", summary.rows)?;
    out.set_item("file_bytes", summary.file_bytes)?;
    out.set_item("plain_bytes", summary.columns.iter().map(|c| c.plain_bytes).sum::<u64>())?;
    out.set_item("columns", columns_list(py, &summary.columns)?)?;
    Ok(out)
}

/// One dictionary per column: name, type, storage, rows, nulls, bytes, ratio, segments, encodings.
fn columns_list<'py>(py: Python<'py>, columns: &[ColumnInfo]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for c in columns {
        let d = PyDict::new(py);
        d.set_item("name", &c.name)?;
        d.set_item("type", c.data_type.to_string())?;
        d.set_item("storage", c.storage.to_string())?;
        d.set_item("rows", c.rows)?;
        d.set_item("nulls", c.nulls)?;
        d.set_item("plain_bytes", c.plain_bytes)?;
        d.set_item("encoded_bytes", c.encoded_bytes)?;
        d.set_item("ratio", (c.encoded_bytes > 0).then(|| c.plain_bytes as f64 / c.encoded_bytes as f64))?;
        d.set_item("segments", c.segments.len())?;
        let encodings: Vec<String> = c.cascades.iter().map(|(cascade, n)| format!("{cascade} ×{n}")).collect();
        d.set_item("encodings", encodings.join(", "))?;
        list.append(d)?;
    }
    Ok(list)
}

/// An open `.lwc` file (memory-mapped; segments are read in place when a read needs them).
#[pyclass(frozen, module = "lwc._lwc")]
pub struct File {
    file: Arc<LwcFile>,
}

impl File {
    fn projection(&self, columns: Option<Vec<String>>) -> PyResult<Vec<usize>> {
        match columns {
            None => Ok((0..self.file.columns().len()).collect()),
            Some(names) => names.iter().map(|n| self.file.column_index(n).map_err(file_error)).collect(),
        }
    }

    fn table(py: Python<'_>, schema: Arc<Schema>, batches: Vec<RecordBatch>) -> PyResult<Py<PyAny>> {
        let table = Table::try_new(batches, schema).map_err(|e| LwcError::new_err(e.to_string()))?;
        Ok(PyArrowType(table).into_pyobject(py)?.unbind())
    }
}

/// A filter expression (`"qty < 3 and mode in ('MAIL', 'SHIP')"`), parsed.
fn parse_filter(text: Option<&str>) -> PyResult<Option<Filter>> {
    text.map(|t| Filter::parse_expression(t).map_err(file_error)).transpose()
}

/// A one-row array's value as a Python object (through pyarrow's `as_py`).
fn scalar<'py>(py: Python<'py>, array: &Option<ArrayRef>) -> PyResult<Bound<'py, PyAny>> {
    match array {
        None => Ok(py.None().into_bound(py)),
        Some(a) => a.to_data().to_pyarrow(py)?.get_item(0)?.call_method0("as_py"),
    }
}

#[pymethods]
impl File {
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let file = py.detach(|| LwcFile::open(&path)).map_err(file_error)?;
        Ok(File { file: Arc::new(file) })
    }

    /// The Arrow schema of the rows.
    #[getter]
    fn schema(&self) -> PyArrowType<Schema> {
        PyArrowType(self.file.schema().as_ref().clone())
    }

    /// Rows in the file.
    #[getter]
    fn num_rows(&self) -> u64 {
        self.file.num_rows()
    }

    /// Size of the file in bytes.
    #[getter]
    fn file_bytes(&self) -> u64 {
        self.file.file_bytes()
    }

    /// The options the file was written with, as its footer records them.
    #[getter]
    fn options(&self) -> String {
        self.file.options().to_string()
    }

    /// Per column: name, type, storage, rows, nulls, plain and encoded bytes, ratio, segments, encodings.
    fn columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        columns_list(py, self.file.columns())
    }

    /// Rows `start..stop` of `columns` (all by default) that pass `filter`, as a pyarrow.Table.
    #[pyo3(signature = (columns=None, start=0, stop=None, filter=None))]
    fn read(
        &self,
        py: Python<'_>,
        columns: Option<Vec<String>>,
        start: u64,
        stop: Option<u64>,
        filter: Option<&str>,
    ) -> PyResult<Py<PyAny>> {
        let projection = self.projection(columns)?;
        let stop = stop.unwrap_or(self.file.num_rows()).min(self.file.num_rows());
        let mut options = ScanOptions::default().with_projection(projection).with_rows(start.min(stop)..stop);
        if let Some(f) = parse_filter(filter)? {
            options = options.with_filter(f);
        }
        let file = &self.file;
        let (schema, batches) = py
            .detach(|| -> lwc_file::Result<_> {
                let scan = file.scan(options)?;
                let schema = scan.schema();
                Ok((schema, scan.collect::<lwc_file::Result<Vec<_>>>()?))
            })
            .map_err(file_error)?;
        Self::table(py, schema, batches)
    }

    /// The rows at `indices` (a pyarrow uint64 array without nulls; any order, repeats allowed) of
    /// `columns`, as a pyarrow.Table. The indices are read where pyarrow holds them: made a list of Python
    /// ints and checked one by one, 10^6 of them cost six times the take.
    #[pyo3(signature = (indices, columns=None))]
    fn take(
        &self,
        py: Python<'_>,
        indices: PyArrowType<ArrayData>,
        columns: Option<Vec<String>>,
    ) -> PyResult<Py<PyAny>> {
        let indices = make_array(indices.0);
        let indices = match indices.as_any().downcast_ref::<UInt64Array>() {
            Some(rows) if rows.null_count() == 0 => rows,
            _ => {
                let found = indices.data_type();
                return Err(PyTypeError::new_err(format!("indices must be uint64 without nulls, not {found}")));
            }
        };
        let projection = self.projection(columns)?;
        let (file, rows) = (&self.file, indices.values().as_ref());
        let arrays = py
            .detach(|| projection.iter().map(|&c| file.take(c, rows)).collect::<lwc_file::Result<Vec<_>>>())
            .map_err(file_error)?;
        let schema = Arc::new(file.schema().project(&projection).map_err(|e| LwcError::new_err(e.to_string()))?);
        let batch = RecordBatch::try_new_with_options(
            schema.clone(),
            arrays,
            &arrow_array::RecordBatchOptions::new().with_row_count(Some(indices.len())),
        )
        .map_err(|e| LwcError::new_err(e.to_string()))?;
        Self::table(py, schema, vec![batch])
    }

    /// Count, sum, min and max of `column` over the rows `where` selects, computed on the encoded
    /// segments, with what the zone maps skipped.
    #[pyo3(signature = (column, r#where=None))]
    fn scan<'py>(&self, py: Python<'py>, column: &str, r#where: Option<&str>) -> PyResult<Bound<'py, PyDict>> {
        let index = self.file.column_index(column).map_err(file_error)?;
        let filter = parse_filter(r#where)?;
        let file = &self.file;
        let result = py.detach(|| file.aggregate(index, filter.as_ref())).map_err(file_error)?;
        let out = PyDict::new(py);
        out.set_item("rows", result.rows)?;
        out.set_item("count", result.count)?;
        let sum: Option<Bound<'py, PyAny>> = match result.sum {
            None => None,
            Some(Sum::Float(f)) => Some(f.into_pyobject(py)?.into_any()),
            Some(Sum::Int(i)) => Some(match file.schema().field(index).data_type() {
                // Decimals sum their unscaled values: scale back.
                DataType::Decimal32(_, s) | DataType::Decimal64(_, s) | DataType::Decimal128(_, s) => {
                    let decimal = py.import("decimal")?.getattr("Decimal")?.call1((i,))?;
                    decimal.call_method1("scaleb", (-(*s as i32),))?
                }
                _ => i.into_pyobject(py)?.into_any(),
            }),
        };
        out.set_item("sum", sum)?;
        out.set_item("min", scalar(py, &result.min)?)?;
        out.set_item("max", scalar(py, &result.max)?)?;
        let s = result.stats;
        out.set_item("row_groups", s.row_groups)?;
        out.set_item("row_groups_skipped", s.pruned)?;
        out.set_item("row_groups_whole", s.kept_whole)?;
        out.set_item("row_groups_filtered", s.filtered)?;
        Ok(out)
    }

    /// How the selector chooses each segment of `columns` (all whose encoding is chosen, by default)
    /// under `objective`: candidates, estimated sizes, modelled costs, why the winner won.
    #[pyo3(signature = (columns=None, objective="balanced", segment_rows=65536))]
    fn explain(
        &self,
        py: Python<'_>,
        columns: Option<Vec<String>>,
        objective: &str,
        segment_rows: usize,
    ) -> PyResult<String> {
        let options = lwc::EncodeOptions { explain: true, ..encode_options("auto", objective, segment_rows)? };
        let chosen = |i: &usize| !matches!(self.file.columns()[*i].storage, lwc_file::Storage::Plain(_));
        let indices: Vec<usize> = match columns {
            None => (0..self.file.columns().len()).filter(chosen).collect(),
            Some(_) => self.projection(columns)?,
        };
        let file = &self.file;
        py.detach(|| -> lwc_file::Result<String> {
            let mut text = String::new();
            for i in indices {
                let info = &file.columns()[i];
                let explains = lwc_file::explain_array(file.read_column(i)?.as_ref(), &options)?;
                let bytes: usize = explains.iter().map(|e| e.actual_bytes).sum();
                text.push_str(&format!(
                    "column {} ({}, stored as {}): {} segments, {} rows, {bytes} bytes encoded, objective {}\n",
                    info.name,
                    info.data_type,
                    info.storage,
                    explains.len(),
                    info.rows,
                    options.objective
                ));
                text.push_str(&lwc_file::explains_text(&explains));
                text.push('\n');
            }
            Ok(text)
        })
        .map_err(file_error)
    }

    /// Checks every segment's checksum and opens every segment; raises CorruptFileError if one fails.
    fn verify(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| self.file.verify()).map_err(file_error)
    }

    fn __len__(&self) -> usize {
        self.file.num_rows() as usize
    }

    fn __repr__(&self) -> String {
        let path = self.file.path().map(|p| p.display().to_string()).unwrap_or_else(|| "<memory>".into());
        format!(
            "lwc.File('{path}', {} rows, {} columns, {} bytes)",
            self.file.num_rows(),
            self.file.columns().len(),
            self.file.file_bytes()
        )
    }
}
