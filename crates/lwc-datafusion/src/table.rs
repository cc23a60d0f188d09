//! The table provider: one `.lwc` file, or a directory of them with one schema, as a DataFusion table.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::{plan_err, Result, Statistics};
use datafusion::datasource::TableType;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::ExecutionPlan;
use lwc_file::{Filter, LwcFile, ScanOptions};

use crate::exec::LwcScanExec;
use crate::expr::to_filter;
use crate::stats::table_statistics;

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
