//! The physical scan: contiguous stretches of segments (of one file or of several in a row) per partition,
//! each read by lwc-file's scan.

use std::fmt;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{Result, Statistics};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_expr_common::physical_expr::{snapshot_generation, snapshot_physical_expr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::filter_pushdown::{
    ChildPushdownResult, FilterPushdownPhase, FilterPushdownPropagation, PushedDown,
};
use datafusion::physical_plan::metrics::{Count, ExecutionPlanMetricsSet, MetricBuilder, MetricsSet, Time};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    ChildrenPropertiesMode, DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
    ReplaceChildrenOptions,
};
use futures::stream;
use lwc_file::{Filter, LwcFile, ScanOptions, ScanStats};

use crate::expr::implied_filter;
use crate::stats::table_statistics;

/// Scans lwc files: the projected columns of the rows that pass the filter, at most `limit` of them per
/// partition, each partition a run of whole segments.
#[derive(Debug)]
pub struct LwcScanExec {
    reader: Arc<RangeReader>,
    limit: Option<usize>,
    /// Per partition, the row ranges it reads in turn (one per segment of the first column), each with the
    /// index of its file.
    partitions: Vec<Vec<(usize, Range<u64>)>>,
    schema: SchemaRef,
    properties: Arc<PlanProperties>,
    metrics: ExecutionPlanMetricsSet,
    /// Predicates pushed in while the plan runs (a hash join's build-side keys, a top-k's threshold),
    /// read afresh for each segment; see [`ExecutionPlan::handle_child_pushdown_result`].
    dynamic_filters: Arc<[Arc<dyn PhysicalExpr>]>,
}

impl LwcScanExec {
    /// A scan of `files` (one table, their rows in this order; they share one schema, as
    /// [`crate::LwcTable::from_files`] checks) split into at most `partitions` partitions.
    pub fn new(
        files: Vec<Arc<LwcFile>>,
        projection: Option<Vec<usize>>,
        filter: Option<Filter>,
        limit: Option<usize>,
        partitions: usize,
    ) -> Result<LwcScanExec> {
        let ranges: Vec<(usize, Range<u64>)> =
            files.iter().enumerate().flat_map(|(k, f)| segment_ranges(f).into_iter().map(move |r| (k, r))).collect();
        LwcScanExec::with_partitions(files, projection, filter, limit, split(&ranges, partitions))
    }

    /// A scan whose partitions read these row ranges (each with the index of its file in `files`).
    pub(crate) fn with_partitions(
        files: Vec<Arc<LwcFile>>,
        projection: Option<Vec<usize>>,
        filter: Option<Filter>,
        limit: Option<usize>,
        partitions: Vec<Vec<(usize, Range<u64>)>>,
    ) -> Result<LwcScanExec> {
        let Some(first) = files.first() else {
            return Err(datafusion::error::DataFusionError::Plan("a scan of no file".into()));
        };
        let table_schema = first.schema();
        let projection = projection.unwrap_or_else(|| (0..table_schema.fields().len()).collect());
        let schema = Arc::new(table_schema.project(&projection)?);
        let properties = PlanProperties::new(
            EquivalenceProperties::new(schema.clone()),
            Partitioning::UnknownPartitioning(partitions.len()),
            EmissionType::Incremental,
            Boundedness::Bounded,
        );
        let reader = Arc::new(RangeReader { files, table_schema, projection, filter, passing: OnceLock::new() });
        let metrics = ExecutionPlanMetricsSet::new();
        let properties = Arc::new(properties);
        Ok(LwcScanExec { reader, limit, partitions, schema, properties, metrics, dynamic_filters: Arc::new([]) })
    }

    /// The filter evaluated on the encoded segments, if any.
    pub fn filter(&self) -> Option<&Filter> {
        self.reader.filter.as_ref()
    }

    /// Per partition, the row ranges it reads, each with the index of its file.
    pub(crate) fn partitions(&self) -> &[Vec<(usize, Range<u64>)>] {
        &self.partitions
    }

    /// The files scanned, in row order.
    pub(crate) fn files(&self) -> &[Arc<LwcFile>] {
        &self.reader.files
    }

    /// The table columns it outputs, in order.
    pub(crate) fn projection(&self) -> &[usize] {
        &self.reader.projection
    }

    /// The most rows a partition outputs.
    pub(crate) fn limit(&self) -> Option<usize> {
        self.limit
    }

    /// Whether filters pushed while the plan runs narrow it.
    pub(crate) fn has_dynamic_filters(&self) -> bool {
        !self.dynamic_filters.is_empty()
    }
}

