//! Scans: the rows of a file that pass a [`Filter`], as Arrow record batches of the columns asked for, and
//! aggregates of a column over them. Work goes row group by row group (the rows one segment of each
//! column read covers): the footer's zone maps settle a row group when they can (no row passes: skipped
//! unread; every row does: kept without evaluating), the filter runs on the encoded segments of its
//! columns otherwise, and only the selected rows of the other columns are taken. Segments open when a
//! row group needs them, row groups run in parallel.
//!
//! ```
//! # use std::sync::Arc;
//! # use arrow_array::{Float64Array, Int32Array, RecordBatch, StringArray};
//! # use arrow_schema::{DataType, Field, Schema};
//! use lwc_file::{CompareOp, Filter, LwcFile, ScanOptions};
//! # let schema = Arc::new(Schema::new(vec![
//! #     Field::new("id", DataType::Int32, false),
//! #     Field::new("kind", DataType::Utf8, false),
//! #     Field::new("price", DataType::Float64, false),
//! # ]));
//! # let n = 200_000;
//! # let batch = RecordBatch::try_new(schema.clone(), vec![
//! #     Arc::new(Int32Array::from_iter_values(0..n)),
//! #     Arc::new(StringArray::from_iter_values((0..n).map(|i| ["PROMO BRUSHED", "STANDARD", "ECONOMY"][i as usize % 3]))),
//! #     Arc::new(Float64Array::from_iter_values((0..n).map(|i| (i % 1000) as f64 + 0.5))),
//! # ])?;
//! # let file = LwcFile::from_bytes(lwc_file::write_to_bytes(schema, &[batch], Default::default())?)?;
//! let filter = Filter::starts_with("kind", "PROMO").and(Filter::compare("price", CompareOp::Lt, 10.0));
//! let options = ScanOptions::default().with_columns(&file, &["id", "price"])?.with_filter(filter);
//! let mut scan = file.scan(options)?;
//! let rows: usize = scan.by_ref().map(|batch| batch.map(|b| b.num_rows())).sum::<Result<_, _>>()?;
//! assert_eq!(rows, (0..200_000).filter(|i| i % 3 == 0 && i % 1000 < 10).count());
//!
//! // Row groups where no id reaches 150,000 are skipped by their zone maps, unread.
//! let late = file.scan(ScanOptions::default().with_filter(Filter::compare("id", CompareOp::GtEq, 150_000)))?;
//! let stats = late.count_rows()?;
//! assert_eq!(stats.rows_selected, 50_000);
//! assert!(stats.pruned >= 2);
//! # Ok::<(), lwc_file::Error>(())
//! ```

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Arc;

use arrow_array::{new_empty_array, Array, ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::{DataType, SchemaRef};
use lwc::strings::BytesAggregates;
use lwc::{Aggregates, Bitmap, Selection, Value};
use rayon::prelude::*;

use crate::chunk::bytes_array;
use crate::decode::{
    decode_chunk, decode_selected_chunk, open_bytes_segment, open_value_segment, take_chunk, values_to_arrow,
};
use crate::error::{Error, Result};
use crate::filter::plan::{bytes_of, key_of, Plan, Rows};
use crate::filter::Filter;
use crate::reader::LwcFile;
use crate::schema::Storage;

/// Rows per batch a scan returns unless told otherwise.
pub const DEFAULT_BATCH_ROWS: usize = 8192;

/// What to scan.
#[derive(Debug, Clone, PartialEq)]
pub struct ScanOptions {
    /// The columns to return, by index, in this order (`None`: all). An empty list returns batches with
    /// no columns that still count their rows.
    pub projection: Option<Vec<usize>>,
    /// Only rows that pass (`None`: all rows).
    pub filter: Option<Filter>,
    /// Rows per batch: every batch but the last holds exactly this many.
    pub batch_rows: usize,
    /// Stop after this many rows.
    pub limit: Option<u64>,
    /// Only these rows of the table (`None`: all), for splitting a scan into parts.
    pub rows: Option<Range<u64>>,
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions { projection: None, filter: None, batch_rows: DEFAULT_BATCH_ROWS, limit: None, rows: None }
    }
}

