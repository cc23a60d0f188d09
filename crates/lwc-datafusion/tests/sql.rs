//! SQL over .lwc files answers exactly what the same SQL answers over the same rows in memory, and pushes
//! down what it says it does.

use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::datasource::MemTable;
use datafusion::physical_plan::{collect, ExecutionPlan};
use datafusion::prelude::{SessionConfig, SessionContext};
use lwc_datafusion::{LwcScanExec, LwcTable};
use lwc_file::WriteOptions;

/// The table written as .lwc (segments of `segment_rows`) and registered as `t` in a context of
/// `partitions` threads, and the same batch as an in-memory table `t` in another.
fn contexts(batch: &RecordBatch, segment_rows: usize, partitions: usize) -> (Contexts, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.lwc");
    let encode = lwc::EncodeOptions { segment_rows, ..Default::default() };
    let options = WriteOptions { encode, ..WriteOptions::default() };
    lwc_file::write_file(&path, batch.schema(), std::slice::from_ref(batch), options).unwrap();
    let config = || SessionConfig::new().with_target_partitions(partitions);
    let lwc = lwc_datafusion::session_context(config());
    lwc.register_table("t", Arc::new(LwcTable::open(&path).unwrap())).unwrap();
    let memory = SessionContext::new_with_config(config());
    memory
        .register_table("t", Arc::new(MemTable::try_new(batch.schema(), vec![vec![batch.clone()]]).unwrap()))
        .unwrap();
    (Contexts { lwc, memory }, dir)
}

struct Contexts {
    lwc: SessionContext,
    memory: SessionContext,
}

/// The query's rows as text, sorted (partitions may interleave rows).
async fn answer(ctx: &SessionContext, sql: &str) -> String {
    let batches = ctx.sql(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}")).collect().await.unwrap();
    let text = pretty_format_batches(&batches).unwrap().to_string();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    lines.join("\n")
}

/// Every query answers the same over the file and in memory. Float sums are rounded in the queries:
/// threads add in another order than one pass does.
async fn same_answers(ctx: &Contexts, queries: &[&str]) {
    for q in queries {
        assert_eq!(answer(&ctx.lwc, q).await, answer(&ctx.memory, q).await, "{q}");
    }
}

#[tokio::test]
async fn orders_answer_like_memory() {
    let batch = lwc_testdata::orders(5_000, 7);
    for (segment_rows, partitions) in [(1_000, 4), (65_536, 1), (777, 3)] {
        let (ctx, _dir) = contexts(&batch, segment_rows, partitions);
        same_answers(
            &ctx,
            &[
                "SELECT count(*) FROM t",
                "SELECT count(*), sum(o_price), min(o_date), max(o_comment) FROM t WHERE o_custkey < 20000",
                "SELECT o_id, o_status FROM t WHERE o_id BETWEEN 100 AND 140",
                "SELECT o_status, count(*), round(avg(o_price_f64), 4) FROM t GROUP BY o_status",
                "SELECT count(*) FROM t WHERE o_status IN ('F', 'P') AND NOT o_urgent",
                "SELECT count(*) FROM t WHERE o_urgent IS NULL OR o_discount > 0.05",
                "SELECT count(*) FROM t WHERE o_comment LIKE 'carefully%'",
                "SELECT count(*) FROM t WHERE o_comment NOT LIKE 'car%' AND o_price_f64 >= 1000.5",
                "SELECT o_id FROM t WHERE o_date >= DATE '1995-03-15' AND o_date < DATE '1995-04-01'",
                "SELECT count(*) FROM t WHERE o_unused IS NULL",
                "SELECT count(*) FROM t WHERE o_unused = 3",
                "SELECT sum(o_custkey) FROM t WHERE o_id + 1 > 4000",
                "SELECT count(*) FROM t WHERE o_price > 500",
                "SELECT o_id, o_price FROM t ORDER BY o_price DESC, o_id LIMIT 7",
            ],
        )
        .await;
    }
}

