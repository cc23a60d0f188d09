//! `lwc demo`: TPC-H through lwc, next to Parquet (zstd) and plain Arrow arrays.

use std::hint::black_box;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use arrow::array::{Array, ArrayRef, AsArray, Decimal128Array, RecordBatch, Scalar, UInt64Array};
use arrow::datatypes::{DataType, Decimal128Type, SchemaRef};
use lwc::Predicate;
use lwc_file::{IntColumn, LwcFile, WriteOptions};
use tpchgen::generators::{
    CustomerGenerator, LineItemGenerator, NationGenerator, OrderGenerator, PartGenerator, PartSuppGenerator,
    RegionGenerator, SupplierGenerator,
};
use tpchgen_arrow::{
    CustomerArrow, LineItemArrow, NationArrow, OrderArrow, PartArrow, PartSuppArrow, RegionArrow, SupplierArrow,
};

use crate::commands::progress_bar;
use crate::output::parquet_bytes;
use crate::table::Table;
use crate::units::{human_bytes, human_time, ratio, thousands};
use crate::{emit, show_progress, DemoArgs};
use lwc_file::{cast_to_schema, storable_schema};

/// The eight tables, largest first.
const TABLES: [&str; 8] = ["lineitem", "orders", "partsupp", "part", "customer", "supplier", "nation", "region"];

/// Key columns whose encodings the demo shows.
const KEYS: [&str; 12] = [
    "l_orderkey",
    "l_partkey",
    "l_suppkey",
    "o_orderkey",
    "o_custkey",
    "ps_partkey",
    "ps_suppkey",
    "p_partkey",
    "c_custkey",
    "s_suppkey",
    "n_nationkey",
    "r_regionkey",
];

/// Rows per generated batch.
const BATCH_ROWS: usize = 64 * 1024;

/// Point lookups per timed run.
const LOOKUPS: usize = 1000;

/// One table, generated: its schema (strings as `Utf8`) and batches.
fn generate(table: &str, scale: f64) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    fn collect(
        schema: SchemaRef,
        batches: impl Iterator<Item = Result<RecordBatch, arrow::error::ArrowError>>,
    ) -> Result<(SchemaRef, Vec<RecordBatch>)> {
        let storable = storable_schema(&schema);
        let batches = batches.map(|b| Ok(cast_to_schema(&b?, &storable)?)).collect::<Result<Vec<_>>>()?;
        Ok((storable, batches))
    }
    let n = BATCH_ROWS;
    match table {
        "lineitem" => collect(
            LineItemArrow::schema_ref(),
            LineItemArrow::new(LineItemGenerator::new(scale, 1, 1)).with_batch_size(n),
        ),
        "orders" => {
            collect(OrderArrow::schema_ref(), OrderArrow::new(OrderGenerator::new(scale, 1, 1)).with_batch_size(n))
        }
        "partsupp" => collect(
            PartSuppArrow::schema_ref(),
            PartSuppArrow::new(PartSuppGenerator::new(scale, 1, 1)).with_batch_size(n),
        ),
        "part" => collect(PartArrow::schema_ref(), PartArrow::new(PartGenerator::new(scale, 1, 1)).with_batch_size(n)),
        "customer" => collect(
            CustomerArrow::schema_ref(),
            CustomerArrow::new(CustomerGenerator::new(scale, 1, 1)).with_batch_size(n),
        ),
        "supplier" => collect(
            SupplierArrow::schema_ref(),
            SupplierArrow::new(SupplierGenerator::new(scale, 1, 1)).with_batch_size(n),
        ),
        "nation" => {
            collect(NationArrow::schema_ref(), NationArrow::new(NationGenerator::new(scale, 1, 1)).with_batch_size(n))
        }
        "region" => {
            collect(RegionArrow::schema_ref(), RegionArrow::new(RegionGenerator::new(scale, 1, 1)).with_batch_size(n))
        }
        other => bail!("no TPC-H table {other}"),
    }
}

/// Bytes of Arrow buffers the batches use (values, offsets, validity).
fn arrow_bytes(batches: &[RecordBatch]) -> Result<u64> {
    let mut total = 0;
    for batch in batches {
        for column in batch.columns() {
            total += column.to_data().get_slice_memory_size()? as u64;
        }
    }
    Ok(total)
}

/// What the demo measured for one table.
struct Measured {
    name: &'static str,
    rows: u64,
    plain: u64,
    parquet: u64,
    lwc: u64,
}

