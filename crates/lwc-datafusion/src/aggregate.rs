//! Aggregates of one filtered table answered on the encoded segments.
//!
//! DataFusion has no aggregate pushdown into a table provider; its extension point is a physical
//! optimizer rule. [`AggregateOnEncoded`] finds an aggregation without `GROUP BY` whose input is an lwc
//! scan (its whole filter evaluated on the encoded form, no limit) and whose aggregates are `count`,
//! `sum`, `avg`, `min` and `max` of columns, and replaces its first phase by [`LwcAggregateExec`]: lwc-file's
//! `aggregate` (zone maps settle whole segments, sums and extremes come from the encoded values) gives
//! each file's partial states, and DataFusion's final phase merges them as it would its own.

use std::fmt;
use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode, TreeNodeRecursion};
use datafusion::common::{DataFusionError, Result, ScalarValue};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::aggregate::AggregateFunctionExpr;
use datafusion::physical_expr::expressions::{CastExpr, Column, Literal};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::aggregates::{AggregateExec, AggregateMode};
use datafusion::physical_plan::coop::CooperativeExec;
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::repartition::RepartitionExec;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties};
use futures::stream;
use lwc_file::{ColumnAggregates, Filter, LwcFile, Sum};

use crate::LwcScanExec;

/// The physical optimizer rule that answers `count`, `sum`, `avg`, `min` and `max` over one filtered lwc
/// table on the encoded segments. Add it after DataFusion's own rules, as [`crate::session_context`]
/// does:
///
/// ```
/// use std::sync::Arc;
/// use datafusion::execution::SessionStateBuilder;
/// use datafusion::prelude::SessionContext;
///
/// let state = SessionStateBuilder::new()
///     .with_default_features()
///     .with_physical_optimizer_rule(Arc::new(lwc_datafusion::AggregateOnEncoded))
///     .build();
/// let ctx = SessionContext::new_with_state(state);
/// ```
#[derive(Debug, Default, Clone, Copy)]
pub struct AggregateOnEncoded;

impl PhysicalOptimizerRule for AggregateOnEncoded {
    fn optimize(&self, plan: Arc<dyn ExecutionPlan>, _config: &ConfigOptions) -> Result<Arc<dyn ExecutionPlan>> {
        plan.transform_up(|node| {
            let Some(aggregate) = node.downcast_ref::<AggregateExec>() else { return Ok(Transformed::no(node)) };
            let Some(encoded) = LwcAggregateExec::replacing(aggregate)? else { return Ok(Transformed::no(node)) };
            let encoded = Arc::new(encoded);
            Ok(Transformed::yes(match aggregate.mode() {
                AggregateMode::Partial => encoded,
                // One phase over one partition: the final phase merges the files' states.
                _ => Arc::new(AggregateExec::try_new(
                    AggregateMode::Final,
                    aggregate.group_expr().clone(),
                    aggregate.aggr_expr().to_vec(),
                    aggregate.filter_expr().to_vec(),
                    encoded,
                    aggregate.input_schema(),
                )?),
            }))
        })
        .data()
    }

    fn name(&self) -> &str {
        "lwc_aggregate_on_encoded"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// What one aggregate asks of the table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Wanted {
    /// `count(*)`: rows that pass.
    Rows,
    /// `count(column)`.
    Count(usize),
    Sum(usize),
    /// `avg(column)`: its state is the count and the sum.
    Avg(usize),
    Min(usize),
    Max(usize),
}

impl Wanted {
    /// The table column it reads, if any.
    fn column(self) -> Option<usize> {
        match self {
            Wanted::Rows => None,
            Wanted::Count(c) | Wanted::Sum(c) | Wanted::Avg(c) | Wanted::Min(c) | Wanted::Max(c) => Some(c),
        }
    }
}

/// The first phase of an aggregation over an lwc scan, computed on the encoded segments: one row of
/// partial states per file, in one partition.
#[derive(Debug)]
pub struct LwcAggregateExec {
    files: Vec<Arc<LwcFile>>,
    filter: Option<Filter>,
    wanted: Vec<Wanted>,
    /// The partial states' fields, as DataFusion's first phase would output them.
    schema: SchemaRef,
    properties: Arc<PlanProperties>,
}

impl LwcAggregateExec {
    /// The replacement of `aggregate`'s first phase, or `None` when lwc cannot answer it on its own.
    fn replacing(aggregate: &AggregateExec) -> Result<Option<LwcAggregateExec>> {
        let single_phase = matches!(aggregate.mode(), AggregateMode::Partial | AggregateMode::Single);
        if !single_phase || !aggregate.group_expr().is_empty() || aggregate.filter_expr().iter().any(Option::is_some) {
            return Ok(None);
        }
        let Some((scan, columns)) = scan_below(aggregate.input()) else { return Ok(None) };
        if scan.limit().is_some() || scan.has_dynamic_filters() {
            return Ok(None);
        }
        let files = scan.files().to_vec();
        let table = files[0].schema();
        let wanted: Option<Vec<Wanted>> =
            aggregate.aggr_expr().iter().map(|a| wanted(a, &columns, scan.projection(), &table)).collect();
        let Some(wanted) = wanted else { return Ok(None) };
        if table.fields().is_empty() {
            return Ok(None);
        }
        let mut fields: Vec<Arc<Field>> = Vec::new();
        for a in aggregate.aggr_expr() {
            fields.extend(a.state_fields()?);
        }
        let schema = Arc::new(Schema::new(fields));
        Ok(Some(LwcAggregateExec::from_parts(files, scan.filter().cloned(), wanted, schema)))
    }