#[tokio::test]
async fn sensors_and_flights_answer_like_memory() {
    // One thread: DataFusion's float min and max over NaN depend on the order rows arrive in.
    let (ctx, _dir) = contexts(&lwc_testdata::sensors(3_000, 3), 500, 1);
    same_answers(
        &ctx,
        &[
            "SELECT device, count(*), min(temp), max(temp) FROM t GROUP BY device",
            "SELECT count(*) FROM t WHERE temp > 20.5 OR code < -100",
            "SELECT sum(delta) FROM t WHERE level = -1 AND flag = 1",
            "SELECT count(*) FROM t WHERE 7 <= level",
            "SELECT min(temp), max(temp), count(temp), min(code), max(delta) FROM t WHERE level > 2",
        ],
    )
    .await;
    let (ctx, _dir) = contexts(&lwc_testdata::flights(2_000, 5), 300, 4);
    same_answers(
        &ctx,
        &[
            "SELECT carrier, count(*) FROM t WHERE dest = 'ATL' GROUP BY carrier",
            "SELECT count(*) FROM t WHERE tailnum IS NULL",
            "SELECT origin, max(distance) FROM t WHERE air_time BETWEEN 60 AND 120 GROUP BY origin",
        ],
    )
    .await;
}

/// The plan as text, indented.
fn shown(plan: &Arc<dyn ExecutionPlan>) -> String {
    datafusion::physical_plan::displayable(plan.as_ref()).indent(true).to_string()
}

/// `count`, `sum`, `avg`, `min` and `max` over one table whose filter lwc runs whole are answered on the
/// encoded segments (`LwcAggregateExec` in place of DataFusion's first phase), with the answers of memory;
/// anything else (a filter lwc leaves to DataFusion, `GROUP BY`, an expression, `DISTINCT`) keeps the scan.
#[tokio::test]
async fn aggregates_of_a_filtered_table_run_on_the_encoded_form() {
    let batch = lwc_testdata::orders(5_000, 8);
    let on_encoded = [
        "SELECT count(*), sum(o_price), min(o_date), max(o_comment), avg(o_custkey) FROM t WHERE o_custkey < 20000",
        "SELECT count(o_unused), sum(o_unused), avg(o_unused), min(o_unused), max(o_unused) FROM t WHERE o_id > 10",
        "SELECT count(*), sum(o_id), min(o_status), max(o_urgent) FROM t WHERE o_status IN ('F', 'P')",
        "SELECT count(*), sum(o_price), avg(o_price), min(o_id), max(o_date) FROM t WHERE o_id < 0",
        "SELECT round(sum(o_price_f64), 2), round(avg(o_discount), 6), count(o_price_f64) FROM t WHERE o_date >= DATE '1995-01-01'",
        "SELECT sum(o_price) AS revenue FROM t WHERE o_comment LIKE 'carefully%' AND o_price > 100",
    ];
    let kept = [
        "SELECT count(*), sum(o_custkey) FROM t WHERE o_id + 1 > 4000",
        "SELECT o_status, sum(o_custkey) FROM t WHERE o_id > 10 GROUP BY o_status",
        "SELECT sum(o_custkey * 2) FROM t WHERE o_id > 10",
        "SELECT count(DISTINCT o_status) FROM t WHERE o_id > 10",
    ];
    for (segment_rows, partitions) in [(1_000, 4), (65_536, 1), (777, 3)] {
        let (ctx, _dir) = contexts(&batch, segment_rows, partitions);
        same_answers(&ctx, &on_encoded).await;
        same_answers(&ctx, &kept).await;
        for sql in on_encoded {
            let plan = ctx.lwc.sql(sql).await.unwrap().create_physical_plan().await.unwrap();
            assert!(shown(&plan).contains("LwcAggregateExec"), "{sql}\n{}", shown(&plan));
            assert!(lwc_scan(&plan).is_none(), "{}", shown(&plan));
        }
        for sql in kept {
            let plan = ctx.lwc.sql(sql).await.unwrap().create_physical_plan().await.unwrap();
            assert!(!shown(&plan).contains("LwcAggregateExec"), "{sql}\n{}", shown(&plan));
        }
    }
}