impl ScanOptions {
    /// Returns the named columns, in this order.
    pub fn with_columns(mut self, file: &LwcFile, names: &[&str]) -> Result<Self> {
        self.projection = Some(names.iter().map(|n| file.column_index(n)).collect::<Result<_>>()?);
        Ok(self)
    }

    /// Returns the columns at these indices, in this order.
    pub fn with_projection(mut self, columns: Vec<usize>) -> Self {
        self.projection = Some(columns);
        self
    }

    /// Keeps only the rows that pass `filter`.
    pub fn with_filter(mut self, filter: Filter) -> Self {
        self.filter = Some(filter);
        self
    }

    /// Rows per batch.
    pub fn with_batch_rows(mut self, rows: usize) -> Self {
        self.batch_rows = rows;
        self
    }

    /// Stops after `rows` rows.
    pub fn with_limit(mut self, rows: u64) -> Self {
        self.limit = Some(rows);
        self
    }

    /// Scans only these rows of the table.
    pub fn with_rows(mut self, rows: Range<u64>) -> Self {
        self.rows = Some(rows);
        self
    }
}

/// What a scan did, so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScanStats {
    /// Row groups looked at.
    pub row_groups: usize,
    /// Row groups the zone maps showed no row of passes: skipped unread.
    pub pruned: usize,
    /// Row groups the zone maps showed every row of passes: kept without evaluating the filter.
    pub kept_whole: usize,
    /// Row groups the filter was evaluated on.
    pub filtered: usize,
    /// Rows in the row groups looked at.
    pub rows_scanned: u64,
    /// Rows that passed.
    pub rows_selected: u64,
}

impl ScanStats {
    fn add(&mut self, group: &GroupResult) {
        self.row_groups += 1;
        self.rows_scanned += group.len as u64;
        self.rows_selected += group.rows.count(group.len) as u64;
        match group.settled {
            Some(Rows::None) => self.pruned += 1,
            Some(Rows::All) => self.kept_whole += 1,
            _ => self.filtered += 1,
        }
    }
}

/// A sum over a column: exact for integer-backed columns (in stored units: a decimal's unscaled value, a
/// date's days), compensated for floats.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Sum {
    /// The sum of stored integers.
    Int(i128),
    /// The sum of floats.
    Float(f64),
}

/// How many rows a filter passes, as [`LwcFile::estimate_rows`] estimates it for a query planner.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowEstimate {
    /// The rows estimated to pass.
    pub rows: u64,
    /// Whether `rows` is the count itself: the zone maps settled every row group, or the filter ran on
    /// every one they left open.
    pub exact: bool,
}

/// Count, sum, min and max of one column over the rows a filter selects, computed on the encoded
/// segments.
#[derive(Debug, Clone)]
pub struct ColumnAggregates {
    /// Rows selected, nulls included.
    pub rows: u64,
    /// Non-null rows among them.
    pub count: u64,
    /// Their sum (`None` for strings and binaries, and where a wide decimal's sum overflows).
    pub sum: Option<Sum>,
    /// The smallest value, as a one-row array of the column's type (`None` when `count` is 0).
    pub min: Option<ArrayRef>,
    /// The largest value, like `min`.
    pub max: Option<ArrayRef>,
    /// What the scan behind it did.
    pub stats: ScanStats,
}

/// The rows of one row group a filter selects, and whether zone maps settled it.
#[derive(Clone)]
struct GroupResult {
    len: usize,
    rows: Rows,
    settled: Option<Rows>,
}

/// The row groups of `rows` for the columns in `columns`: every place one of them starts a segment cuts.
fn row_groups(file: &LwcFile, columns: &[usize], rows: Range<u64>) -> Vec<Range<u64>> {
    let mut cuts: Vec<u64> = vec![rows.start, rows.end];
    let columns: Vec<usize> = match columns {
        [] if file.columns().is_empty() => vec![],
        [] => vec![0],
        c => c.to_vec(),
    };
    for &c in &columns {
        cuts.extend(file.starts[c].iter().copied().filter(|&s| rows.start < s && s < rows.end));
    }
    cuts.sort_unstable();
    cuts.dedup();
    cuts.windows(2).map(|w| w[0]..w[1]).collect()
}