/// `lwc demo`.
pub fn run(args: &DemoArgs) -> Result<()> {
    if !(args.scale > 0.0 && args.scale <= 100.0) {
        bail!("--scale must be above 0 and at most 100 (got {})", args.scale);
    }
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let started = Instant::now();
    let visible = show_progress(args.quiet);
    let bar = progress_bar(visible, TABLES.len() as u64, "{spinner} [{bar:20}] {pos}/{len} tables {msg}");
    let mut measured = Vec::new();
    let mut keys = Vec::new();
    let mut lineitem = None;
    for (k, &name) in TABLES.iter().enumerate() {
        bar.set_message(format!("{name}: generating"));
        let t = Instant::now();
        let (schema, batches) = generate(name, args.scale).with_context(|| format!("generating {name}"))?;
        let generated = t.elapsed();
        let rows: u64 = batches.iter().map(|b| b.num_rows() as u64).sum();
        let plain = arrow_bytes(&batches)?;

        bar.set_message(format!("{name}: lwc"));
        let t = Instant::now();
        let options = WriteOptions {
            encode: lwc::EncodeOptions { objective: args.objective, ..Default::default() },
            ..Default::default()
        };
        let bytes = lwc_file::write_to_bytes(schema.clone(), &batches, options)
            .with_context(|| format!("compressing {name} with lwc"))?;
        let lwc_time = t.elapsed();
        if let Some(dir) = &args.out {
            let path = dir.join(format!("{name}.lwc"));
            std::fs::write(&path, &bytes[..]).with_context(|| format!("cannot write {}", path.display()))?;
        }
        let file = LwcFile::from_bytes(bytes).with_context(|| format!("reading {name} back"))?;

        bar.set_message(format!("{name}: parquet"));
        let t = Instant::now();
        let parquet = parquet_bytes(&schema, &batches)?;
        let parquet_time = t.elapsed();
        if let Some(dir) = &args.out {
            let path = dir.join(format!("{name}.parquet"));
            let mut w = crate::output::TableWriter::create(&path, crate::input::Format::Parquet, &schema)?;
            for b in &batches {
                w.write(b)?;
            }
            w.finish()?;
        }
        let line = format!(
            "[{}/{}] {name}: {} rows, generated in {}, lwc in {}, parquet in {}",
            k + 1,
            TABLES.len(),
            thousands(rows),
            human_time(generated),
            human_time(lwc_time),
            human_time(parquet_time)
        );
        if !visible && !args.quiet {
            eprintln!("{line}");
        }
        bar.println(line);
        bar.inc(1);
        for info in file.columns().iter().filter(|c| KEYS.contains(&c.name.as_str())) {
            keys.push(info.clone());
        }
        measured.push(Measured { name, rows, plain, parquet: parquet.len() as u64, lwc: file.file_bytes() });
        if name == "lineitem" {
            lineitem = Some((batches, file, parquet));
        }
    }
    bar.set_message("timing queries on lineitem");
    let (batches, file, parquet) = lineitem.context("lineitem was generated")?;
    let timings = time_queries(&batches, &file, args.runs)?;
    drop(batches);
    bar.set_message("TPC-H Q1 and Q6 through SQL");
    let (lwc_bytes, parquet_bytes, lineitem_rows) = (file.file_bytes(), parquet.len() as u64, file.num_rows());
    let sql_timings = time_sql(file, parquet, args.runs)?;
    bar.finish_and_clear();

    let mut text = format!(
        "TPC-H at scale factor {} (tpchgen), each table compressed by lwc (objective {}) into an in-memory .lwc file, \
         and written as Parquet (zstd level 3) in memory; plain = Arrow buffers\n\n",
        args.scale, args.objective
    );
    let mut t = Table::new(&[
        "table",
        ">rows",
        ">plain",
        ">Parquet zstd",
        ">lwc",
        ">plain/Parquet",
        ">plain/lwc",
        ">lwc/Parquet",
    ]);
    let row = |m: &Measured| {
        vec![
            m.name.to_string(),
            thousands(m.rows),
            human_bytes(m.plain),
            human_bytes(m.parquet),
            human_bytes(m.lwc),
            ratio(m.plain, m.parquet),
            ratio(m.plain, m.lwc),
            format!("{:.2}", m.lwc as f64 / m.parquet.max(1) as f64),
        ]
    };
    for m in &measured {
        t.row(row(m));
    }
    t.rule();
    let total = Measured {
        name: "total",
        rows: measured.iter().map(|m| m.rows).sum(),
        plain: measured.iter().map(|m| m.plain).sum(),
        parquet: measured.iter().map(|m| m.parquet).sum(),
        lwc: measured.iter().map(|m| m.lwc).sum(),
    };
    t.row(row(&total));
    text.push_str(&t.render());

    text.push_str("\nKey columns: the encodings lwc chose (× segments)\n\n");
    let mut t = Table::new(&["column", "type", ">rows", ">plain", ">lwc", ">bits/value", "encodings"]);
    for c in &keys {
        t.row(vec![
            c.name.clone(),
            c.data_type.to_string(),
            thousands(c.rows),
            human_bytes(c.plain_bytes),
            human_bytes(c.encoded_bytes),
            format!("{:.3}", c.encoded_bytes as f64 * 8.0 / c.rows.max(1) as f64),
            c.cascades.iter().map(|(e, n)| format!("{e} ×{n}")).collect::<Vec<_>>().join(", "),
        ]);
    }
    text.push_str(&t.render());

    text.push_str(&format!(
        "\nQueries on lineitem ({} rows): median of {} runs{}\n\n",
        thousands(lineitem_rows),
        args.runs,
        if cfg!(debug_assertions) { " (debug build: build with --release for meaningful times)" } else { "" }
    ));
    text.push_str(&timed_table("Arrow", &timings));
    text.push_str(
        "\nlwc: get/filter/aggregate on the encoded segments (lwc::Column); Arrow: arrow's take, lt and sum kernels on \
         decoded arrays.\n",
    );

    text.push_str(&format!(
        "\nTPC-H queries through SQL (DataFusion) on lineitem in memory: lwc {} against Parquet zstd {}; median of {} \
         runs\n\n",
        human_bytes(lwc_bytes),
        human_bytes(parquet_bytes),
        args.runs
    ));
    text.push_str(&timed_table("Parquet zstd", &sql_timings));
    text.push_str(&format!(
        "\nlwc: `LwcTable`, its WHERE clause run on the encoded segments; Parquet: DataFusion's own reader over the \
         same table's Parquet bytes. All 22 queries: `lwc-bench end-to-end`. Total demo time {}.\n",
        human_time(started.elapsed())
    ));
    emit(&text)
}

