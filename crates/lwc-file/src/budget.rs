//! Fitting a table to a memory budget: which objective each column is written with.
//!
//! Every integer-backed, string and binary column is encoded (in memory, in parallel) under each
//! objective of [`PLANNED_OBJECTIVES`] and under the access mix itself. Each way of storing it has its
//! exact bytes and its modeled read time: rows × (`scan` × scan ns + `get` × get ns) from the cost
//! model's price of each segment's chosen encoding (for strings, of their codes or end offsets: the
//! bytes themselves are read alike whatever the objective). [`lwc::fit_to_budget`] then picks one per
//! column so that the columns' bytes stay within the budget and the total time is least. Float and wide
//! decimal columns are stored one way only, so they just take their share of the budget. The budget
//! counts the columns' segment bytes (what `lwc inspect` lists as encoded), not the file's header,
//! footer and padding.
//!
//! The plan keeps the segments of every pick, so [`BudgetPlan::write_file`] writes them as they are:
//! nothing is encoded twice.

use std::collections::BTreeMap;
use std::fmt;

use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::SchemaRef;
use lwc::{AccessMix, BudgetOption, EncodeOptions, Objective};
use rayon::prelude::*;

use crate::encode::{encode_chunk, ChoiceChain, EncodedChunk};
use crate::error::{Error, Result};
use crate::info::FileSummary;
use crate::schema::{check_schema, Storage};
use crate::writer::{run_on, thread_pool, FileWriter, WriteOptions};

/// The named objectives each integer column is tried with, besides the access mix itself.
pub const PLANNED_OBJECTIVES: [Objective; 4] =
    [Objective::Size, Objective::Balanced, Objective::Scan, Objective::Random];

/// One way of storing a column, as measured by [`plan_budget`].
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedOption {
    /// The objective the column was encoded with.
    pub objective: Objective,
    /// Bytes of the column's segments encoded this way.
    pub bytes: u64,
    /// Modeled nanoseconds to read the column under the access mix.
    pub read_ns: f64,
}

/// The ways a column can be stored and the one picked.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnPlan {
    /// Column name.
    pub name: String,
    /// The distinct ways (by bytes and cost) of storing it, smallest first; one for float columns.
    pub options: Vec<PlannedOption>,
    /// Index of the pick in `options`.
    pub chosen: usize,
}

impl ColumnPlan {
    /// The option picked.
    pub fn pick(&self) -> &PlannedOption {
        &self.options[self.chosen]
    }
}

/// Which objective each column is written with so the table fits a memory budget, and the segments
/// encoded that way, ready to be written.
#[derive(Clone)]
pub struct BudgetPlan {
    /// The budget, bytes of column segments.
    pub budget: u64,
    /// The access mix read times are modeled for.
    pub mix: AccessMix,
    /// Per column, in schema order.
    pub columns: Vec<ColumnPlan>,
    schema: SchemaRef,
    rows: u64,
    options: WriteOptions,
    /// Per column, the picked option's segments, one per row group.
    picked: Vec<Vec<EncodedChunk>>,
}

impl fmt::Debug for BudgetPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BudgetPlan")
            .field("budget", &self.budget)
            .field("mix", &self.mix)
            .field("columns", &self.columns)
            .field("rows", &self.rows)
            .finish_non_exhaustive()
    }
}

impl BudgetPlan {
    /// Bytes of every column as picked (at most the budget).
    pub fn bytes(&self) -> u64 {
        self.columns.iter().map(|c| c.pick().bytes).sum()
    }

    /// Modeled read time of every column as picked, in nanoseconds.
    pub fn read_ns(&self) -> f64 {
        self.columns.iter().map(|c| c.pick().read_ns).sum()
    }

    /// The objectives to write with, for [`WriteOptions::column_objectives`]: the pick of every column
    /// that has a choice.
    pub fn column_objectives(&self) -> BTreeMap<String, Objective> {
        self.columns.iter().filter(|c| c.options.len() > 1).map(|c| (c.name.clone(), c.pick().objective)).collect()
    }

    /// Writes the table at `path` with the segments the plan measured (the same file
    /// [`crate::write_file`] writes with [`BudgetPlan::column_objectives`], without encoding again).
    pub fn write_file(self, path: impl AsRef<std::path::Path>) -> Result<FileSummary> {
        let options = self.write_options();
        let mut writer = FileWriter::create(path, self.schema, options)?;
        writer.write_encoded(self.rows, self.picked)?;
        writer.finish()
    }

    /// The file [`BudgetPlan::write_file`] writes, in memory.
    pub fn write_to_bytes(self) -> Result<lwc::AlignedBytes> {
        let options = self.write_options();
        crate::writer::encoded_to_bytes(self.schema, options, self.rows, self.picked)
    }

    /// The options the plan was made with, each column's objective set to its pick.
    fn write_options(&self) -> WriteOptions {
        WriteOptions { column_objectives: self.column_objectives(), ..self.options.clone() }
    }
}

impl fmt::Display for BudgetPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "memory budget {} bytes for scan={},get={}: columns take {} bytes, modeled read time {:.1} ms",
            self.budget,
            self.mix.scan,
            self.mix.get,
            self.bytes(),
            self.read_ns() / 1e6
        )?;
        for column in &self.columns {
            let each: Vec<String> = column
                .options
                .iter()
                .enumerate()
                .map(|(k, o)| {
                    let mark = if k == column.chosen { "*" } else { "" };
                    format!("{mark}{} {} B {:.2} ms", o.objective, o.bytes, o.read_ns / 1e6)
                })
                .collect();
            writeln!(f, "  {:<20} {}", column.name, each.join(" | "))?;
        }
        Ok(())
    }
}

