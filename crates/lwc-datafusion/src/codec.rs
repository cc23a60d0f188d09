//! Physical plans with lwc nodes as bytes, through DataFusion's protobuf format (datafusion-proto), so a
//! distributed engine (Ballista) can plan on one machine and run the plan's parts on others.
//!
//! [`LwcCodec`] writes what each lwc node needs to be rebuilt: the files' paths (each machine opens
//! them itself, so they must be reachable there under the same paths), the projection, the filter, the
//! limit and each partition's row ranges, or an aggregate's functions and state schema. Dynamic filters
//! are not written: they are what a running join learned, and the plan above a scan applies them anyway.

use std::ops::Range;
use std::sync::Arc;

use datafusion::arrow::datatypes::Schema;
use datafusion::common::{DataFusionError, Result, ScalarValue};
use datafusion::execution::TaskContext;
use datafusion::physical_plan::ExecutionPlan;
use datafusion_proto::physical_plan::{PhysicalExtensionCodec, PhysicalProtoConverterExtension};
use datafusion_proto::protobuf;
use lwc_file::{CompareOp, Filter, Literal, LwcFile, Test};
use prost::Message;

use crate::aggregate::Wanted;
use crate::{LwcAggregateExec, LwcScanExec};

/// Encodes and decodes lwc's plan nodes ([`LwcScanExec`], [`LwcAggregateExec`]) for datafusion-proto:
///
/// ```
/// # use std::sync::Arc;
/// # use datafusion::arrow::array::{Int64Array, RecordBatch};
/// # use datafusion::prelude::SessionConfig;
/// use datafusion_proto::bytes::{physical_plan_from_bytes_with_extension_codec, physical_plan_to_bytes_with_extension_codec};
/// use lwc_datafusion::{LwcCodec, LwcTable};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> datafusion::error::Result<()> {
/// # let batch = RecordBatch::try_from_iter([("id", Arc::new(Int64Array::from_iter_values(0..1000)) as _)])?;
/// # let dir = tempfile::tempdir().unwrap();
/// # let path = dir.path().join("t.lwc");
/// # lwc_file::write_file(&path, batch.schema(), &[batch], lwc_file::WriteOptions::default()).unwrap();
/// let ctx = lwc_datafusion::session_context(SessionConfig::new());
/// ctx.register_table("t", Arc::new(LwcTable::open(&path)?))?;
/// let plan = ctx.sql("SELECT id FROM t WHERE id < 10").await?.create_physical_plan().await?;
/// let bytes = physical_plan_to_bytes_with_extension_codec(plan, &LwcCodec)?;
/// // On another machine with the same file at the same path:
/// let plan = physical_plan_from_bytes_with_extension_codec(&bytes, &ctx.task_ctx(), &LwcCodec)?;
/// let rows: usize = datafusion::physical_plan::collect(plan, ctx.task_ctx()).await?.iter().map(|b| b.num_rows()).sum();
/// assert_eq!(rows, 10);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Default, Clone, Copy)]
pub struct LwcCodec;

impl PhysicalExtensionCodec for LwcCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        _inputs: &[Arc<dyn ExecutionPlan>],
        _ctx: &TaskContext,
        _proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let node = NodeProto::decode(buf).map_err(|e| corrupt(format!("not an lwc plan node: {e}")))?;
        match (node.scan, node.aggregate) {
            (Some(scan), None) => Ok(Arc::new(decode_scan(scan)?)),
            (None, Some(aggregate)) => Ok(Arc::new(decode_aggregate(aggregate)?)),
            _ => Err(corrupt("an lwc plan node is a scan or an aggregate".into())),
        }
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        _proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        let proto = if let Some(scan) = node.downcast_ref::<LwcScanExec>() {
            NodeProto { scan: Some(encode_scan(scan)?), aggregate: None }
        } else if let Some(aggregate) = node.downcast_ref::<LwcAggregateExec>() {
            NodeProto { scan: None, aggregate: Some(encode_aggregate(aggregate)?) }
        } else {
            return Err(DataFusionError::NotImplemented(format!("LwcCodec cannot encode {}", node.name())));
        };
        proto.encode(buf).map_err(|e| DataFusionError::Internal(format!("encoding an lwc node: {e}")))
    }
}