/// What every partition of a scan reads: the files, the columns and the filter.
#[derive(Debug)]
struct RangeReader {
    files: Vec<Arc<LwcFile>>,
    table_schema: SchemaRef,
    projection: Vec<usize>,
    filter: Option<Filter>,
    /// The rows the filter passes, estimated once for the planner ([`RangeReader::estimated_rows`]).
    passing: OnceLock<Option<u64>>,
}

/// Row groups the planner's estimate of a filter runs it on, over all files of a table.
const ESTIMATE_SAMPLE: usize = 16;

impl RangeReader {
    /// How many rows pass the filter, estimated by lwc-file from the zone maps and the filter run on a
    /// few row groups spread over the files (at least one each); `None` without a filter or where one
    /// file cannot say.
    fn estimated_rows(&self) -> Option<u64> {
        let filter = self.filter.as_ref()?;
        *self.passing.get_or_init(|| {
            let sample = (ESTIMATE_SAMPLE / self.files.len()).max(1);
            let mut rows = 0;
            let mut exact = true;
            for file in &self.files {
                let estimate = file.estimate_rows(filter, sample).ok()?;
                rows += estimate.rows;
                exact &= estimate.exact;
            }
            // A sample that found no row does not show that none passes.
            Some(if exact { rows } else { rows.max(1) })
        })
    }

    /// The batches of the rows in `rows` of file `file` that pass, at most `limit` of them, and what the
    /// scan did. `dynamic` narrows the filter further where lwc can run it: rows it drops are rows
    /// no one downstream wants.
    fn read(
        &self,
        file: usize,
        rows: Range<u64>,
        limit: Option<u64>,
        dynamic: Option<Filter>,
    ) -> Result<(Vec<RecordBatch>, ScanStats)> {
        let mut options = ScanOptions::default().with_projection(self.projection.clone()).with_rows(rows.clone());
        if let Some(l) = limit {
            options = options.with_limit(l);
        }
        let filter = match (&self.filter, &dynamic) {
            (Some(f), Some(d)) => Some(f.clone().and(d.clone())),
            (f, d) => f.clone().or(d.clone()),
        };
        let scan = match filter {
            Some(filter) => self.files[file].scan(options.clone().with_filter(filter)),
            None => self.files[file].scan(options.clone()),
        };
        let mut scan = match (scan, dynamic) {
            // A dynamic filter lwc-file will not plan (a literal of another type than its column) is
            // dropped: it only narrows what the plan above filters anyway.
            (Err(_), Some(_)) => self.read_options(file, options)?,
            (scan, _) => scan.map_err(crate::external)?,
        };
        let batches = scan.by_ref().collect::<lwc_file::Result<Vec<_>>>().map_err(crate::external)?;
        Ok((batches, scan.stats()))
    }

    /// The scan of file `file` with `options` and the static filter alone.
    fn read_options(&self, file: usize, options: ScanOptions) -> Result<lwc_file::Scan<'_>> {
        let options = match &self.filter {
            Some(f) => options.with_filter(f.clone()),
            None => options,
        };
        self.files[file].scan(options).map_err(crate::external)
    }
}

/// What the dynamic filters say now (a join's is `true` until its build side is known), as one lwc
/// filter implied by all of them, or `None`.
fn dynamic_filter(filters: &[Arc<dyn PhysicalExpr>]) -> Option<Filter> {
    filters
        .iter()
        .filter_map(|f| snapshot_physical_expr(f.clone()).ok())
        .filter_map(|f| implied_filter(&f).map(|(filter, _)| filter))
        .reduce(Filter::and)
}

/// [`dynamic_filter`] for one partition's stream, made again only when a filter changed (a join's list
/// of 10^4 keys would otherwise be rebuilt for every segment).
struct DynamicFilters {
    filters: Arc<[Arc<dyn PhysicalExpr>]>,
    made: Option<(u64, Option<Filter>)>,
}

impl DynamicFilters {
    fn now(&mut self) -> Option<Filter> {
        if self.filters.is_empty() {
            return None;
        }
        let generation = self.filters.iter().fold(0u64, |g, f| g.wrapping_add(snapshot_generation(f)));
        match &self.made {
            Some((made, filter)) if *made == generation => filter.clone(),
            _ => {
                let filter = dynamic_filter(&self.filters);
                self.made = Some((generation, filter.clone()));
                filter
            }
        }
    }
}

/// What one partition's scan did, for `EXPLAIN ANALYZE`: the row groups (segments) its zone maps skipped
/// unread or kept whole, and those the filter was evaluated on.
struct ScanMetrics {
    output_rows: Count,
    elapsed_compute: Time,
    row_groups: Count,
    pruned: Count,
    kept_whole: Count,
    filtered: Count,
}