/// The plan's lwc scan, found below whatever DataFusion put above it.
fn lwc_scan(plan: &Arc<dyn ExecutionPlan>) -> Option<&LwcScanExec> {
    if let Some(scan) = (plan.as_ref() as &dyn std::any::Any).downcast_ref::<LwcScanExec>() {
        return Some(scan);
    }
    plan.children().into_iter().find_map(lwc_scan)
}

#[tokio::test]
async fn filters_lwc_runs_are_pushed_down_and_the_rest_stay_above() {
    let batch = lwc_testdata::orders(2_000, 1);
    let (contexts, _dir) = contexts(&batch, 500, 2);
    let ctx = contexts.lwc;
    let plan = |sql: &'static str| {
        let ctx = ctx.clone();
        async move { ctx.sql(sql).await.unwrap().create_physical_plan().await.unwrap() }
    };
    let pushed = plan("SELECT o_id FROM t WHERE o_custkey < 100 AND o_status = 'F'").await;
    let scan = lwc_scan(&pushed).expect("an lwc scan");
    let text = scan.filter().expect("a pushed filter").to_string();
    assert!(text.contains("o_custkey") && text.contains("o_status"), "{text}");
    // Exact: no filter runs above the scan.
    let shown = datafusion::physical_plan::displayable(pushed.as_ref()).indent(true).to_string();
    assert!(!shown.contains("FilterExec"), "{shown}");
    // Arithmetic on a column is DataFusion's to evaluate.
    let kept = plan("SELECT o_id FROM t WHERE o_id + 1 > 10").await;
    assert!(lwc_scan(&kept).expect("an lwc scan").filter().is_none());
    let shown = datafusion::physical_plan::displayable(kept.as_ref()).indent(true).to_string();
    assert!(shown.contains("FilterExec"), "{shown}");
    // Limits reach the scan.
    let limited = plan("SELECT o_id FROM t LIMIT 3").await;
    let rows: usize = collect(limited, ctx.task_ctx()).await.unwrap().iter().map(|b| b.num_rows()).sum();
    assert_eq!(rows, 3);
}

#[tokio::test]
async fn bad_queries_and_files_give_errors() {
    let batch = lwc_testdata::orders(100, 2);
    let (contexts, dir) = contexts(&batch, 50, 1);
    let ctx = contexts.lwc;
    assert!(ctx.sql("SELECT nope FROM t").await.is_err());
    assert!(ctx.sql("SELECT * FROM missing").await.is_err());
    // A file whose segments were damaged after opening: the scan reports it.
    let path = dir.path().join("t.lwc");
    let mut bytes = std::fs::read(&path).unwrap();
    for b in &mut bytes[64..256] {
        *b ^= 0x5a;
    }
    let damaged = dir.path().join("damaged.lwc");
    std::fs::write(&damaged, &bytes).unwrap();
    match LwcTable::open(&damaged) {
        Err(_) => {}
        Ok(table) => {
            ctx.register_table("d", Arc::new(table)).unwrap();
            let result = ctx.sql("SELECT sum(o_custkey), max(o_comment) FROM d").await.unwrap().collect().await;
            assert!(result.is_err(), "damaged segments must not answer");
        }
    }
    assert!(LwcTable::open(dir.path().join("absent.lwc")).is_err());
}

