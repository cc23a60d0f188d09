//! `lwc.sql`: a query over `.lwc` tables through lwc-datafusion.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use arrow_pyarrow::{PyArrowType, Table};
use datafusion::prelude::SessionConfig;
use lwc_datafusion::LwcTable;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::LwcError;

/// Runs `query` over `tables` (name → a `.lwc` file, or a directory of them read as one table) and
/// returns the answer as a pyarrow.Table.
#[pyfunction]
#[pyo3(signature = (query, tables, threads=None))]
pub fn sql(
    py: Python<'_>,
    query: &str,
    tables: HashMap<String, PathBuf>,
    threads: Option<usize>,
) -> PyResult<PyArrowType<Table>> {
    if threads == Some(0) {
        return Err(PyValueError::new_err("threads must be at least 1"));
    }
    let mut config = SessionConfig::new().with_information_schema(true);
    if let Some(t) = threads {
        config = config.with_target_partitions(t);
    }
    let query = query.to_string();
    let (schema, batches) = py.detach(move || -> PyResult<_> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())))
            .enable_all()
            .build()
            .map_err(|e| LwcError::new_err(format!("cannot start the query runtime: {e}")))?;
        let ctx = lwc_datafusion::session_context(config);
        for (name, path) in &tables {
            let table = LwcTable::open(path).map_err(query_error)?;
            ctx.register_table(name.as_str(), Arc::new(table)).map_err(query_error)?;
        }
        runtime.block_on(async {
            let frame = ctx.sql(&query).await.map_err(query_error)?;
            let schema = Arc::new(frame.schema().as_arrow().clone());
            let batches = frame.collect().await.map_err(query_error)?;
            Ok((schema, batches))
        })
    })?;
    Ok(PyArrowType(Table::try_new(batches, schema).map_err(|e| LwcError::new_err(e.to_string()))?))
}

/// A DataFusion error (a parse or plan error, an unknown table or column) as LwcError; an lwc-file
/// error inside it (a missing or corrupt file) as its own exception.
fn query_error(e: datafusion::error::DataFusionError) -> PyErr {
    if let datafusion::error::DataFusionError::External(inner) = e.find_root() {
        if let Some(lwc) = inner.downcast_ref::<lwc_file::Error>() {
            return crate::exception_for(lwc);
        }
    }
    LwcError::new_err(e.to_string())
}