fn corrupt(message: String) -> DataFusionError {
    DataFusionError::Plan(format!("lwc plan node: {message}"))
}

#[derive(Clone, PartialEq, prost::Message)]
struct NodeProto {
    #[prost(message, optional, tag = "1")]
    scan: Option<ScanProto>,
    #[prost(message, optional, tag = "2")]
    aggregate: Option<AggregateProto>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct ScanProto {
    #[prost(string, repeated, tag = "1")]
    paths: Vec<String>,
    #[prost(uint64, repeated, tag = "2")]
    projection: Vec<u64>,
    #[prost(message, optional, tag = "3")]
    filter: Option<FilterProto>,
    #[prost(uint64, optional, tag = "4")]
    limit: Option<u64>,
    #[prost(message, repeated, tag = "5")]
    partitions: Vec<PartitionProto>,
}

/// A partition's row ranges, as flat (file, start, end) triples.
#[derive(Clone, PartialEq, prost::Message)]
struct PartitionProto {
    #[prost(uint64, repeated, tag = "1")]
    ranges: Vec<u64>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct AggregateProto {
    #[prost(string, repeated, tag = "1")]
    paths: Vec<String>,
    #[prost(message, optional, tag = "2")]
    filter: Option<FilterProto>,
    /// Per aggregate: its kind (see [`wanted_kind`]) and column, two numbers each.
    #[prost(uint64, repeated, tag = "3")]
    wanted: Vec<u64>,
    #[prost(message, optional, tag = "4")]
    schema: Option<protobuf::Schema>,
}

/// A filter: a column's test, or `and`/`or` of filters, or `not` of one (`kind` says which).
#[derive(Clone, PartialEq, prost::Message)]
struct FilterProto {
    #[prost(uint32, tag = "1")]
    kind: u32,
    #[prost(string, tag = "2")]
    column: String,
    #[prost(message, optional, tag = "3")]
    test: Option<TestProto>,
    #[prost(message, repeated, tag = "4")]
    children: Vec<FilterProto>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct TestProto {
    #[prost(uint32, tag = "1")]
    kind: u32,
    #[prost(uint32, tag = "2")]
    op: u32,
    #[prost(message, repeated, tag = "3")]
    literals: Vec<protobuf::ScalarValue>,
    #[prost(bytes = "vec", tag = "4")]
    prefix: Vec<u8>,
}

const COMPARE_OPS: [CompareOp; 6] =
    [CompareOp::Eq, CompareOp::NotEq, CompareOp::Lt, CompareOp::LtEq, CompareOp::Gt, CompareOp::GtEq];

fn paths(files: &[Arc<LwcFile>]) -> Result<Vec<String>> {
    files
        .iter()
        .map(|f| match f.path().and_then(|p| p.to_str()) {
            Some(path) => Ok(path.to_string()),
            None => Err(DataFusionError::NotImplemented(
                "a plan over an lwc file held in memory (not opened from a path) cannot be encoded".into(),
            )),
        })
        .collect()
}

fn open(paths: &[String]) -> Result<Vec<Arc<LwcFile>>> {
    if paths.is_empty() {
        return Err(corrupt("no files".into()));
    }
    paths.iter().map(|p| LwcFile::open(p).map(Arc::new).map_err(crate::external)).collect()
}

fn encode_scan(scan: &LwcScanExec) -> Result<ScanProto> {
    let partitions = scan
        .partitions()
        .iter()
        .map(|ranges| PartitionProto {
            ranges: ranges.iter().flat_map(|(file, r)| [*file as u64, r.start, r.end]).collect(),
        })
        .collect();
    Ok(ScanProto {
        paths: paths(scan.files())?,
        projection: scan.projection().iter().map(|&c| c as u64).collect(),
        filter: scan.filter().map(encode_filter).transpose()?,
        limit: scan.limit().map(|l| l as u64),
        partitions,
    })
}

fn decode_scan(proto: ScanProto) -> Result<LwcScanExec> {
    let files = open(&proto.paths)?;
    let columns = files[0].schema().fields().len();
    let projection = proto
        .projection
        .iter()
        .map(|&c| (c < columns as u64).then_some(c as usize).ok_or_else(|| corrupt(format!("no column {c}"))))
        .collect::<Result<Vec<usize>>>()?;
    let partitions = proto
        .partitions
        .iter()
        .map(|p| {
            if !p.ranges.len().is_multiple_of(3) {
                return Err(corrupt("a row range is three numbers".into()));
            }
            p.ranges.chunks(3).map(|r| row_range(&files, r[0], r[1]..r[2])).collect::<Result<Vec<_>>>()
        })
        .collect::<Result<Vec<_>>>()?;
    if partitions.is_empty() {
        return Err(corrupt("a scan of no partition".into()));
    }
    let filter = proto.filter.map(decode_filter).transpose()?;
    let limit = proto.limit.map(|l| usize::try_from(l).unwrap_or(usize::MAX));
    LwcScanExec::with_partitions(files, Some(projection), filter, limit, partitions)
}

/// Rows `rows` of file `file`, checked against the files.
fn row_range(files: &[Arc<LwcFile>], file: u64, rows: Range<u64>) -> Result<(usize, Range<u64>)> {
    let f = files.get(file as usize).ok_or_else(|| corrupt(format!("no file {file}")))?;
    if rows.start > rows.end || rows.end > f.num_rows() {
        return Err(corrupt(format!("rows {rows:?} of a file of {} rows", f.num_rows())));
    }
    Ok((file as usize, rows))
}

/// The number a kind of aggregate is written as.
fn wanted_kind(w: Wanted) -> (u64, u64) {
    match w {
        Wanted::Rows => (0, 0),
        Wanted::Count(c) => (1, c as u64),
        Wanted::Sum(c) => (2, c as u64),
        Wanted::Avg(c) => (3, c as u64),
        Wanted::Min(c) => (4, c as u64),
        Wanted::Max(c) => (5, c as u64),
    }
}

fn encode_aggregate(aggregate: &LwcAggregateExec) -> Result<AggregateProto> {
    let (files, filter, wanted, schema) = aggregate.parts();
    Ok(AggregateProto {
        paths: paths(files)?,
        filter: filter.map(encode_filter).transpose()?,
        wanted: wanted.iter().flat_map(|&w| <[u64; 2]>::from(wanted_kind(w))).collect(),
        schema: Some(protobuf::Schema::try_from(schema.as_ref())?),
    })
}

fn decode_aggregate(proto: AggregateProto) -> Result<LwcAggregateExec> {
    let files = open(&proto.paths)?;
    let columns = files[0].schema().fields().len() as u64;
    if !proto.wanted.len().is_multiple_of(2) {
        return Err(corrupt("an aggregate is two numbers".into()));
    }
    let wanted = proto
        .wanted
        .chunks(2)
        .map(|w| {
            let (kind, c) = (w[0], w[1]);
            if c >= columns {
                return Err(corrupt(format!("no column {c}")));
            }
            let c = c as usize;
            Ok(match kind {
                0 => Wanted::Rows,
                1 => Wanted::Count(c),
                2 => Wanted::Sum(c),
                3 => Wanted::Avg(c),
                4 => Wanted::Min(c),
                5 => Wanted::Max(c),
                k => return Err(corrupt(format!("no aggregate of kind {k}"))),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let schema = proto.schema.as_ref().ok_or_else(|| corrupt("no state schema".into()))?;
    let schema = Arc::new(Schema::try_from(schema)?);
    let states: usize = wanted.iter().map(|w| if matches!(w, Wanted::Avg(_)) { 2 } else { 1 }).sum();
    if schema.fields().len() != states {
        return Err(corrupt(format!("{states} states in a schema of {} fields", schema.fields().len())));
    }
    let filter = proto.filter.map(decode_filter).transpose()?;
    Ok(LwcAggregateExec::from_parts(files, filter, wanted, schema))
}

fn encode_filter(filter: &Filter) -> Result<FilterProto> {
    let node = |kind, children: &[Filter]| -> Result<FilterProto> {
        let children = children.iter().map(encode_filter).collect::<Result<_>>()?;
        Ok(FilterProto { kind, column: String::new(), test: None, children })
    };
    match filter {
        Filter::Column { column, test } => {
            Ok(FilterProto { kind: 0, column: column.clone(), test: Some(encode_test(test)?), children: vec![] })
        }
        Filter::And(children) => node(1, children),
        Filter::Or(children) => node(2, children),
        Filter::Not(child) => node(3, std::slice::from_ref(child)),
    }
}

fn decode_filter(proto: FilterProto) -> Result<Filter> {
    let mut children = proto.children.into_iter().map(decode_filter).collect::<Result<Vec<_>>>()?;
    match proto.kind {
        0 => Ok(Filter::column(proto.column, decode_test(proto.test.ok_or_else(|| corrupt("no test".into()))?)?)),
        1 => Ok(Filter::And(children)),
        2 => Ok(Filter::Or(children)),
        3 if children.len() == 1 => Ok(Filter::Not(Box::new(children.remove(0)))),
        k => Err(corrupt(format!("no filter of kind {k} with {} children", children.len()))),
    }
}

fn encode_test(test: &Test) -> Result<TestProto> {
    let literal = |l: &Literal| -> Result<protobuf::ScalarValue> {
        Ok(protobuf::ScalarValue::try_from(&ScalarValue::try_from_array(l.array().as_ref(), 0)?)?)
    };
    let proto = |kind, op, literals: Vec<protobuf::ScalarValue>, prefix: &[u8]| TestProto {
        kind,
        op,
        literals,
        prefix: prefix.to_vec(),
    };
    Ok(match test {
        Test::Compare(op, l) => {
            let op = COMPARE_OPS.iter().position(|o| o == op).expect("every operator listed") as u32;
            proto(0, op, vec![literal(l)?], &[])
        }
        Test::Between(lo, hi) => proto(1, 0, vec![literal(lo)?, literal(hi)?], &[]),
        Test::In(values) => proto(2, 0, values.iter().map(literal).collect::<Result<_>>()?, &[]),
        Test::IsNull => proto(3, 0, vec![], &[]),
        Test::IsNotNull => proto(4, 0, vec![], &[]),
        Test::StartsWith(prefix) => proto(5, 0, vec![], prefix),
    })
}

fn decode_test(proto: TestProto) -> Result<Test> {
    let mut literals = proto
        .literals
        .iter()
        .map(|l| {
            let value = ScalarValue::try_from(l).map_err(|e| corrupt(format!("a literal: {e}")))?;
            Literal::new(value.to_array()?).map_err(crate::external)
        })
        .collect::<Result<Vec<Literal>>>()?;
    let count = literals.len();
    Ok(match (proto.kind, count) {
        (0, 1) => {
            let op = COMPARE_OPS.get(proto.op as usize).ok_or_else(|| corrupt(format!("no operator {}", proto.op)))?;
            Test::Compare(*op, literals.remove(0))
        }
        (1, 2) => {
            let hi = literals.remove(1);
            Test::Between(literals.remove(0), hi)
        }
        (2, _) => Test::In(literals),
        (3, 0) => Test::IsNull,
        (4, 0) => Test::IsNotNull,
        (5, 0) => Test::StartsWith(proto.prefix),
        (k, n) => return Err(corrupt(format!("no test of kind {k} with {n} literals"))),
    })
}