#[tokio::test]
async fn whole_table_count_min_and_max_come_from_the_footer() {
    let batch = lwc_testdata::orders(3_000, 4);
    let (ctx, _dir) = contexts(&batch, 700, 2);
    let sql = "SELECT count(*), min(o_id), max(o_date), min(o_price), max(o_custkey), count(o_unused) FROM t";
    same_answers(&ctx, &[sql]).await;
    // Exact statistics: DataFusion answers without scanning the file.
    let plan = ctx.lwc.sql(sql).await.unwrap().create_physical_plan().await.unwrap();
    assert!(lwc_scan(&plan).is_none(), "{}", datafusion::physical_plan::displayable(plan.as_ref()).indent(true));
    // Short strings too: their zone maps hold them whole. Long ones are bounded by prefixes only.
    let sql = "SELECT min(o_status), max(o_status) FROM t";
    same_answers(&ctx, &[sql, "SELECT min(o_comment), max(o_comment) FROM t"]).await;
    let plan = ctx.lwc.sql(sql).await.unwrap().create_physical_plan().await.unwrap();
    assert!(lwc_scan(&plan).is_none(), "{}", datafusion::physical_plan::displayable(plan.as_ref()).indent(true));
    // Floats are scanned: their statistics are only inexact.
    let plan = ctx.lwc.sql("SELECT max(o_price_f64) FROM t").await.unwrap().create_physical_plan().await.unwrap();
    assert!(lwc_scan(&plan).is_some());
    same_answers(&ctx, &["SELECT max(o_price_f64) FROM t"]).await;
}

/// A filtered or limited scan tells the planner how large it is (the join planner picks build sides, and
/// whether to broadcast them, by it): a filtered scan the rows its filter is estimated to pass, from the
/// zone maps and the filter run on a sample of row groups; the footer's other figures as bounds.
#[tokio::test]
#[allow(deprecated)] // the scan's own method under test; `StatisticsContext` walks a whole plan
async fn filtered_and_limited_scans_report_estimates() {
    use datafusion::common::stats::Precision;
    let batch = lwc_testdata::orders(3_000, 4);
    let custkeys = batch.column_by_name("o_custkey").unwrap();
    let custkeys = custkeys.as_any().downcast_ref::<datafusion::arrow::array::UInt32Array>().unwrap();
    let passing = custkeys.values().iter().filter(|&&k| k < 50_000).count();
    // Segments of 700 rows: five row groups, all sampled; of 100 rows: 30, 16 of them sampled.
    for (segment_rows, tolerance) in [(700, 0), (100, passing / 5)] {
        let (ctx, _dir) = contexts(&batch, segment_rows, 2);
        let scan_stats = |sql: &'static str| {
            let ctx = ctx.lwc.clone();
            async move {
                let plan = ctx.sql(sql).await.unwrap().create_physical_plan().await.unwrap();
                let scan = lwc_scan(&plan).expect("an lwc scan");
                (*scan.partition_statistics(None).unwrap()).clone()
            }
        };
        let whole = scan_stats("SELECT o_id, o_custkey FROM t").await;
        assert_eq!(whole.num_rows, Precision::Exact(3_000));
        let filtered = scan_stats("SELECT o_id, o_custkey FROM t WHERE o_custkey < 50000").await;
        let Precision::Inexact(rows) = filtered.num_rows else { panic!("{filtered:?}") };
        assert!(rows.abs_diff(passing) <= tolerance, "{rows} rows estimated, {passing} pass");
        let (Some(&bytes), Some(&all_bytes)) =
            (filtered.total_byte_size.get_value(), whole.total_byte_size.get_value())
        else {
            panic!("{filtered:?}")
        };
        assert!(bytes < all_bytes * 2 / 3, "{bytes} bytes of {all_bytes}");
        assert!(matches!(filtered.column_statistics[0].max_value, Precision::Inexact(_)), "{filtered:?}");
        let limited = scan_stats("SELECT o_id FROM t LIMIT 7").await;
        assert!(matches!(limited.num_rows, Precision::Exact(7) | Precision::Inexact(7)), "{limited:?}");
    }
}