/// Picks the objective of each column of `batches` so that the columns' bytes stay within `budget` and
/// the modeled time of reading them with `mix` is least; `options` are the write options to be used
/// (segment rows, threads; the cascade must be automatic).
///
/// Costs one encode of every integer and string column per objective tried (five), with the whole
/// table in memory.
/// Fails when even the smallest encoding of every column exceeds the budget.
pub fn plan_budget(
    schema: SchemaRef,
    batches: &[RecordBatch],
    budget: u64,
    mix: AccessMix,
    options: &WriteOptions,
) -> Result<BudgetPlan> {
    if options.encode.cascade.encoding() != lwc::Encoding::Auto {
        return Err(Error::InvalidArgument(format!(
            "a memory budget chooses encodings, but the cascade is fixed to {}",
            options.encode.cascade
        )));
    }
    let storage = check_schema(&schema)?;
    let objectives: Vec<Objective> =
        PLANNED_OBJECTIVES.iter().copied().chain(std::iter::once(Objective::Mix(mix))).collect();
    let columns: Vec<(usize, Objective)> = storage
        .iter()
        .enumerate()
        .flat_map(|(c, p)| match p {
            Storage::Plain(_) | Storage::LegacyBytes => vec![(c, options.encode.objective)],
            Storage::Values(_) | Storage::Bytes(_) => objectives.iter().map(|&o| (c, o)).collect::<Vec<_>>(),
        })
        .collect();
    let measure = || {
        // Each column is put together once, then encoded under every objective.
        let whole: Vec<ArrayRef> = (0..storage.len())
            .into_par_iter()
            .map(|c| whole_column(batches, c, schema.field(c).data_type()))
            .collect::<Result<Vec<_>>>()?;
        columns
            .par_iter()
            .map(|&(c, objective)| {
                measure_column(&whole[c], storage[c], objective, mix, &options.encode)
                    .map(|(bytes, read_ns, chunks)| (c, PlannedOption { objective, bytes, read_ns }, chunks))
                    .map_err(|e| e.located(schema.field(c).name(), None))
            })
            .collect::<Result<Vec<_>>>()
    };
    let measured = run_on(thread_pool(options.threads)?.as_ref(), measure)?;
    // Per column, each distinct way of storing it with its segments, smallest first.
    let mut ways: Vec<Vec<(PlannedOption, Vec<EncodedChunk>)>> = vec![Vec::new(); schema.fields().len()];
    for (c, option, chunks) in measured {
        let same = |(o, _): &(PlannedOption, _)| o.bytes == option.bytes && o.read_ns == option.read_ns;
        if !ways[c].iter().any(same) {
            ways[c].push((option, chunks));
        }
    }
    for way in &mut ways {
        way.sort_by(|(a, _), (b, _)| a.bytes.cmp(&b.bytes).then(a.read_ns.total_cmp(&b.read_ns)));
    }
    let knapsack: Vec<Vec<BudgetOption>> = ways
        .iter()
        .map(|w| w.iter().map(|(o, _)| BudgetOption { bytes: o.bytes, cost: o.read_ns }).collect())
        .collect();
    let picks = lwc::fit_to_budget(&knapsack, budget)?;
    let mut columns = Vec::with_capacity(ways.len());
    let mut picked = Vec::with_capacity(ways.len());
    for ((field, way), chosen) in schema.fields().iter().zip(ways).zip(picks) {
        let (options, mut chunks): (Vec<PlannedOption>, Vec<Vec<EncodedChunk>>) = way.into_iter().unzip();
        picked.push(chunks.swap_remove(chosen));
        columns.push(ColumnPlan { name: field.name().clone(), options, chosen });
    }
    let rows = batches.iter().map(|b| b.num_rows() as u64).sum();
    Ok(BudgetPlan { budget, mix, columns, schema, rows, options: options.clone(), picked })
}

/// Column `c` (of type `data_type`) of every batch as one array.
fn whole_column(batches: &[RecordBatch], c: usize, data_type: &arrow_schema::DataType) -> Result<ArrayRef> {
    match batches {
        [] => Ok(arrow_array::new_empty_array(data_type)),
        [one] => Ok(one.column(c).clone()),
        many => {
            let parts: Vec<&dyn arrow_array::Array> = many.iter().map(|b| b.column(c).as_ref()).collect();
            Ok(arrow_select::concat::concat(&parts)?)
        }
    }
}

/// Bytes, modeled read time and segments of one column encoded for `objective`, row group by row group
/// as the writer cuts it.
fn measure_column(
    array: &ArrayRef,
    storage: Storage,
    objective: Objective,
    mix: AccessMix,
    encode: &EncodeOptions,
) -> Result<(u64, f64, Vec<EncodedChunk>)> {
    let options = EncodeOptions { objective, ..encode.clone() };
    let (mut bytes, mut read_ns) = (0u64, 0.0f64);
    let rows = array.len();
    let mut chunks = Vec::with_capacity(rows.div_ceil(options.segment_rows.max(1)));
    let mut chain = ChoiceChain::new(&options);
    for (k, start) in (0..rows).step_by(options.segment_rows.max(1)).enumerate() {
        let slice = array.slice(start, options.segment_rows.min(rows - start));
        let chunk = encode_chunk(slice.as_ref(), storage, &options, chain.previous(k).as_ref())?;
        chain.written(k, chunk.choice.clone());
        bytes += chunk.stored().len() as u64;
        if let Some(costs) = chunk.read_costs {
            read_ns += slice.len() as f64 * (mix.scan * costs.scan_ns + mix.get * costs.get_ns);
        }
        chunks.push(chunk);
    }
    Ok((bytes, read_ns, chunks))
}