impl LwcFile {
    /// Checks a column index.
    pub(crate) fn column_in_range(&self, column: usize) -> Result<()> {
        if column >= self.columns().len() {
            return Err(Error::ColumnOutOfRange { index: column, columns: self.columns().len() });
        }
        Ok(())
    }

    /// The segment of `column` holding `group` and the group's rows within it.
    fn local(&self, column: usize, group: &Range<u64>) -> (usize, Range<usize>) {
        let s = self.locate(column, group.start);
        let start = self.starts[column][s];
        (s, (group.start - start) as usize..(group.end - start) as usize)
    }

    /// Which rows of `group` pass `plan`.
    fn select(&self, plan: Option<&Plan>, group: &Range<u64>) -> Result<GroupResult> {
        self.select_or_defer(plan, group, false)
    }

    /// [`LwcFile::select`], or with `defer` the zone maps' verdict alone: a group they cannot settle comes
    /// back as every row, unsettled, for a caller that filters and aggregates it in one pass.
    fn select_or_defer(&self, plan: Option<&Plan>, group: &Range<u64>, defer: bool) -> Result<GroupResult> {
        let len = (group.end - group.start) as usize;
        let Some(plan) = plan else { return Ok(GroupResult { len, rows: Rows::All, settled: Some(Rows::All) }) };
        let infos = self.columns();
        let segment = |c: usize| &infos[c].segments[self.locate(c, group.start)];
        let settled = match plan.zone_verdict(infos, &segment) {
            lwc::ZoneVerdict::NoRow => Some(Rows::None),
            lwc::ZoneVerdict::EveryRow => Some(Rows::All),
            lwc::ZoneVerdict::SomeRows => None,
        };
        if let Some(rows) = settled.clone() {
            return Ok(GroupResult { len, rows, settled });
        }
        if defer {
            return Ok(GroupResult { len, rows: Rows::All, settled });
        }
        let rows = plan.evaluate(infos, &segment, &|condition| {
            let (s, range) = self.local(condition.column, group);
            let storage = infos[condition.column].storage;
            let data_type = &infos[condition.column].data_type;
            self.with_chunk(condition.column, s, |chunk| condition.evaluate(chunk, data_type, storage, range))
        })?;
        Ok(GroupResult { len, rows, settled })
    }

    /// The selected rows of `group` in one column.
    fn read_selected(&self, column: usize, group: &Range<u64>, rows: &Rows) -> Result<ArrayRef> {
        let info = &self.columns()[column];
        let (s, range) = self.local(column, group);
        self.with_chunk(column, s, |chunk| match rows {
            Rows::None => Ok(new_empty_array(&info.data_type)),
            Rows::All => decode_chunk(chunk, &info.data_type, info.storage, range),
            // Dense: decode the stretch and drop rows; sparse: gather only the rows wanted.
            Rows::Some(bits) if bits.count_ones() * 4 >= bits.len() => {
                decode_selected_chunk(chunk, &info.data_type, info.storage, range, bits)
            }
            Rows::Some(bits) => {
                let positions: Vec<u32> = bits.ones().map(|p| (p + range.start) as u32).collect();
                take_chunk(chunk, &info.data_type, info.storage, &positions)
            }
        })
    }