#[tokio::test]
async fn a_point_query_opens_only_the_segment_its_zone_maps_keep() {
    let batch = lwc_testdata::orders(3_000, 5);
    let (contexts, _dir) = contexts(&batch, 500, 2);
    let ctx = contexts.lwc;
    // The ids ascend with gaps: the id of row 1,234 lies in the third segment only.
    let ids = batch.column_by_name("o_id").unwrap();
    let id = ids.as_any().downcast_ref::<datafusion::arrow::array::Int64Array>().unwrap().value(1234);
    let sql = format!("SELECT o_id FROM t WHERE o_id = {id}");
    let plan = ctx.sql(&sql).await.unwrap().create_physical_plan().await.unwrap();
    let rows: usize = collect(plan.clone(), ctx.task_ctx()).await.unwrap().iter().map(|b| b.num_rows()).sum();
    assert_eq!(rows, 1);
    let metrics = lwc_scan(&plan).expect("an lwc scan").metrics().expect("scan metrics");
    let count = |name: &str| metrics.sum_by_name(name).map(|m| m.as_usize());
    assert_eq!(count("row_groups"), Some(6));
    assert_eq!(count("row_groups_pruned"), Some(5));
    assert_eq!(count("row_groups_filtered"), Some(1));
    assert_eq!(metrics.output_rows(), Some(1));
    // EXPLAIN ANALYZE shows them.
    let shown = answer(&ctx, &format!("EXPLAIN ANALYZE {sql}")).await;
    assert!(shown.contains("row_groups_pruned=5"), "{shown}");
}

/// A build side of a few hundred distinct keys, each listed many times (as a join's build side lists
/// each row's key), reaches the probe scan as one `IN` list of its distinct keys: the probe side is
/// filtered on the encoded form down to the rows that join, with the answers of memory.
#[tokio::test]
async fn a_join_pushes_a_few_hundred_distinct_keys_into_the_probe_scan() {
    let batch = lwc_testdata::orders(20_000, 6);
    let (contexts, _dir) = contexts(&batch, 2_000, 2);
    // About 200 keys spread over the whole range (so their bounds alone select nearly every row), each on
    // five rows of the build side.
    let keys = "SELECT o_custkey AS key FROM t WHERE o_custkey % 100 = 0";
    let join = format!(
        "SELECT count(*), sum(t.o_id) FROM t JOIN (SELECT key FROM ({keys}) CROSS JOIN (VALUES (1), (2), (3), (4), (5)) AS r(n)) AS k ON t.o_custkey = k.key"
    );
    same_answers(&contexts, &[&join]).await;
    let ctx = &contexts.lwc;
    let plan = ctx.sql(&join).await.unwrap().create_physical_plan().await.unwrap();
    collect(plan.clone(), ctx.task_ctx()).await.unwrap();
    // The two scans of t: the build side's reads every row (DataFusion runs its `%` above the scan); the
    // probe side's only the rows that join (bounds alone would keep nearly all).
    let mut scanned = Vec::new();
    let mut nodes = vec![plan.clone()];
    while let Some(node) = nodes.pop() {
        if (node.as_ref() as &dyn std::any::Any).downcast_ref::<LwcScanExec>().is_some() {
            scanned.push(node.metrics().and_then(|m| m.output_rows()).unwrap());
        }
        nodes.extend(node.children().into_iter().cloned());
    }
    assert_eq!(scanned.len(), 2, "{}", shown(&plan));
    assert!(scanned.iter().min() < Some(&1_000), "rows out of each scan: {scanned:?}\n{}", shown(&plan));
}

