//! SQL over `.lwc` files through [Apache DataFusion](https://datafusion.apache.org).
//!
//! [`LwcTable`] is a DataFusion `TableProvider` over one [`lwc_file::LwcFile`] (read through mmap), or over
//! a directory of them with one schema ([`LwcTable::open`] of the directory, or [`LwcTable::from_files`]):
//!
//! - **projection pushdown**: only the columns a query reads are decoded;
//! - **filter pushdown**: comparisons, `BETWEEN`, `IN`, `IS [NOT] NULL` and `LIKE 'prefix%'` on columns, and
//!   `AND`/`OR`/`NOT` over them, run on the encoded segments (zone maps skip segments, packed compares and
//!   dictionary codes select rows) and are reported `Exact`, so DataFusion does not filter again; anything
//!   else is `Unsupported` and DataFusion filters the rows it gets;
//! - **late materialization**: the filter's columns are read first, the other projected columns only at
//!   the rows that passed (lwc-file's scan);
//! - **limit pushdown**, and **partitions** by segment ranges, so DataFusion's threads scan in parallel;
//! - **statistics** from the footer: rows and null counts, and min and max of columns of values and of
//!   strings (inexact where a zone map keeps a prefix), so DataFusion answers `count(*)`, `min` and `max`
//!   over a whole table without a scan; a filtered scan reports the rows its filter is estimated to
//!   pass ([`lwc_file::LwcFile::estimate_rows`]: zone maps, and the filter run on a sample of segments),
//!   so the join planner sees how large a filtered table is and broadcasts small ones;
//! - **dynamic filters**: the keys a hash join's build side holds (up to 256 distinct keys become an `IN`
//!   list, tested against a bitmap of their span) and a top-k's threshold reach the scan while the query
//!   runs, and prune or filter its segments, so the other columns are decoded only where rows join;
//! - **aggregates on the encoded form**: with [`AggregateOnEncoded`] in the session ([`session_context`]
//!   adds it), `count`, `sum`, `avg`, `min` and `max` of columns over one table whose filter lwc runs
//!   whole are computed on the encoded segments (zone maps, dictionary histograms, packed sums) instead
//!   of decoded rows;
//! - **serializable plans**: [`LwcCodec`] writes lwc's plan nodes for datafusion-proto, so an engine that
//!   ships physical plans to other machines (Ballista) can run them there;
//! - **metrics** for `EXPLAIN ANALYZE`: per scan, the row groups (segments) looked at, those the zone maps
//!   skipped unread (`row_groups_pruned`) or kept whole (`row_groups_kept_whole`), and those the filter
//!   ran on (`row_groups_filtered`), so a point query shows it opened one segment.
//!
//! ```
//! use std::sync::Arc;
//! use datafusion::arrow::array::{Int64Array, RecordBatch, StringArray};
//! use datafusion::prelude::SessionConfig;
//! use lwc_datafusion::LwcTable;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> datafusion::error::Result<()> {
//! let batch = RecordBatch::try_from_iter([
//!     ("id", Arc::new(Int64Array::from_iter_values(0..1000)) as _),
//!     ("kind", Arc::new(StringArray::from_iter_values((0..1000).map(|i| ["a", "b"][i % 2]))) as _),
//! ])?;
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("t.lwc");
//! lwc_file::write_file(&path, batch.schema(), &[batch], lwc_file::WriteOptions::default()).unwrap();
//!
//! let ctx = lwc_datafusion::session_context(SessionConfig::new());
//! ctx.register_table("t", Arc::new(LwcTable::open(&path)?))?;
//! let sql = "SELECT count(*), sum(id) FROM t WHERE kind = 'a' AND id < 100";
//! let rows = ctx.sql(sql).await?.collect().await?;
//! assert_eq!(rows[0].num_rows(), 1);
//! // Answered on the encoded segments, not by DataFusion's own aggregation over decoded rows.
//! let plan = ctx.sql(&format!("EXPLAIN {sql}")).await?.collect().await?;
//! let plan = datafusion::arrow::util::pretty::pretty_format_batches(&plan)?.to_string();
//! assert!(plan.contains("LwcAggregateExec"));
//! # Ok(())
//! # }
//! ```

use std::sync::Arc;

mod aggregate;
mod codec;
mod exec;
mod expr;
mod stats;
mod table;

pub use aggregate::{AggregateOnEncoded, LwcAggregateExec};
pub use codec::LwcCodec;
pub use exec::LwcScanExec;
pub use expr::to_filter;
pub use table::{lwc_files_in, LwcTable};

/// A DataFusion session with `config` and lwc's physical optimizer rule ([`AggregateOnEncoded`]) after
/// DataFusion's own. Where `config` leaves DataFusion's default of 150 distinct keys for a hash join to
/// push its build side into the probe side's scan as an `IN` list, it is raised to
/// 256: lwc filters such lists on the encoded segments.
pub fn session_context(mut config: datafusion::prelude::SessionConfig) -> datafusion::prelude::SessionContext {
    let optimizer = &mut config.options_mut().optimizer;
    let default = datafusion::config::OptimizerOptions::default().hash_join_inlist_pushdown_max_distinct_values;
    if optimizer.hash_join_inlist_pushdown_max_distinct_values == default {
        optimizer.hash_join_inlist_pushdown_max_distinct_values = expr::IMPLIED_IN_LIST;
    }
    let state = datafusion::execution::SessionStateBuilder::new()
        .with_config(config)
        .with_default_features()
        .with_physical_optimizer_rule(Arc::new(AggregateOnEncoded))
        .build();
    datafusion::prelude::SessionContext::new_with_state(state)
}

/// An lwc-file error as DataFusion's.
pub(crate) fn external(e: lwc_file::Error) -> datafusion::error::DataFusionError {
    datafusion::error::DataFusionError::External(Box::new(e))
}