    /// Scans the file: the rows that pass the filter, in row order, as record batches of the columns
    /// asked for. Errors in the options (an unknown column, a literal that is no value of its column's
    /// type) come back here; errors reading segments (a damaged file) from the iterator.
    pub fn scan(&self, options: ScanOptions) -> Result<Scan<'_>> {
        let projection = options.projection.clone().unwrap_or_else(|| (0..self.columns().len()).collect());
        for &c in &projection {
            self.column_in_range(c)?;
        }
        if options.batch_rows == 0 {
            return Err(Error::InvalidArgument("batch_rows must be at least 1".into()));
        }
        let rows = options.rows.clone().unwrap_or(0..self.num_rows());
        if rows.start > rows.end || rows.end > self.num_rows() {
            return Err(Error::RowOutOfRange { row: rows.end.max(rows.start), rows: self.num_rows() });
        }
        let plan = options.filter.as_ref().map(|f| Plan::new(f, self.columns())).transpose()?;
        let mut involved = projection.clone();
        if let Some(p) = &plan {
            p.columns(&mut involved);
        }
        let schema = Arc::new(self.schema().project(&projection)?);
        Ok(Scan {
            file: self,
            groups: row_groups(self, &involved, rows).into(),
            plan,
            projection,
            schema,
            batch_rows: options.batch_rows,
            remaining: options.limit.unwrap_or(u64::MAX),
            pending: VecDeque::new(),
            pending_rows: 0,
            stats: ScanStats::default(),
            failed: false,
        })
    }

    /// How many rows pass `filter`, estimated cheaply for a query planner: the zone maps settle the row
    /// groups they can (none or every row passes) without reading them, the filter runs on at most `sample`
    /// of the groups they leave open, spread evenly over the file, and the other open groups are taken to
    /// pass the same share of their rows. With `sample` at least the number of row groups it counts exactly.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use arrow_array::{Int64Array, RecordBatch};
    /// use lwc_file::{Filter, LwcFile, WriteOptions};
    /// let batch = RecordBatch::try_from_iter([("x", Arc::new(Int64Array::from_iter_values(0..100_000)) as _)])?;
    /// let bytes = lwc_file::write_to_bytes(batch.schema(), &[batch], WriteOptions::default())?;
    /// let file = LwcFile::from_bytes(bytes)?;
    /// let estimate = file.estimate_rows(&Filter::parse("x", "< 1000")?, 4)?;
    /// assert_eq!((estimate.rows, estimate.exact), (1000, true));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn estimate_rows(&self, filter: &Filter, sample: usize) -> Result<RowEstimate> {
        let plan = Plan::new(filter, self.columns())?;
        let mut involved = Vec::new();
        plan.columns(&mut involved);
        let mut settled = 0;
        let mut open = Vec::new();
        for group in row_groups(self, &involved, 0..self.num_rows()) {
            match self.select_or_defer(Some(&plan), &group, true)? {
                GroupResult { settled: Some(rows), len, .. } => settled += rows.count(len) as u64,
                GroupResult { settled: None, .. } => open.push(group),
            }
        }
        let picked: Vec<&Range<u64>> = match open.len() <= sample {
            true => open.iter().collect(),
            false => (0..sample).map(|k| &open[k * open.len() / sample]).collect(),
        };
        let (mut passed, mut seen) = (0u64, 0u64);
        for group in &picked {
            let result = self.select(Some(&plan), group)?;
            passed += result.rows.count(result.len) as u64;
            seen += result.len as u64;
        }
        let open_rows: u64 = open.iter().map(|g| g.end - g.start).sum();
        let unseen = match seen {
            0 => 0,
            _ => ((open_rows - seen) as f64 * passed as f64 / seen as f64).round() as u64,
        };
        Ok(RowEstimate { rows: settled + passed + unseen, exact: picked.len() == open.len() })
    }

    /// Count, sum, min and max of `column` over the rows that pass `filter` (all rows without one),
    /// computed on the encoded segments where there are some.
    pub fn aggregate(&self, column: usize, filter: Option<&Filter>) -> Result<ColumnAggregates> {
        Ok(self.aggregate_columns(&[column], filter)?.remove(0))
    }

    /// [`LwcFile::aggregate`] of each of `columns`, in order, with the filter evaluated once for all of
    /// them.
    pub fn aggregate_columns(&self, columns: &[usize], filter: Option<&Filter>) -> Result<Vec<ColumnAggregates>> {
        for &c in columns {
            self.column_in_range(c)?;
        }
        let plan = filter.map(|f| Plan::new(f, self.columns())).transpose()?;
        let mut involved = columns.to_vec();
        if let Some(p) = &plan {
            p.columns(&mut involved);
        }
        let groups = row_groups(self, &involved, 0..self.num_rows());
        if let [column] = columns {
            let select = |group: &Range<u64>| self.select(plan.as_ref(), group);
            return Ok(vec![self.aggregate_groups(*column, plan.as_ref(), &groups, &select, true)?]);
        }
        let selections =
            groups.par_iter().map(|group| self.select(plan.as_ref(), group)).collect::<Result<Vec<GroupResult>>>()?;
        let select = |group: &Range<u64>| Ok(selections[groups.partition_point(|g| g.start < group.start)].clone());
        columns.iter().map(|&c| self.aggregate_groups(c, plan.as_ref(), &groups, &select, false)).collect()
    }

    /// The aggregates of `column` over `groups`, each group's rows selected by `selected`. With
    /// `own_test`, a float column filtered by a test of its own values filters and aggregates in one pass.
    fn aggregate_groups(
        &self,
        column: usize,
        plan: Option<&Plan>,
        groups: &[Range<u64>],
        selected: &(dyn Fn(&Range<u64>) -> Result<GroupResult> + Sync),
        own_test: bool,
    ) -> Result<ColumnAggregates> {
        let info = &self.columns()[column];
        let (stats, mut out) = match info.storage {
            Storage::Values(t) => value_dispatch!(t, T => {
                // A float column filtered by a test of its own values: the zone maps settle what they can,
                // and each other segment filters and aggregates in one pass (`Segment::filter_aggregate`).
                let own = plan.and_then(|p| p.own_values_test::<T>(column)).filter(|_| own_test && T::TYPE.is_float());
                let select = |group: &Range<u64>| match own {
                    Some(_) => self.select_or_defer(plan, group, true),
                    None => selected(group),
                };
                let (mut stats, a) = self.fold_groups(groups, select, Aggregates::<T>::empty(), Aggregates::merge, |group, rows| {
                    let (s, range) = self.local(column, group);
                    self.with_chunk(column, s, |chunk| {
                        let segment = open_value_segment::<T>(chunk)?;
                        match &own {
                            // Deferred groups, and groups the zone maps kept whole, for which the one
                            // pass gives the same answer (their verdict left no null row in doubt).
                            Some(test) if matches!(rows, Rows::All) && range == (0..chunk.rows) => {
                                Ok(segment.filter_aggregate(test))
                            }
                            _ => segment.aggregate(in_segment(rows, range, chunk.rows).as_ref()).map_err(|e| chunk.core_error(e)),
                        }
                    })
                })?;
                if own.is_some() {
                    // Deferred groups counted every row as selected; the aggregates know how many passed.
                    stats.rows_selected = a.count + a.null_count;
                }
                let one = |v: Option<T>| v.map(|v| values_to_arrow::<T>(&info.data_type, vec![v], None)).transpose();
                (stats, ColumnAggregates { rows: a.count + a.null_count, count: a.count, sum: Some(Sum::from(a.sum)), min: one(a.min)?, max: one(a.max)?, stats })
            }),
            Storage::Bytes(_) => {
                let (stats, a) = self.fold_groups(
                    groups,
                    selected,
                    BytesAggregates::empty(),
                    BytesAggregates::merge,
                    |group, rows| {
                        let (s, range) = self.local(column, group);
                        self.with_chunk(column, s, |chunk| {
                            let segment = open_bytes_segment(chunk)?;
                            segment
                                .aggregate(in_segment(rows, range, chunk.rows).as_ref())
                                .map_err(|e| chunk.core_error(e))
                        })
                    },
                )?;
                let one = |v: Option<Vec<u8>>| {
                    v.map(|v| bytes_array(&info.data_type, vec![0, v.len() as u64], v, None)).transpose()
                };
                (
                    stats,
                    ColumnAggregates {
                        rows: a.count + a.null_count,
                        count: a.count,
                        sum: None,
                        min: one(a.min)?,
                        max: one(a.max)?,
                        stats,
                    },
                )
            }
            Storage::Plain(_) | Storage::LegacyBytes => {
                let (stats, parts) = self.fold_groups(
                    groups,
                    selected,
                    Vec::new(),
                    |mut a, b| {
                        a.extend(b);
                        a
                    },
                    |group, rows| Ok(vec![self.read_selected(column, group, rows)?]),
                )?;
                let refs: Vec<&dyn Array> = parts.iter().map(|a| a.as_ref()).collect();
                let all = if refs.is_empty() {
                    new_empty_array(&info.data_type)
                } else {
                    arrow_select::concat::concat(&refs)?
                };
                (stats, decoded_aggregates(&all))
            }
        };
        out.stats = stats;
        Ok(out)
    }

    /// Folds `per_group` over the selected rows of each row group (in parallel, merged in row order).
    fn fold_groups<A: Send>(
        &self,
        groups: &[Range<u64>],
        select: impl Fn(&Range<u64>) -> Result<GroupResult> + Sync,
        empty: A,
        merge: impl Fn(A, A) -> A + Sync,
        per_group: impl Fn(&Range<u64>, &Rows) -> Result<A> + Sync,
    ) -> Result<(ScanStats, A)> {
        let parts = groups
            .par_iter()
            .map(|group| {
                let selected = select(group)?;
                let part = match selected.rows {
                    Rows::None => None,
                    ref rows => Some(per_group(group, rows)?),
                };
                Ok((selected, part))
            })
            .collect::<Result<Vec<_>>>()?;
        let mut stats = ScanStats::default();
        let mut acc = empty;
        for (selected, part) in parts {
            stats.add(&selected);
            if let Some(part) = part {
                acc = merge(acc, part);
            }
        }
        Ok((stats, acc))
    }
}