/// A join whose build side holds two keys pushes them into the lwc scan while the query runs (DataFusion's
/// dynamic filters): the segments whose zone maps hold neither are not read, the others are filtered on
/// the encoded form, and the answers stay those of memory, for inner, semi and anti joins.
#[tokio::test]
async fn a_join_prunes_the_probe_side_by_its_build_side_keys() {
    let batch = lwc_testdata::orders(3_000, 5);
    let (contexts, _dir) = contexts(&batch, 500, 2);
    let ids = batch.column_by_name("o_id").unwrap();
    let ids = ids.as_any().downcast_ref::<datafusion::arrow::array::Int64Array>().unwrap();
    // Rows 1,234 and 1,300 lie in the third segment (rows 1,000 .. 1,500), and nowhere else.
    let (a, b) = (ids.value(1234), ids.value(1300));
    let join = format!("SELECT t.o_id, t.o_custkey FROM t JOIN (VALUES ({a}), ({b})) AS k(id) ON t.o_id = k.id");
    let queries = [
        join.clone(),
        format!("SELECT count(*) FROM t WHERE o_id IN (SELECT id FROM (VALUES ({a}), ({b})) AS k(id))"),
        format!("SELECT count(*) FROM t WHERE o_id NOT IN (SELECT id FROM (VALUES ({a}), ({b})) AS k(id))"),
    ];
    same_answers(&contexts, &queries.iter().map(String::as_str).collect::<Vec<_>>()).await;
    let ctx = contexts.lwc;
    let plan = ctx.sql(&join).await.unwrap().create_physical_plan().await.unwrap();
    let rows: usize = collect(plan.clone(), ctx.task_ctx()).await.unwrap().iter().map(|b| b.num_rows()).sum();
    assert_eq!(rows, 2);
    let scan = lwc_scan(&plan).expect("an lwc scan");
    let shown = datafusion::physical_plan::displayable(plan.as_ref()).indent(true).to_string();
    assert!(shown.contains("dynamic_filter="), "{shown}");
    let metrics = scan.metrics().expect("scan metrics");
    let count = |name: &str| metrics.sum_by_name(name).map(|m| m.as_usize());
    assert_eq!(count("row_groups"), Some(6));
    assert_eq!(count("row_groups_pruned"), Some(5), "{shown}");
    assert_eq!(metrics.output_rows(), Some(2));
}

#[tokio::test]
async fn a_directory_of_files_is_one_table() {
    let batch = lwc_testdata::orders(4_000, 6);
    let dir = tempfile::tempdir().unwrap();
    let encode = lwc::EncodeOptions { segment_rows: 600, ..Default::default() };
    for (k, (start, len)) in [(0, 1_500), (1_500, 1), (1_501, 2_499)].into_iter().enumerate() {
        let part = batch.slice(start, len);
        let options = WriteOptions { encode: encode.clone(), ..WriteOptions::default() };
        lwc_file::write_file(dir.path().join(format!("part-{k}.lwc")), batch.schema(), &[part], options).unwrap();
    }
    std::fs::write(dir.path().join("notes.txt"), "not a table").unwrap();
    let table = LwcTable::open(dir.path()).unwrap();
    assert_eq!(table.files().len(), 3);
    let lwc = lwc_datafusion::session_context(SessionConfig::new().with_target_partitions(3));
    lwc.register_table("t", Arc::new(table)).unwrap();
    let memory = SessionContext::new();
    memory
        .register_table("t", Arc::new(MemTable::try_new(batch.schema(), vec![vec![batch.clone()]]).unwrap()))
        .unwrap();
    let ctx = Contexts { lwc, memory };
    same_answers(
        &ctx,
        &[
            "SELECT count(*), min(o_id), max(o_id), max(o_date), count(o_status) FROM t",
            "SELECT o_status, count(*), sum(o_custkey) FROM t WHERE o_custkey < 500 GROUP BY o_status",
            "SELECT o_id, o_comment FROM t WHERE o_id BETWEEN 1400 AND 1700",
            "SELECT o_id FROM t ORDER BY o_id DESC LIMIT 5",
            "SELECT count(*), sum(o_custkey), avg(o_price), min(o_comment) FROM t WHERE o_status = 'F'",
        ],
    )
    .await;
    // The files' footers answer whole-table count, min and max together.
    let sql = "SELECT count(*), min(o_id), max(o_custkey) FROM t";
    let plan = ctx.lwc.sql(sql).await.unwrap().create_physical_plan().await.unwrap();
    assert!(lwc_scan(&plan).is_none(), "{}", datafusion::physical_plan::displayable(plan.as_ref()).indent(true));

    // Files of other columns, and a directory without files, are errors.
    let other = lwc_testdata::orders(10, 1).project(&[0, 1]).unwrap();
    lwc_file::write_file(dir.path().join("z.lwc"), other.schema(), &[other], WriteOptions::default()).unwrap();
    let err = LwcTable::open(dir.path()).unwrap_err().to_string();
    assert!(err.contains("other columns"), "{err}");
    let empty = tempfile::tempdir().unwrap();
    let err = LwcTable::open(empty.path()).unwrap_err().to_string();
    assert!(err.contains("no .lwc files"), "{err}");
}

