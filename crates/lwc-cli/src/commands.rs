//! The file commands: compress, inspect, explain, decompress, get, scan.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use arrow::array::{ArrayRef, RecordBatch, UInt64Array};
use arrow::datatypes::{DataType, Field, Schema};
use indicatif::{ProgressBar, ProgressStyle};
use lwc::{AccessMix, CostModel, EncodeOptions};
use lwc_file::{ColumnInfo, FileWriter, LwcFile, ScanOptions, WriteOptions};
use serde_json::json;

use crate::input::{CsvOptions, Format, Input};
use crate::output::TableWriter;
use crate::query;
use crate::table::Table;
use crate::units::{human_bytes, human_time, ratio, thousands};
use crate::{
    emit, show_progress, CalibrateArgs, CompressArgs, DecompressArgs, ExplainArgs, GetArgs, InspectArgs, ScanArgs,
};

/// Rows per batch when reading an `.lwc` file back out.
const OUT_BATCH_ROWS: u64 = 64 * 1024;

/// A progress bar on stderr, hidden when `visible` is false.
pub fn progress_bar(visible: bool, total: u64, template: &str) -> ProgressBar {
    if !visible {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// Encoding options from the command line.
pub fn encode_options(args: &CompressArgs) -> Result<EncodeOptions> {
    let mut options = EncodeOptions {
        segment_rows: args.segment_rows,
        objective: args.objective,
        cost_model: cost_model(args.costs.as_deref())?,
        keep_choice: args.keep_choice,
        ..EncodeOptions::default()
    };
    if let Some(cascade) = &args.encoding {
        options.cascade = cascade.clone();
    }
    Ok(options)
}

/// The cost model of a `--costs` file, or the built-in one.
fn cost_model(path: Option<&Path>) -> Result<Arc<CostModel>> {
    let Some(path) = path else { return Ok(CostModel::builtin()) };
    let text = std::fs::read_to_string(path).with_context(|| format!("reading the cost table {}", path.display()))?;
    let model = CostModel::from_text(&text)
        .with_context(|| format!("{} is not a cost table written by `lwc calibrate`", path.display()))?;
    Ok(Arc::new(model))
}

/// `lwc calibrate`.
pub fn calibrate(args: &CalibrateArgs) -> Result<()> {
    let passes = args.passes as usize;
    eprintln!("measuring every encoding at bit widths 1 to 64, {passes} passes of about a second...");
    let start = Instant::now();
    let text = lwc::calibrate::calibrate_passes(passes).to_text();
    eprintln!("done in {}", human_time(start.elapsed()));
    match &args.output {
        Some(path) => {
            std::fs::write(path, &text).with_context(|| format!("writing {}", path.display()))?;
            eprintln!("wrote {}; pass it to lwc compress or lwc explain with --costs", path.display());
            Ok(())
        }
        None => emit(&text),
    }
}

/// Opens an `.lwc` file, saying which file failed.
fn open(path: &Path) -> Result<LwcFile> {
    if !path.exists() {
        bail!("{} does not exist", path.display());
    }
    LwcFile::open(path).with_context(|| format!("cannot open {} as an .lwc file", path.display()))
}

/// The encodings of a column: `rle(sequence, sequence) ×13, for ×2`.
fn encodings(info: &ColumnInfo) -> String {
    if info.cascades.is_empty() {
        return "-".into();
    }
    info.cascades.iter().map(|(c, n)| format!("{c} ×{n}")).collect::<Vec<_>>().join(", ")
}

/// The per-column table of `compress` and `inspect`, with a total line.
fn column_table(columns: &[ColumnInfo]) -> String {
    let mut t = Table::new(&[
        "column",
        "type",
        "storage",
        ">rows",
        ">nulls",
        ">plain",
        ">encoded",
        ">ratio",
        ">segments",
        "encodings (× segments)",
    ]);
    for c in columns {
        t.row(vec![
            c.name.clone(),
            c.data_type.to_string(),
            c.storage.to_string(),
            thousands(c.rows),
            thousands(c.nulls),
            human_bytes(c.plain_bytes),
            human_bytes(c.encoded_bytes),
            ratio(c.plain_bytes, c.encoded_bytes),
            thousands(c.segments.len() as u64),
            encodings(c),
        ]);
    }
    let (plain, encoded): (u64, u64) =
        (columns.iter().map(|c| c.plain_bytes).sum(), columns.iter().map(|c| c.encoded_bytes).sum());
    t.rule();
    t.row(vec![
        "total".into(),
        String::new(),
        String::new(),
        thousands(columns.first().map_or(0, |c| c.rows)),
        thousands(columns.iter().map(|c| c.nulls).sum()),
        human_bytes(plain),
        human_bytes(encoded),
        ratio(plain, encoded),
        thousands(columns.iter().map(|c| c.segments.len() as u64).sum()),
        String::new(),
    ]);
    t.render()
}

/// `lwc compress`.
pub fn compress(args: &CompressArgs) -> Result<()> {
    if args.segment_rows == 0 {
        bail!("--segment-rows must be at least 1");
    }
    if args.output.exists() && args.input.canonicalize().ok() == args.output.canonicalize().ok() {
        bail!("the output {} is the input", args.output.display());
    }
    // Checked before any reading: a budget needs an access mix.
    let budget = args.memory_budget.map(|bytes| budget_mix(args).map(|mix| (bytes, mix))).transpose()?;
    let mut input = Input::open(&args.input, CsvOptions { delimiter: args.delimiter })?;
    let options =
        WriteOptions { encode: encode_options(args)?, threads: args.threads.map(|t| t as usize), ..Default::default() };
    let bar = progress_bar(
        show_progress(args.quiet),
        input.file_bytes,
        "{spinner} compressing [{bar:30}] {bytes}/{total_bytes} {binary_bytes_per_sec} {msg}",
    );
    let start = Instant::now();
    let read_error = || format!("reading {}", args.input.display());
    let write_error = || format!("writing {}", args.output.display());
    let mut plan_text = String::new();
    let summary = match budget {
        Some((budget, mix)) => {
            // The plan needs every row before the first is written: read the table into memory.
            bar.set_message("reading the table to fit it to the budget");
            let mut batches = Vec::new();
            while let Some(batch) = input.next_batch().with_context(read_error)? {
                batches.push(batch);
                bar.set_position(input.bytes_read());
            }
            bar.set_message("encoding every integer and string column under each objective");
            // Lookups reach any row of the table: its rows set the working set they are priced at.
            let mut options = options;
            let rows = batches.iter().map(|b| b.num_rows() as u64).sum::<u64>();
            options.encode.working_set_rows = options.encode.working_set_rows.or(Some(rows));
            let plan = lwc_file::plan_budget(input.schema.clone(), &batches, budget, mix, &options)
                .with_context(|| format!("cannot fit {} into {}", args.input.display(), human_bytes(budget)))?;
            plan_text = plan.to_string();
            drop(batches);
            bar.set_message("writing the planned segments");
            plan.write_file(&args.output).with_context(write_error)?
        }
        None => {
            // The table's rows set the working set lookups are priced at: from the metadata, else
            // estimated from the first batch's share of the file.
            let first = input.next_batch().with_context(read_error)?;
            let estimated = first.as_ref().map(|b| {
                let share = input.bytes_read().max(1) as f64 / input.file_bytes.max(1) as f64;
                (b.num_rows() as f64 / share.min(1.0)) as u64
            });
            let mut options = options;
            options.encode.working_set_rows = options.encode.working_set_rows.or(input.rows.or(estimated));
            let mut writer = FileWriter::create(&args.output, input.schema.clone(), options)
                .with_context(|| format!("cannot write {}", args.output.display()))?;
            let mut next = first;
            while let Some(batch) = next.take() {
                next = input.next_batch().with_context(read_error)?;
                writer.write(&batch).with_context(write_error)?;
                bar.set_position(input.bytes_read());
                bar.set_message(format!("{} rows", thousands(writer.rows_written())));
            }
            bar.set_message("writing the footer");
            writer.finish().with_context(write_error)?
        }
    };
    let elapsed = start.elapsed();
    bar.finish_and_clear();
    let plain: u64 = summary.columns.iter().map(|c| c.plain_bytes).sum();
    let mut text = column_table(&summary.columns);
    text.push_str(&format!(
        "\n{} → {}: {} rows, {} columns; input {} {:?}, plain {}, .lwc file {} ({} of plain, {} of input) in {}\n",
        args.input.display(),
        args.output.display(),
        thousands(summary.rows),
        summary.columns.len(),
        human_bytes(input.file_bytes),
        input.format,
        human_bytes(plain),
        human_bytes(summary.file_bytes),
        ratio(plain, summary.file_bytes),
        ratio(input.file_bytes, summary.file_bytes),
        human_time(elapsed),
    ));
    if !plan_text.is_empty() {
        text.push('\n');
        text.push_str(&plan_text);
    }
    emit(&text)
}

/// The access mix a memory budget optimizes for, from `--objective`.
fn budget_mix(args: &CompressArgs) -> Result<AccessMix> {
    if args.encoding.is_some() {
        bail!("--memory-budget chooses encodings per column; it cannot be combined with --encoding");
    }
    args.objective.access_mix().ok_or_else(|| {
        anyhow::anyhow!(
            "--objective size already takes the smallest encoding; a memory budget needs an access mix \
             (scan, random, balanced or weights such as scan=1,get=0.1)"
        )
    })
}

/// `lwc inspect`.
pub fn inspect(args: &InspectArgs) -> Result<()> {
    let file = open(&args.file)?;
    if args.verify {
        file.verify().with_context(|| format!("{} failed verification", args.file.display()))?;
    }
    let columns = file.columns();
    let plain: u64 = columns.iter().map(|c| c.plain_bytes).sum();
    let encoded: u64 = columns.iter().map(|c| c.encoded_bytes).sum();
    if args.json {
        let cols: Vec<_> = columns
            .iter()
            .map(|c| {
                json!({
                    "name": c.name,
                    "type": c.data_type.to_string(),
                    "storage": c.storage.to_string(),
                    "rows": c.rows,
                    "nulls": c.nulls,
                    "plain_bytes": c.plain_bytes,
                    "encoded_bytes": c.encoded_bytes,
                    "ratio": ratio_number(c.plain_bytes, c.encoded_bytes),
                    "segments": c.segments.len(),
                    "encodings": c.cascades.iter().map(|(e, n)| json!({"cascade": e, "segments": n})).collect::<Vec<_>>(),
                })
            })
            .collect();
        let doc = json!({
            "path": args.file.display().to_string(),
            "rows": file.num_rows(),
            "file_bytes": file.file_bytes(),
            "plain_bytes": plain,
            "encoded_bytes": encoded,
            "ratio": ratio_number(plain, file.file_bytes()),
            "options": file.options(),
            "verified": args.verify,
            "columns": cols,
        });
        return emit(&format!("{}\n", serde_json::to_string_pretty(&doc)?));
    }
    let mut text = format!(
        "{}: {} rows, {} columns, {} on disk ({} of {} plain){}\n",
        args.file.display(),
        thousands(file.num_rows()),
        columns.len(),
        human_bytes(file.file_bytes()),
        ratio(plain, file.file_bytes()),
        human_bytes(plain),
        if args.verify { "; every checksum verified" } else { "" },
    );
    if !file.options().is_empty() {
        text.push_str(&format!("written with: {}\n", file.options()));
    }
    text.push('\n');
    text.push_str(&column_table(columns));
    emit(&text)
}

fn ratio_number(plain: u64, encoded: u64) -> Option<f64> {
    (encoded > 0).then(|| (plain as f64 / encoded as f64 * 1000.0).round() / 1000.0)
}

/// `lwc explain`.
pub fn explain(args: &ExplainArgs) -> Result<()> {
    if args.segment_rows == 0 {
        bail!("--segment-rows must be at least 1");
    }
    let file = if Format::detect(&args.input)? == Format::Lwc { open(&args.input)? } else { table_as_lwc(args)? };
    let schema = file.schema();
    // Every column whose segments the selector chooses: integer-backed, float, string and binary.
    let chosen = |i: usize| !matches!(file.columns()[i].storage, lwc_file::Storage::Plain(_));
    let indices: Vec<usize> = if args.column.is_empty() {
        let all: Vec<usize> = (0..schema.fields().len()).filter(|&i| chosen(i)).collect();
        if all.is_empty() {
            bail!("{} has no column whose encoding is chosen (all are stored as they are)", args.input.display());
        }
        all
    } else {
        args.column.iter().map(|c| file.column_index(c.trim())).collect::<Result<_, _>>()?
    };
    let options = EncodeOptions {
        segment_rows: args.segment_rows,
        objective: args.objective,
        cost_model: cost_model(args.costs.as_deref())?,
        keep_choice: args.keep_choice,
        explain: true,
        ..EncodeOptions::default()
    };
    let mut text = String::new();
    let mut docs = Vec::new();
    for i in indices {
        let name = schema.field(i).name();
        let storage = file.columns()[i].storage;
        let explains = lwc_file::explain_array(file.read_column(i)?.as_ref(), &options)
            .with_context(|| format!("column {name}"))?;
        if args.json {
            docs.push(json!({
                "column": name,
                "type": schema.field(i).data_type().to_string(),
                "stored_as": storage.to_string(),
                "segments": explains.iter().map(explain_json).collect::<Vec<_>>(),
            }));
            continue;
        }
        let bytes: usize = explains.iter().map(|e| e.actual_bytes).sum();
        text.push_str(&format!(
            "column {name} ({}, stored as {storage}): {} segments, {} rows, {} encoded, objective {}\n",
            schema.field(i).data_type(),
            explains.len(),
            thousands(file.columns()[i].rows),
            human_bytes(bytes as u64),
            args.objective
        ));
        text.push_str(&lwc_file::explains_text(&explains));
        text.push('\n');
    }
    if args.json {
        return emit(&format!(
            "{}\n",
            serde_json::to_string_pretty(&json!({ "objective": args.objective.to_string(), "columns": docs }))?
        ));
    }
    emit(&text)
}

/// A segment's explain record as JSON.
fn explain_json(e: &lwc::SegmentExplain) -> serde_json::Value {
    json!({
        "rows": e.rows,
        "nulls": e.nulls,
        "chosen": e.chosen.to_string(),
        "reason": e.reason,
        "sampled_rows": e.sampled_rows,
        "estimated_bytes": e.estimated_bytes,
        "actual_bytes": e.actual_bytes,
        "choose_ns": e.choose_ns,
        "encode_ns": e.encode_ns,
        "candidates": e.candidates.iter().map(|c| json!({
            "encoding": c.encoding.name(),
            "estimated_bytes": c.estimated_bytes,
            "scan_ns_per_value": c.costs.map(|k| k.scan_ns),
            "get_ns": c.costs.map(|k| k.get_ns),
            "note": c.note,
        })).collect::<Vec<_>>(),
    })
}

/// A table's wanted columns (or all) written to an in-memory .lwc file, so their integers can be read back.
fn table_as_lwc(args: &ExplainArgs) -> Result<LwcFile> {
    let mut input = Input::open(&args.input, CsvOptions { delimiter: args.delimiter })?;
    let schema = input.schema.clone();
    let wanted: Vec<usize> = if args.column.is_empty() {
        (0..schema.fields().len()).collect()
    } else {
        args.column
            .iter()
            .map(|c| {
                schema.index_of(c.trim()).map_err(|_| {
                    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
                    anyhow::anyhow!("no column named '{}'; the table has columns: {}", c.trim(), names.join(", "))
                })
            })
            .collect::<Result<_>>()?
    };
    let projected = Arc::new(schema.project(&wanted)?);
    let mut batches = Vec::new();
    while let Some(batch) = input.next_batch()? {
        batches.push(batch.project(&wanted)?);
    }
    let options = WriteOptions {
        encode: EncodeOptions { segment_rows: args.segment_rows, ..EncodeOptions::default() },
        ..Default::default()
    };
    let bytes = lwc_file::write_to_bytes(projected, &batches, options)?;
    Ok(LwcFile::from_bytes(bytes)?)
}

/// `lwc decompress`.
pub fn decompress(args: &DecompressArgs) -> Result<()> {
    let format = match Format::from_extension(&args.output) {
        Some(f @ (Format::Csv | Format::Parquet | Format::IpcFile)) => f,
        Some(Format::IpcStream) => Format::IpcFile,
        _ => bail!(
            "cannot tell the output format of {}: name it .csv, .parquet, .arrow, .ipc or .feather",
            args.output.display()
        ),
    };
    let file = open(&args.file)?;
    let schema = file.schema();
    let rows = file.num_rows();
    let mut writer = TableWriter::create(&args.output, format, &schema)?;
    let bar =
        progress_bar(show_progress(args.quiet), rows, "{spinner} decompressing [{bar:30}] {pos}/{len} rows {per_sec}");
    let start = Instant::now();
    let mut at = 0;
    while at < rows {
        let end = (at + OUT_BATCH_ROWS).min(rows);
        let columns = (0..schema.fields().len())
            .map(|i| file.read_range(i, at..end))
            .collect::<Result<Vec<ArrayRef>, _>>()
            .with_context(|| format!("reading rows {at}..{end} of {}", args.file.display()))?;
        writer.write(&RecordBatch::try_new(schema.clone(), columns)?)?;
        at = end;
        bar.set_position(at);
    }
    if rows == 0 {
        writer.write(&RecordBatch::new_empty(schema.clone()))?;
    }
    writer.finish().with_context(|| format!("writing {}", args.output.display()))?;
    bar.finish_and_clear();
    let written = std::fs::metadata(&args.output).map(|m| m.len()).unwrap_or(0);
    emit(&format!(
        "{} → {}: {} rows, {} columns, {} in {}\n",
        args.file.display(),
        args.output.display(),
        thousands(rows),
        schema.fields().len(),
        human_bytes(written),
        human_time(start.elapsed())
    ))
}

/// `lwc get`.
pub fn get(args: &GetArgs) -> Result<()> {
    let file = open(&args.file)?;
    let rows = query::parse_rows(&args.rows, file.num_rows()).with_context(|| args.file.display().to_string())?;
    let schema = file.schema();
    let indices: Vec<usize> = if args.column.is_empty() {
        (0..schema.fields().len()).collect()
    } else {
        args.column.iter().map(|c| file.column_index(c.trim())).collect::<Result<_, _>>()?
    };
    let mut fields = vec![Field::new("row", DataType::UInt64, false)];
    let mut columns: Vec<ArrayRef> = vec![Arc::new(UInt64Array::from(rows.clone()))];
    for &i in &indices {
        fields.push(schema.field(i).clone());
        columns.push(file.take(i, &rows).with_context(|| format!("reading {}", args.file.display()))?);
    }
    let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)?;
    if args.csv {
        let mut out = Vec::new();
        arrow::csv::WriterBuilder::new().with_header(true).build(&mut out).write(&batch)?;
        return emit(&String::from_utf8_lossy(&out));
    }
    let options = arrow::util::display::FormatOptions::default().with_null("NULL");
    emit(&format!("{}\n", arrow::util::pretty::pretty_format_batches_with_options(&[batch], &options)?))
}

/// `lwc scan`.
pub fn scan(args: &ScanArgs) -> Result<()> {
    let file = open(&args.file)?;
    let index = file.column_index(&args.column)?;
    let data_type = file.schema().field(index).data_type().clone();
    let filter = query::where_filter(&file, &args.column, &args.condition)?;
    let start = Instant::now();
    let result = file.aggregate(index, filter.as_ref()).with_context(|| format!("scanning {}", args.file.display()))?;
    let elapsed = start.elapsed();
    let mut text = format!(
        "{} ({data_type}){}\n",
        args.column,
        filter.as_ref().map(|f| format!(" where {f}")).unwrap_or_default()
    );
    text.push_str(&format!("count: {}\n", result.rows));
    if result.count != result.rows {
        text.push_str(&format!("non-null: {}\n", result.count));
    }
    if args.sum {
        let sum = result.sum.map(|s| query::format_sum(s, &data_type));
        text.push_str(&format!("sum: {}\n", sum.as_deref().unwrap_or("not defined for this type")));
    }
    let show = |v: &Option<ArrayRef>| v.as_ref().map_or(Ok("NULL".to_string()), |a| query::format_cell(a, 0));
    if args.min {
        text.push_str(&format!("min: {}\n", show(&result.min)?));
    }
    if args.max {
        text.push_str(&format!("max: {}\n", show(&result.max)?));
    }
    let s = result.stats;
    text.push_str(&format!(
        "time: {} (filter and aggregate on the encoded segments; of {} row groups {} skipped and {} taken whole \
         by zone maps, {} filtered)\n",
        human_time(elapsed),
        s.row_groups,
        s.pruned,
        s.kept_whole,
        s.filtered
    ));
    if let Some(limit) = args.show {
        let mut options = ScanOptions::default().with_limit(limit);
        if let Some(f) = filter {
            options = options.with_filter(f);
        }
        let batches = file.scan(options)?.collect::<lwc_file::Result<Vec<_>>>()?;
        let format = arrow::util::display::FormatOptions::default().with_null("NULL");
        let table = arrow::util::pretty::pretty_format_batches_with_options(&batches, &format)?;
        text.push_str(&format!(
            "first {} selected rows:\n{table}\n",
            batches.iter().map(|b| b.num_rows()).sum::<usize>()
        ));
    }
    emit(&text)
}