/// The rows of a segment of `rows` rows a row group's selection covers (`None`: the whole segment).
fn in_segment(selected: &Rows, range: Range<usize>, rows: usize) -> Option<Selection> {
    let whole = range == (0..rows);
    match selected {
        Rows::All if whole => None,
        Rows::Some(bits) if whole => Some(Selection::from_bitmap(bits.clone())),
        Rows::None => Some(Selection::Positions(Vec::new())),
        Rows::All => {
            let mut bits = Bitmap::new_clear(rows);
            bits.set_range(range);
            Some(Selection::from_bitmap(bits))
        }
        Rows::Some(bits) => Some(Selection::Positions(bits.ones().map(|p| (p + range.start) as u32).collect())),
    }
}

impl From<i128> for Sum {
    fn from(sum: i128) -> Sum {
        Sum::Int(sum)
    }
}

impl From<f64> for Sum {
    fn from(sum: f64) -> Sum {
        Sum::Float(sum)
    }
}

/// Aggregates of a decoded array (plain and version 1 columns).
fn decoded_aggregates(array: &ArrayRef) -> ColumnAggregates {
    let n = array.len();
    let count = (n - array.null_count()) as u64;
    let one = |i: Option<usize>| i.map(|i| array.slice(i, 1));
    let (min, max, sum) =
        if matches!(array.data_type(), DataType::Utf8 | DataType::LargeUtf8 | DataType::Binary | DataType::LargeBinary)
        {
            let values = (0..n).filter_map(|i| bytes_of(array, i).map(|b| (b, i)));
            let min = values.clone().min().map(|(_, i)| i);
            let max = values.max().map(|(_, i)| i);
            (min, max, None)
        } else {
            let keys = (0..n).filter_map(|i| key_of(array, i).map(|k| (k, i)));
            let min = keys.clone().min().map(|(_, i)| i);
            let max = keys.max().map(|(_, i)| i);
            let sum = match array.data_type() {
                DataType::Decimal128(..) => {
                    let wide = array.as_any().downcast_ref::<arrow_array::Decimal128Array>().expect("decimal");
                    wide.iter().flatten().try_fold(0i128, |a, v| a.checked_add(v)).map(Sum::Int)
                }
                _ => {
                    let floats = arrow_cast::cast(array, &DataType::Float64).ok();
                    floats.map(|f| {
                        let f = f
                            .as_any()
                            .downcast_ref::<arrow_array::Float64Array>()
                            .expect("cast to f64")
                            .iter()
                            .flatten()
                            .collect::<Vec<_>>();
                        Sum::Float(f64::sum(&f))
                    })
                }
            };
            (min, max, sum)
        };
    ColumnAggregates { rows: n as u64, count, sum, min: one(min), max: one(max), stats: ScanStats::default() }
}