/// Physical plans with lwc scans and aggregates go to bytes and back (datafusion-proto with
/// `LwcCodec`), in a session that knows no table, and answer the same; damaged bytes are errors.
#[tokio::test]
async fn plans_travel_as_bytes_and_answer_the_same() {
    use datafusion_proto::bytes::{
        physical_plan_from_bytes_with_extension_codec, physical_plan_to_bytes_with_extension_codec,
    };
    use lwc_datafusion::LwcCodec;
    let batch = lwc_testdata::orders(4_000, 9);
    let (ctx, _dir) = contexts(&batch, 700, 3);
    let elsewhere = SessionContext::new();
    let queries = [
        "SELECT o_id, o_status FROM t WHERE o_id BETWEEN 100 AND 900 AND o_status IN ('F', 'P')",
        "SELECT count(*), sum(o_price), min(o_comment), avg(o_custkey) FROM t WHERE o_date >= DATE '1995-01-01'",
        "SELECT count(*) FROM t WHERE NOT (o_urgent IS NULL) OR o_comment LIKE 'car%'",
        "SELECT o_id, o_price FROM t ORDER BY o_price DESC, o_id LIMIT 7",
        "SELECT a.o_status, count(*) FROM t a JOIN t b ON a.o_id = b.o_id WHERE b.o_custkey < 5000 GROUP BY a.o_status",
    ];
    for sql in queries {
        let plan = ctx.lwc.sql(sql).await.unwrap().create_physical_plan().await.unwrap();
        let want =
            pretty_format_batches(&collect(plan.clone(), ctx.lwc.task_ctx()).await.unwrap()).unwrap().to_string();
        let bytes = physical_plan_to_bytes_with_extension_codec(plan.clone(), &LwcCodec).unwrap();
        let back = physical_plan_from_bytes_with_extension_codec(&bytes, &elsewhere.task_ctx(), &LwcCodec).unwrap();
        // The same plan, less the dynamic filters a scan was given (what a running join or top-k learns).
        let static_part = |plan: &Arc<dyn ExecutionPlan>| {
            shown(plan).lines().map(|l| l.split(", dynamic_filter=").next().unwrap().to_string()).collect::<Vec<_>>()
        };
        assert_eq!(static_part(&back), static_part(&plan), "{sql}");
        let got = pretty_format_batches(&collect(back, elsewhere.task_ctx()).await.unwrap()).unwrap().to_string();
        let sorted = |text: &str| {
            let mut lines: Vec<String> = text.lines().map(String::from).collect();
            lines.sort_unstable();
            lines
        };
        assert_eq!(sorted(&got), sorted(&want), "{sql}");
        // Damaged bytes: an error or a plan, never a panic.
        for cut in [bytes.len() / 2, bytes.len() - 1] {
            assert!(
                physical_plan_from_bytes_with_extension_codec(&bytes[..cut], &elsewhere.task_ctx(), &LwcCodec).is_err()
            );
        }
        let mut flipped = bytes.to_vec();
        for k in (0..flipped.len()).step_by(7) {
            flipped[k] ^= 0x5a;
            let _ = physical_plan_from_bytes_with_extension_codec(&flipped, &elsewhere.task_ctx(), &LwcCodec);
            flipped[k] ^= 0x5a;
        }
    }
    // A file held in memory has no path another machine could open.
    let bytes =
        lwc_file::write_to_bytes(batch.schema(), std::slice::from_ref(&batch), WriteOptions::default()).unwrap();
    let file = lwc_file::LwcFile::from_bytes(bytes).unwrap();
    let memory = SessionContext::new();
    memory.register_table("m", Arc::new(LwcTable::new(Arc::new(file)))).unwrap();
    let plan = memory.sql("SELECT o_id FROM m").await.unwrap().create_physical_plan().await.unwrap();
    let err = physical_plan_to_bytes_with_extension_codec(plan, &LwcCodec).unwrap_err().to_string();
    assert!(err.contains("in memory"), "{err}");
}