/// One timed query: lwc against the reference (Arrow arrays, or Parquet for SQL).
struct Timed {
    query: String,
    answer: String,
    lwc: Duration,
    reference: Duration,
}

/// Timed queries as a table: each answer, lwc's time, the reference's and their ratio.
fn timed_table(reference: &str, timings: &[Timed]) -> String {
    let (time, ratio) = (format!(">{reference}"), format!(">lwc/{}", reference.split(' ').next().unwrap_or("")));
    let mut t = Table::new(&["query", "answer", ">lwc", &time, &ratio]);
    for q in timings {
        t.row(vec![
            q.query.clone(),
            q.answer.clone(),
            human_time(q.lwc),
            human_time(q.reference),
            format!("{:.2}", q.lwc.as_secs_f64() / q.reference.as_secs_f64().max(1e-12)),
        ]);
    }
    t.render()
}

/// TPC-H Q1 and Q6, the lineitem-only queries, as kept in `queries/tpch/`.
const SQL_QUERIES: [(&str, &str); 2] = [
    ("TPC-H Q1 (pricing summary)", include_str!("../../../queries/tpch/q01.sql")),
    ("TPC-H Q6 (revenue change)", include_str!("../../../queries/tpch/q06.sql")),
];

/// Q1 and Q6 through DataFusion over the lwc file and over the Parquet bytes (an in-memory object store),
/// their answers checked equal.
fn time_sql(file: LwcFile, parquet: Vec<u8>, runs: u32) -> Result<Vec<Timed>> {
    use datafusion::execution::object_store::ObjectStoreUrl;
    use datafusion::object_store::{memory::InMemory, path::Path as StorePath, ObjectStoreExt as _, PutPayload};
    use datafusion::prelude::{ParquetReadOptions, SessionContext};

    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting threads")?;
    runtime.block_on(async {
        let lwc = lwc_datafusion::session_context(Default::default());
        lwc.register_table("lineitem", std::sync::Arc::new(lwc_datafusion::LwcTable::new(std::sync::Arc::new(file))))?;
        let pq = SessionContext::new();
        let store = InMemory::new();
        store.put(&StorePath::from("lineitem.parquet"), PutPayload::from(parquet)).await?;
        let url = ObjectStoreUrl::parse("memory://")?;
        pq.register_object_store(url.as_ref(), std::sync::Arc::new(store));
        pq.register_parquet("lineitem", "memory:///lineitem.parquet", ParquetReadOptions::default()).await?;

        let mut out = Vec::new();
        for (query, sql) in SQL_QUERIES {
            let (lwc_time, answer, lwc_rows) = time_sql_query(&lwc, sql, runs).await?;
            let (pq_time, _, pq_rows) = time_sql_query(&pq, sql, runs).await?;
            if lwc_rows != pq_rows {
                bail!("{query}: lwc answers\n{lwc_rows}\nParquet\n{pq_rows}");
            }
            out.push(Timed { query: query.into(), answer, lwc: lwc_time, reference: pq_time });
        }
        Ok(out)
    })
}