    /// The node of these parts: `schema` holds the partial states of `wanted`, in order.
    pub(crate) fn from_parts(
        files: Vec<Arc<LwcFile>>,
        filter: Option<Filter>,
        wanted: Vec<Wanted>,
        schema: SchemaRef,
    ) -> LwcAggregateExec {
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(schema.clone()),
            Partitioning::UnknownPartitioning(1),
            EmissionType::Final,
            Boundedness::Bounded,
        ));
        LwcAggregateExec { files, filter, wanted, schema, properties }
    }

    /// The files, filter, aggregates and state schema it was made of.
    pub(crate) fn parts(&self) -> (&[Arc<LwcFile>], Option<&Filter>, &[Wanted], &SchemaRef) {
        (&self.files, self.filter.as_ref(), &self.wanted, &self.schema)
    }

    /// One file's partial states, one value a state field.
    fn file_states(&self, file: &LwcFile) -> Result<Vec<ScalarValue>> {
        let mut columns: Vec<usize> = self.wanted.iter().filter_map(|w| w.column()).collect();
        columns.sort_unstable();
        columns.dedup();
        if columns.is_empty() {
            columns.push(0); // `count(*)` alone: any column's aggregate counts the rows
        }
        let aggregates = file.aggregate_columns(&columns, self.filter.as_ref()).map_err(crate::external)?;
        let of = |c: usize| &aggregates[columns.binary_search(&c).expect("every wanted column aggregated")];
        let mut fields = self.schema.fields().iter();
        let mut next_type = || fields.next().map(|f| f.data_type().clone()).expect("a state field per value");
        let mut states = Vec::new();
        for &w in &self.wanted {
            match w {
                Wanted::Rows => states.push(count(aggregates[0].rows, &next_type())?),
                Wanted::Count(c) => states.push(count(of(c).count, &next_type())?),
                Wanted::Sum(c) => states.push(sum(of(c), &next_type())?),
                Wanted::Avg(c) => {
                    states.push(count(of(c).count, &next_type())?);
                    states.push(sum(of(c), &next_type())?);
                }
                Wanted::Min(c) => states.push(extreme(of(c).min.as_ref(), &next_type())?),
                Wanted::Max(c) => states.push(extreme(of(c).max.as_ref(), &next_type())?),
            }
        }
        Ok(states)
    }

    /// Every file's partial states, a row each.
    fn states(&self) -> Result<RecordBatch> {
        let rows = self.files.iter().map(|f| self.file_states(f)).collect::<Result<Vec<_>>>()?;
        let columns = (0..self.schema.fields().len())
            .map(|k| ScalarValue::iter_to_array(rows.iter().map(|r| r[k].clone())))
            .collect::<Result<Vec<_>>>()?;
        Ok(RecordBatch::try_new(self.schema.clone(), columns)?)
    }
}

/// The lwc scan under `plan` (directly, or under a projection of its columns, and repartitions that only
/// move rows between threads or tasks), and for each of `plan`'s output columns the scan's output column it is.
fn scan_below(plan: &Arc<dyn ExecutionPlan>) -> Option<(&LwcScanExec, Vec<usize>)> {
    let plan = below_repartitions(plan);
    if let Some(scan) = plan.downcast_ref::<LwcScanExec>() {
        return Some((scan, (0..scan.projection().len()).collect()));
    }
    let projection = plan.downcast_ref::<ProjectionExec>()?;
    let scan = below_repartitions(projection.input()).downcast_ref::<LwcScanExec>()?;
    let columns = projection
        .expr()
        .iter()
        .map(|e| e.expr.downcast_ref::<Column>().map(Column::index))
        .collect::<Option<Vec<usize>>>()?;
    Some((scan, columns))
}

/// The first node under `plan` that is not a repartition, or the wrapper that makes its input yield to
/// tokio: nodes that pass every row on unchanged.
fn below_repartitions(mut plan: &Arc<dyn ExecutionPlan>) -> &Arc<dyn ExecutionPlan> {
    loop {
        if let Some(repartition) = plan.downcast_ref::<RepartitionExec>() {
            plan = repartition.input();
        } else if let Some(cooperative) = plan.downcast_ref::<CooperativeExec>() {
            plan = cooperative.input();
        } else {
            return plan;
        }
    }
}