/// A running scan: an iterator of record batches (see [`LwcFile::scan`]).
pub struct Scan<'a> {
    file: &'a LwcFile,
    plan: Option<Plan>,
    projection: Vec<usize>,
    schema: SchemaRef,
    groups: VecDeque<Range<u64>>,
    batch_rows: usize,
    remaining: u64,
    pending: VecDeque<RecordBatch>,
    pending_rows: usize,
    stats: ScanStats,
    failed: bool,
}

impl Scan<'_> {
    /// The schema of the batches: the projected columns.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// What the scan did so far.
    pub fn stats(&self) -> ScanStats {
        self.stats
    }

    /// Runs the scan to the end, counting rows without keeping them.
    pub fn count_rows(mut self) -> Result<ScanStats> {
        for batch in self.by_ref() {
            batch?;
        }
        Ok(self.stats)
    }

    /// Reads the next few row groups (as many as there are threads), in parallel, into `pending`.
    fn fill(&mut self) -> Result<()> {
        let take = rayon::current_num_threads().clamp(1, self.groups.len());
        let window: Vec<Range<u64>> = self.groups.drain(..take).collect();
        let (file, plan, projection, schema) = (self.file, self.plan.as_ref(), &self.projection, &self.schema);
        let results = window
            .par_iter()
            .map(|group| {
                let selected = file.select(plan, group)?;
                let count = selected.rows.count(selected.len);
                let batch = match selected.rows {
                    Rows::None => None,
                    ref rows => {
                        let columns = projection
                            .iter()
                            .map(|&c| file.read_selected(c, group, rows))
                            .collect::<Result<Vec<_>>>()?;
                        let options = RecordBatchOptions::new().with_row_count(Some(count));
                        Some(RecordBatch::try_new_with_options(schema.clone(), columns, &options)?)
                    }
                };
                Ok((selected, batch))
            })
            .collect::<Result<Vec<_>>>()?;
        for (selected, batch) in results {
            self.stats.add(&selected);
            if let Some(batch) = batch {
                self.pending_rows += batch.num_rows();
                self.pending.push_back(batch);
            }
        }
        Ok(())
    }

    /// Up to `rows` pending rows as one batch.
    fn take_pending(&mut self, rows: usize) -> Result<RecordBatch> {
        let mut parts = Vec::new();
        let mut have = 0;
        while have < rows {
            let Some(batch) = self.pending.pop_front() else { break };
            let want = rows - have;
            if batch.num_rows() > want {
                self.pending.push_front(batch.slice(want, batch.num_rows() - want));
                parts.push(batch.slice(0, want));
                have += want;
            } else {
                have += batch.num_rows();
                parts.push(batch);
            }
        }
        self.pending_rows -= have;
        match parts.len() {
            1 => Ok(parts.pop().expect("one part")),
            _ if self.schema.fields().is_empty() => Ok(RecordBatch::try_new_with_options(
                self.schema.clone(),
                vec![],
                &RecordBatchOptions::new().with_row_count(Some(have)),
            )?),
            _ => Ok(arrow_select::concat::concat_batches(&self.schema, &parts)?),
        }
    }
}

impl Iterator for Scan<'_> {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.remaining == 0 {
            return None;
        }
        while self.pending_rows < self.batch_rows
            && (self.pending_rows as u64) < self.remaining
            && !self.groups.is_empty()
        {
            if let Err(e) = self.fill() {
                self.failed = true;
                return Some(Err(e));
            }
        }
        if self.pending_rows == 0 {
            return None;
        }
        let rows = self.batch_rows.min(self.pending_rows).min(self.remaining.min(usize::MAX as u64) as usize);
        self.remaining -= rows as u64;
        Some(self.take_pending(rows))
    }
}