/// The median time of `sql` over `runs` runs after one warm-up, its answer in short (the only value of a
/// one-row, one-column answer, else the row count) and in full (a printed table).
async fn time_sql_query(
    ctx: &datafusion::prelude::SessionContext,
    sql: &str,
    runs: u32,
) -> Result<(Duration, String, String)> {
    let batches = ctx.sql(sql).await?.collect().await?;
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    let answer = match batches.iter().find(|b| b.num_rows() > 0) {
        Some(b) if rows == 1 && b.num_columns() == 1 => arrow::util::display::array_value_to_string(b.column(0), 0)?,
        _ => format!("{rows} rows"),
    };
    let full = arrow::util::pretty::pretty_format_batches(&batches)?.to_string();
    let mut times = Vec::with_capacity(runs as usize);
    for _ in 0..runs {
        let t = Instant::now();
        black_box(ctx.sql(sql).await?.collect().await?);
        times.push(t.elapsed());
    }
    times.sort();
    Ok((times[times.len() / 2], answer, full))
}

/// The median time of `f` over `runs` runs, divided by `per_run` (operations in one run).
fn median_time(runs: u32, per_run: usize, mut f: impl FnMut() -> Result<()>) -> Result<Duration> {
    f()?; // warm up
    let mut times = Vec::with_capacity(runs as usize);
    for _ in 0..runs {
        let t = Instant::now();
        f()?;
        times.push(t.elapsed() / per_run as u32);
    }
    times.sort();
    Ok(times[times.len() / 2])
}

fn i64_column<'a>(file: &'a LwcFile, name: &str) -> Result<(lwc::Column<'a, i64>, usize)> {
    let index = file.column_index(name)?;
    match file.int_column(index)? {
        IntColumn::I64(c) => Ok((c, index)),
        other => bail!("{name} is stored as {}, expected i64", other.int_type()),
    }
}

fn arrow_column(batches: &[RecordBatch], index: usize) -> Result<ArrayRef> {
    let parts: Vec<&dyn Array> = batches.iter().map(|b| b.column(index).as_ref()).collect();
    Ok(arrow::compute::concat(&parts)?)
}

