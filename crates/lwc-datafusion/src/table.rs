//! The table provider: one `.lwc` file as a DataFusion table.

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::array::ArrayRef;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::stats::Precision;
use datafusion::common::{ColumnStatistics, Result, ScalarValue, Statistics};
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
        Some(table_statistics(&self.file))
    }
}

/// The whole file's statistics from its footer: exact rows, bytes and null counts, and each column's min
/// and max (see [`column_range`]).
pub(crate) fn table_statistics(file: &LwcFile) -> Statistics {
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