impl ScanMetrics {
    fn new(metrics: &ExecutionPlanMetricsSet, partition: usize) -> ScanMetrics {
        let count = |name: &'static str| MetricBuilder::new(metrics).counter(name, partition);
        ScanMetrics {
            output_rows: MetricBuilder::new(metrics).output_rows(partition),
            elapsed_compute: MetricBuilder::new(metrics).elapsed_compute(partition),
            row_groups: count("row_groups"),
            pruned: count("row_groups_pruned"),
            kept_whole: count("row_groups_kept_whole"),
            filtered: count("row_groups_filtered"),
        }
    }

    fn add(&self, stats: &ScanStats, batches: &[RecordBatch]) {
        self.row_groups.add(stats.row_groups);
        self.pruned.add(stats.pruned);
        self.kept_whole.add(stats.kept_whole);
        self.filtered.add(stats.filtered);
        self.output_rows.add(batches.iter().map(RecordBatch::num_rows).sum());
    }
}

/// The row ranges of the first column's segments (one range for a file without columns or rows).
#[allow(clippy::single_range_in_vec_init)] // a list of one range, not the range's values
fn segment_ranges(file: &LwcFile) -> Vec<Range<u64>> {
    let Some(first) = file.columns().first() else { return vec![0..file.num_rows()] };
    let mut start = 0;
    let ranges: Vec<Range<u64>> = first
        .segments
        .iter()
        .map(|s| {
            let range = start..start + s.rows as u64;
            start = range.end;
            range
        })
        .collect();
    if ranges.is_empty() {
        vec![0..0]
    } else {
        ranges
    }
}

/// `ranges` (each with its file) in at most `n` runs of about equal rows, in order.
fn split(ranges: &[(usize, Range<u64>)], n: usize) -> Vec<Vec<(usize, Range<u64>)>> {
    let total: u64 = ranges.iter().map(|(_, r)| r.end - r.start).sum();
    let per_part = total.div_ceil(n.max(1) as u64).max(1);
    let mut parts: Vec<Vec<(usize, Range<u64>)>> = vec![Vec::new()];
    let mut rows_in_part = 0;
    for (file, r) in ranges {
        if rows_in_part >= per_part {
            parts.push(Vec::new());
            rows_in_part = 0;
        }
        parts.last_mut().expect("one part at least").push((*file, r.clone()));
        rows_in_part += r.end - r.start;
    }
    parts
}

impl DisplayAs for LwcScanExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let fields = self.reader.table_schema.fields();
        let names: Vec<&str> = self.reader.projection.iter().map(|&c| fields[c].name().as_str()).collect();
        write!(f, "LwcScanExec: partitions={}, projection=[{}]", self.partitions.len(), names.join(", "))?;
        write_files_and_filter(f, self.reader.files.len(), self.filter())?;
        if let Some(limit) = self.limit {
            write!(f, ", limit={limit}")?;
        }
        for dynamic in self.dynamic_filters.iter() {
            write!(f, ", dynamic_filter={dynamic}")?;
        }
        Ok(())
    }
}

/// What an lwc node's one-line display says of its input: the number of files where more than one, and
/// the filter lwc runs.
pub(crate) fn write_files_and_filter(f: &mut fmt::Formatter, files: usize, filter: Option<&Filter>) -> fmt::Result {
    if files > 1 {
        write!(f, ", files={files}")?;
    }
    if let Some(filter) = filter {
        write!(f, ", filter={filter}")?;
    }
    Ok(())
}