/// What `aggregate` asks of the table, or `None` when lwc cannot answer it. `columns` maps the
/// aggregation's input columns to the scan's, `projection` the scan's to the table's.
fn wanted(
    aggregate: &AggregateFunctionExpr,
    columns: &[usize],
    projection: &[usize],
    table: &Schema,
) -> Option<Wanted> {
    if aggregate.is_distinct() || !aggregate.order_bys().is_empty() {
        return None;
    }
    let [argument] = aggregate.expressions().try_into().ok()?;
    let name = aggregate.fun().name();
    if name == "count" {
        if let Some(literal) = argument.downcast_ref::<Literal>() {
            return (!literal.value().is_null()).then_some(Wanted::Rows);
        }
    }
    let column = projection[*columns.get(column_below_widening(&argument)?.index())?];
    let summable = || {
        let data_type = table.field(column).data_type();
        data_type.is_integer() || data_type.is_floating() || matches!(data_type, DataType::Decimal128(..))
    };
    match name {
        "count" => Some(Wanted::Count(column)),
        "sum" if summable() => Some(Wanted::Sum(column)),
        "avg" if summable() => Some(Wanted::Avg(column)),
        "min" => Some(Wanted::Min(column)),
        "max" => Some(Wanted::Max(column)),
        _ => None,
    }
}

/// The column `expr` is, or widens without loss of order (DataFusion casts a `sum`'s integers to 64 bits
/// and an `avg`'s to `Float64`, which commutes with lwc's exact sums and extremes).
fn column_below_widening(expr: &Arc<dyn PhysicalExpr>) -> Option<&Column> {
    if let Some(cast) = expr.downcast_ref::<CastExpr>() {
        let widening = matches!(cast.cast_type(), DataType::Int64 | DataType::UInt64 | DataType::Float64);
        return if widening { cast.expr().downcast_ref::<Column>() } else { None };
    }
    expr.downcast_ref::<Column>()
}

/// A count as a state of type `data_type` (`Int64` for `count`, `UInt64` for `avg`).
fn count(n: u64, data_type: &DataType) -> Result<ScalarValue> {
    ScalarValue::UInt64(Some(n)).cast_to(data_type)
}

/// A column's sum as a state of type `data_type`: null over no values, as DataFusion's is; integer sums
/// wrap to 64 bits as DataFusion's do.
fn sum(aggregates: &ColumnAggregates, data_type: &DataType) -> Result<ScalarValue> {
    if aggregates.count == 0 {
        return ScalarValue::try_new_null(data_type);
    }
    let value = match (aggregates.sum, data_type) {
        (Some(Sum::Int(v)), DataType::Decimal128(precision, scale)) => {
            ScalarValue::Decimal128(Some(v), *precision, *scale)
        }
        (Some(Sum::Int(v)), DataType::Int64) => ScalarValue::Int64(Some(v as i64)),
        (Some(Sum::Int(v)), DataType::UInt64) => ScalarValue::UInt64(Some(v as u64)),
        (Some(Sum::Int(v)), _) => ScalarValue::Float64(Some(v as f64)),
        (Some(Sum::Float(v)), _) => ScalarValue::Float64(Some(v)),
        (None, _) => {
            return Err(DataFusionError::Execution(format!("the sum overflows {data_type}")));
        }
    };
    value.cast_to(data_type)
}

/// A column's smallest or largest value as a state of type `data_type` (null over no values).
fn extreme(value: Option<&datafusion::arrow::array::ArrayRef>, data_type: &DataType) -> Result<ScalarValue> {
    match value {
        Some(array) => ScalarValue::try_from_array(array.as_ref(), 0)?.cast_to(data_type),
        None => ScalarValue::try_new_null(data_type),
    }
}

impl DisplayAs for LwcAggregateExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let table = self.files[0].schema();
        let names: Vec<String> = self
            .wanted
            .iter()
            .map(|w| {
                let name = |c: usize| table.field(c).name().clone();
                match *w {
                    Wanted::Rows => "count(*)".to_string(),
                    Wanted::Count(c) => format!("count({})", name(c)),
                    Wanted::Sum(c) => format!("sum({})", name(c)),
                    Wanted::Avg(c) => format!("avg({})", name(c)),
                    Wanted::Min(c) => format!("min({})", name(c)),
                    Wanted::Max(c) => format!("max({})", name(c)),
                }
            })
            .collect();
        write!(f, "LwcAggregateExec: aggregates=[{}]", names.join(", "))?;
        crate::exec::write_files_and_filter(f, self.files.len(), self.filter.as_ref())
    }
}

impl ExecutionPlan for LwcAggregateExec {
    fn name(&self) -> &'static str {
        "LwcAggregateExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue) // its filter and aggregates are lwc's own
    }

    fn with_new_children(self: Arc<Self>, _children: Vec<Arc<dyn ExecutionPlan>>) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(self)
    }

    fn execute(&self, partition: usize, _context: Arc<TaskContext>) -> Result<SendableRecordBatchStream> {
        if partition != 0 {
            return Err(DataFusionError::Internal(format!("LwcAggregateExec: partition {partition} of 1")));
        }
        // Computed when first polled, as a scan reads.
        let this = LwcAggregateExec::from_parts(
            self.files.clone(),
            self.filter.clone(),
            self.wanted.clone(),
            self.schema.clone(),
        );
        let batch = stream::once(async move { this.states() });
        Ok(Box::pin(RecordBatchStreamAdapter::new(self.schema.clone(), batch)))
    }
}
