//! The table provider: one `.lwc` file, or a directory of them with one schema, as a DataFusion table.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::array::ArrayRef;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::stats::Precision;
use datafusion::common::{plan_err, ColumnStatistics, Result, ScalarValue, Statistics};
use datafusion::datasource::TableType;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::ExecutionPlan;
use lwc_file::{Filter, LwcFile, ScanOptions};

use crate::exec::LwcScanExec;
use crate::expr::to_filter;

/// `.lwc` files of one schema as a DataFusion table (see the crate's documentation for what it pushes
/// down): one file, or every file of a directory, read in file-name order.
#[derive(Debug, Clone)]
pub struct LwcTable {
    files: Vec<Arc<LwcFile>>,
    schema: SchemaRef,
}

impl LwcTable {
    /// Opens the file at `path` (mapped, its footer checked; segments are validated as they are read), or,
    /// where `path` is a directory, every `.lwc` file in it as one table.
    pub fn open(path: impl AsRef<Path>) -> Result<LwcTable> {
        let path = path.as_ref();
        if !path.is_dir() {
            return Ok(LwcTable::new(Arc::new(LwcFile::open(path).map_err(crate::external)?)));
        }
        let paths = lwc_files_in(path)?;
        let files = paths
            .iter()
            .map(|p| {
                LwcFile::open(p)
                    .map(Arc::new)
                    .map_err(|e| datafusion::error::DataFusionError::External(format!("{}: {e}", p.display()).into()))
            })
            .collect::<Result<Vec<_>>>()?;
        match LwcTable::from_files(files) {
            Err(e) if paths.is_empty() => plan_err!("{}: no .lwc files in this directory ({e})", path.display()),
            Err(e) => Err(e.context(format!("{}", path.display()))),
            ok => ok,
        }
    }

    /// A table over a file already open.
    pub fn new(file: Arc<LwcFile>) -> LwcTable {
        LwcTable { schema: file.schema(), files: vec![file] }
    }

    /// A table over files already open, in this order. They must have the same columns (names, types,
    /// nullability), and there must be one at least.
    pub fn from_files(files: Vec<Arc<LwcFile>>) -> Result<LwcTable> {
        let Some(first) = files.first() else { return plan_err!("a table needs one .lwc file at least") };
        let schema = first.schema();
        for (k, f) in files.iter().enumerate().skip(1) {
            if f.schema().fields() != schema.fields() {
                return plan_err!(
                    "file {k} of the table has other columns than the first: {} against {}",
                    f.schema(),
                    schema
                );
            }
        }
        Ok(LwcTable { files, schema })
    }

    /// The files, in the table's row order.
    pub fn files(&self) -> &[Arc<LwcFile>] {
        &self.files
    }
}

/// The `.lwc` files directly in `dir`, in name order: the files [`LwcTable::open`] makes one table of.
pub fn lwc_files_in(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "lwc"))
        .collect();
    paths.sort();
    Ok(paths)
}

#[async_trait]
impl TableProvider for LwcTable {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        // Only filters reported `Exact` reach here translated; the rest DataFusion evaluates above the scan.
        let filter = filters.iter().filter_map(to_filter).reduce(Filter::and);
        let partitions = state.config().target_partitions().max(1);
        Ok(Arc::new(LwcScanExec::new(self.files.clone(), projection.cloned(), filter, limit, partitions)?))
    }

    fn supports_filters_pushdown(&self, filters: &[&Expr]) -> Result<Vec<TableProviderFilterPushDown>> {
        // Exact where lwc can plan the filter on every file (its columns exist, its literals read in their
        // types); planning reads only the footers.
        let runs_here = |f: Filter| {
            let options = ScanOptions::default().with_projection(vec![]).with_filter(f);
            self.files.iter().all(|file| file.scan(options.clone()).is_ok())
        };
        Ok(filters
            .iter()
            .map(|e| match to_filter(e).is_some_and(runs_here) {
                true => TableProviderFilterPushDown::Exact,
                false => TableProviderFilterPushDown::Unsupported,
            })
            .collect())
    }

    fn statistics(&self) -> Option<Statistics> {
        Some(table_statistics(&self.files, &self.schema))
    }
}

/// The files' statistics from their footers, merged: exact rows, bytes and null counts, and each column's
/// min and max (see [`column_range`]).
pub(crate) fn table_statistics(files: &[Arc<LwcFile>], schema: &SchemaRef) -> Statistics {
    let each: Vec<Statistics> = files.iter().map(|f| file_statistics(f)).collect();
    Statistics::try_merge_iter(&each, schema).unwrap_or_else(|_| Statistics::new_unknown(schema))
}

/// One file's statistics.
fn file_statistics(file: &LwcFile) -> Statistics {
    let columns = file.columns();
    let mut stats = Statistics::new_unknown(&file.schema())
        .with_num_rows(Precision::Exact(file.num_rows() as usize))
        .with_total_byte_size(Precision::Exact(columns.iter().map(|c| c.plain_bytes as usize).sum()));
    stats.column_statistics = columns
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let (min_value, max_value) = column_range(file, k);
            ColumnStatistics {
                null_count: Precision::Exact(c.nulls as usize),
                byte_size: Precision::Exact(c.plain_bytes as usize),
                min_value,
                max_value,
                ..ColumnStatistics::new_unknown()
            }
        })
        .collect();
    stats
}

/// Column `k`'s min and max from the footer. Exact, so DataFusion may answer `min`/`max` from them without
/// a scan, except for floats: lwc orders NaN above every number, and DataFusion's float min and max do not
/// promise one order for NaN.
fn column_range(file: &LwcFile, k: usize) -> (Precision<ScalarValue>, Precision<ScalarValue>) {
    let Ok(Some((lo, hi))) = file.column_range(k) else { return (Precision::Absent, Precision::Absent) };
    let scalar = |a: &ArrayRef| ScalarValue::try_from_array(a, 0).ok();
    let (Some(lo), Some(hi)) = (scalar(&lo), scalar(&hi)) else { return (Precision::Absent, Precision::Absent) };
    match lo.data_type().is_floating() {
        true => (Precision::Inexact(lo), Precision::Inexact(hi)),
        false => (Precision::Exact(lo), Precision::Exact(hi)),
    }
}