impl ExecutionPlan for LwcScanExec {
    fn name(&self) -> &'static str {
        "LwcScanExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![]
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        // The pushed filter is lwc's own; the dynamic filters are DataFusion's expressions.
        for dynamic in self.dynamic_filters.iter() {
            if f(dynamic)? == TreeNodeRecursion::Stop {
                return Ok(TreeNodeRecursion::Stop);
            }
        }
        Ok(TreeNodeRecursion::Continue)
    }

    fn replace_children(
        self: Arc<Self>,
        _children: Vec<Arc<dyn ExecutionPlan>>,
        _options: ReplaceChildrenOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(self)
    }

    fn with_new_children(self: Arc<Self>, children: Vec<Arc<dyn ExecutionPlan>>) -> Result<Arc<dyn ExecutionPlan>> {
        self.replace_children(children, ReplaceChildrenOptions::new(ChildrenPropertiesMode::Recompute))
    }

    /// The footer's statistics, projected: exact for a scan of every row; once a filter applies, inexact,
    /// with the rows (and bytes) the filter is estimated to pass; capped by a limit; unknown for one
    /// partition. The join planner picks build sides and whether to broadcast them by these figures, so
    /// a filtered table must look neither unknown (Q7 built its hash tables on the wrong sides) nor as
    /// large as unfiltered (Q8 split 6 M lineitem rows over threads to join them with 1,450 parts).
    #[allow(deprecated)] // DataFusion 55 asks for either this or `statistics_from_inputs`; a leaf has no inputs
    fn partition_statistics(&self, partition: Option<usize>) -> Result<Arc<Statistics>> {
        if partition.is_some() {
            return Ok(Arc::new(Statistics::new_unknown(&self.schema)));
        }
        let mut stats =
            table_statistics(&self.reader.files, &self.reader.table_schema).project(Some(&self.reader.projection));
        if self.filter().is_some() {
            stats = stats.with_fetch(self.reader.estimated_rows().map(|r| r as usize), 0, 1)?.to_inexact();
        }
        Ok(Arc::new(stats.with_fetch(self.limit, 0, 1)?))
    }

    /// Takes the dynamic filters DataFusion pushes after planning (hash joins' build-side keys, top-k
    /// thresholds): each segment is then read with what they say by then, so a join whose build side
    /// holds a few keys prunes the probe side's segments by their zone maps and filters the rest on
    /// the encoded form. The plan above still applies them (reported unsupported), so a filter lwc
    /// cannot run costs nothing but the check.
    fn handle_child_pushdown_result(
        &self,
        phase: FilterPushdownPhase,
        child_pushdown_result: ChildPushdownResult,
        _config: &ConfigOptions,
    ) -> Result<FilterPushdownPropagation<Arc<dyn ExecutionPlan>>> {
        let filters: Vec<Arc<dyn PhysicalExpr>> =
            child_pushdown_result.parent_filters.into_iter().map(|f| f.filter).collect();
        let unsupported = vec![PushedDown::No; filters.len()];
        // Static filters came through the table provider (`supports_filters_pushdown`) already.
        if phase != FilterPushdownPhase::Post || filters.is_empty() {
            return Ok(FilterPushdownPropagation::with_parent_pushdown_result(unsupported));
        }
        let node = LwcScanExec {
            reader: self.reader.clone(),
            limit: self.limit,
            partitions: self.partitions.clone(),
            schema: self.schema.clone(),
            properties: self.properties.clone(),
            metrics: ExecutionPlanMetricsSet::new(),
            dynamic_filters: self.dynamic_filters.iter().cloned().chain(filters).collect(),
        };
        Ok(FilterPushdownPropagation { filters: unsupported, updated_node: Some(Arc::new(node)) })
    }

    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }

    fn execute(&self, partition: usize, _context: Arc<TaskContext>) -> Result<SendableRecordBatchStream> {
        let ranges = self.partitions.get(partition).cloned().ok_or_else(|| {
            datafusion::error::DataFusionError::Internal(format!(
                "LwcScanExec: partition {partition} of {}",
                self.partitions.len()
            ))
        })?;
        // One segment's rows at a time, read when the stream is polled: lwc-file's scan borrows the file,
        // so each step collects its batches (at most a segment's rows) before handing them on.
        let metrics = Arc::new(ScanMetrics::new(&self.metrics, partition));
        let reader = (self.reader.clone(), DynamicFilters { filters: self.dynamic_filters.clone(), made: None });
        let state = (ranges.into_iter(), self.limit.map(|l| l as u64), reader, metrics);
        let batches = stream::unfold(state, |(mut ranges, remaining, mut reader, metrics)| async move {
            if remaining == Some(0) {
                return None;
            }
            let (file, range) = ranges.next()?;
            let timer = metrics.elapsed_compute.timer();
            let (range_reader, dynamic) = &mut reader;
            let read = range_reader.read(file, range, remaining, dynamic.now()).map(|(batches, stats)| {
                metrics.add(&stats, &batches);
                batches
            });
            timer.done();
            let left = match (&read, remaining) {
                (Ok(batches), Some(r)) => Some(r - batches.iter().map(|b| b.num_rows() as u64).sum::<u64>().min(r)),
                _ => remaining,
            };
            // An error ends the stream after it is reported.
            let ranges = if read.is_ok() { ranges } else { Vec::new().into_iter() };
            Some((
                stream::iter(read.map_or_else(|e| vec![Err(e)], |b| b.into_iter().map(Ok).collect())),
                (ranges, left, reader, metrics),
            ))
        });
        use futures::StreamExt;
        Ok(Box::pin(RecordBatchStreamAdapter::new(self.schema.clone(), batches.flatten())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::single_range_in_vec_init)]
    fn partitions_split_segments_evenly_and_in_order() {
        let ranges: Vec<(usize, Range<u64>)> = (0..10).map(|k| (k as usize / 4, k * 100..(k + 1) * 100)).collect();
        let parts = split(&ranges, 3);
        assert_eq!(parts.len(), 3);
        assert_eq!(parts.concat(), ranges);
        assert_eq!(split(&ranges, 1).len(), 1);
        assert_eq!(split(&ranges, 64).len(), 10);
        assert_eq!(split(&[(0, 0..0)], 4), [vec![(0, 0..0)]]);
    }
}
