//! The table provider: one `.lwc` file as a DataFusion table.

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::stats::Precision;
use datafusion::common::{ColumnStatistics, Result, Statistics};
use datafusion::datasource::TableType;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::ExecutionPlan;
use lwc_file::{Filter, LwcFile, ScanOptions};

use crate::exec::LwcScanExec;
use crate::expr::to_filter;

/// A `.lwc` file as a DataFusion table (see the crate's documentation for what it pushes down).
#[derive(Debug, Clone)]
pub struct LwcTable {
    file: Arc<LwcFile>,
}

impl LwcTable {
    /// Opens the file at `path` (mapped, its footer checked; segments are validated as they are read).
    pub fn open(path: impl AsRef<Path>) -> Result<LwcTable> {
        Ok(LwcTable::new(Arc::new(LwcFile::open(path).map_err(crate::external)?)))
    }

    /// A table over a file already open.
    pub fn new(file: Arc<LwcFile>) -> LwcTable {
        LwcTable { file }
    }

    /// The file.
    pub fn file(&self) -> &Arc<LwcFile> {
        &self.file
    }
}

#[async_trait]
impl TableProvider for LwcTable {
    fn schema(&self) -> SchemaRef {
        self.file.schema()
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
        Ok(Arc::new(LwcScanExec::new(self.file.clone(), projection.cloned(), filter, limit, partitions)?))
    }

    fn supports_filters_pushdown(&self, filters: &[&Expr]) -> Result<Vec<TableProviderFilterPushDown>> {
        // Exact where lwc can plan the filter on this file (its columns exist, its literals read in their
        // types); planning reads only the footer.
        let runs_here =
            |f: Filter| self.file.scan(ScanOptions::default().with_projection(vec![]).with_filter(f)).is_ok();
        Ok(filters
            .iter()
            .map(|e| match to_filter(e).is_some_and(runs_here) {
                true => TableProviderFilterPushDown::Exact,
                false => TableProviderFilterPushDown::Unsupported,
            })
            .collect())
    }

    fn statistics(&self) -> Option<Statistics> {
        let columns = self.file.columns();
        let mut stats = Statistics::new_unknown(&self.file.schema())
            .with_num_rows(Precision::Exact(self.file.num_rows() as usize))
            .with_total_byte_size(Precision::Exact(columns.iter().map(|c| c.plain_bytes as usize).sum()));
        stats.column_statistics = columns
            .iter()
            .map(|c| ColumnStatistics {
                null_count: Precision::Exact(c.nulls as usize),
                byte_size: Precision::Exact(c.plain_bytes as usize),
                ..ColumnStatistics::new_unknown()
            })
            .collect();
        Some(stats)
    }
}