/// Point lookup, selective scan and sum on lineitem, on lwc and on Arrow.
fn time_queries(batches: &[RecordBatch], file: &LwcFile, runs: u32) -> Result<Vec<Timed>> {
    let rows = file.num_rows();
    if rows == 0 {
        bail!("lineitem is empty at this scale");
    }
    let mut out = Vec::new();

    // Point lookups at pseudo-random rows (a fixed LCG, so runs repeat).
    let (orderkey, ok_index) = i64_column(file, "l_orderkey")?;
    let arrow_orderkey = arrow_column(batches, ok_index)?;
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let picks: Vec<u64> = (0..LOOKUPS)
        .map(|_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 11) % rows
        })
        .collect();
    let lwc_get = median_time(runs, LOOKUPS, || {
        for &row in &picks {
            black_box(orderkey.take(black_box(&[row]))?);
        }
        Ok(())
    })?;
    let arrow_get = median_time(runs, LOOKUPS, || {
        for &row in &picks {
            let index = UInt64Array::from(vec![black_box(row)]);
            black_box(arrow::compute::take(arrow_orderkey.as_ref(), &index, None)?);
        }
        Ok(())
    })?;
    let probe = picks[0];
    let want = arrow_orderkey.as_primitive::<arrow::datatypes::Int64Type>().value(probe as usize);
    if orderkey.get(probe)? != Some(want) {
        bail!("lwc and Arrow disagree on l_orderkey at row {probe}");
    }
    out.push(Timed {
        query: format!("take 1 row of l_orderkey ({} random rows, time per row)", LOOKUPS),
        answer: format!("row {probe}: {want}"),
        lwc: lwc_get,
        reference: arrow_get,
    });

    // Selective scan: l_quantity < 3.
    let (quantity, q_index) = i64_column(file, "l_quantity")?;
    let arrow_quantity = arrow_column(batches, q_index)?;
    let DataType::Decimal128(precision, scale) = *arrow_quantity.data_type() else {
        bail!("l_quantity is {}, expected a decimal", arrow_quantity.data_type());
    };
    let three = 3 * 10i64.pow(scale.max(0) as u32);
    let mut lwc_count = 0;
    let lwc_scan = median_time(runs, 1, || {
        lwc_count = quantity.filter(black_box(&Predicate::Lt(three))).count();
        Ok(())
    })?;
    let scalar = Scalar::new(Decimal128Array::from(vec![three as i128]).with_precision_and_scale(precision, scale)?);
    let mut arrow_count = 0;
    let arrow_scan = median_time(runs, 1, || {
        arrow_count = arrow::compute::kernels::cmp::lt(&arrow_quantity, &scalar)?.true_count();
        Ok(())
    })?;
    if lwc_count != arrow_count {
        bail!("lwc counts {lwc_count} rows with l_quantity < 3, Arrow {arrow_count}");
    }
    out.push(Timed {
        query: "count where l_quantity < 3".into(),
        answer: format!("{} rows ({:.1}%)", thousands(lwc_count as u64), lwc_count as f64 * 100.0 / rows as f64),
        lwc: lwc_scan,
        reference: arrow_scan,
    });

    // Sum of a decimal column.
    let (price, p_index) = i64_column(file, "l_extendedprice")?;
    let arrow_price = arrow_column(batches, p_index)?;
    let mut lwc_sum = 0i128;
    let lwc_agg = median_time(runs, 1, || {
        lwc_sum = black_box(&price).aggregate(None)?.sum;
        Ok(())
    })?;
    let mut arrow_sum = 0i128;
    let arrow_agg = median_time(runs, 1, || {
        arrow_sum = arrow::compute::sum(arrow_price.as_primitive::<Decimal128Type>()).unwrap_or(0);
        Ok(())
    })?;
    if lwc_sum != arrow_sum {
        bail!("lwc sums l_extendedprice to {lwc_sum}, Arrow to {arrow_sum}");
    }
    out.push(Timed {
        query: "sum(l_extendedprice)".into(),
        answer: crate::query::format_value(lwc_sum, arrow_price.data_type()),
        lwc: lwc_agg,
        reference: arrow_agg,
    });

    // A range filter with a count, on dates.
    let (shipdate, s_index) = i32_column(file, "l_shipdate")?;
    let arrow_shipdate = arrow_column(batches, s_index)?;
    let (lo, hi) = (8766, 9130); // 1994-01-01 ..= 1994-12-31
    let mut lwc_n = 0u64;
    let lwc_range = median_time(runs, 1, || {
        let sel = shipdate.filter(black_box(&Predicate::Between(lo, hi)));
        lwc_n = shipdate.aggregate(Some(&sel))?.count;
        Ok(())
    })?;
    let mut arrow_n = 0usize;
    let (lo_s, hi_s) = (
        Scalar::new(arrow::array::Date32Array::from(vec![lo])),
        Scalar::new(arrow::array::Date32Array::from(vec![hi])),
    );
    let arrow_range = median_time(runs, 1, || {
        let a = arrow::compute::kernels::cmp::gt_eq(&arrow_shipdate, &lo_s)?;
        let b = arrow::compute::kernels::cmp::lt_eq(&arrow_shipdate, &hi_s)?;
        arrow_n = arrow::compute::and(&a, &b)?.true_count();
        Ok(())
    })?;
    if lwc_n != arrow_n as u64 {
        bail!("lwc counts {lwc_n} ship dates in 1994, Arrow {arrow_n}");
    }
    out.push(Timed {
        query: "count where l_shipdate in 1994".into(),
        answer: format!("{} rows", thousands(lwc_n)),
        lwc: lwc_range,
        reference: arrow_range,
    });
    Ok(out)
}

fn i32_column<'a>(file: &'a LwcFile, name: &str) -> Result<(lwc::Column<'a, i32>, usize)> {
    let index = file.column_index(name)?;
    match file.int_column(index)? {
        IntColumn::I32(c) => Ok((c, index)),
        other => bail!("{name} is stored as {}, expected i32", other.int_type()),
    }
}
