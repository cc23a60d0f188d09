//! Scans against Arrow's own kernels: random filters (comparisons, ranges, lists, null tests, prefixes,
//! and, or, not; literals taken from the data, NULL, and between stored values) over tables of every
//! column type, written in small row groups so zone maps prune, keep and leave row groups to evaluate.
//! The rows a scan returns, in every projection, batch size and limit, and the aggregates it computes, must
//! be what Arrow's comparison, boolean (SQL's three-valued logic) and filter kernels give.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::*;
use arrow_schema::{DataType, Field, Schema};
use lwc::EncodeOptions;
use lwc_file::{CompareOp, Filter, Literal, LwcFile, ScanOptions, Sum, Test, WriteOptions};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A table of every kind of column a filter meets, with nulls, NaN, ±0, ±inf, empty strings, runs.
fn kitchen_sink(rows: usize, seed: u64) -> RecordBatch {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut null = |rate: f64| rng.gen_bool(rate);
    let nulls: Vec<bool> = (0..rows).map(|_| null(0.1)).collect();
    let mut rng = StdRng::seed_from_u64(seed ^ 0xfeed);
    let floats = [0.0, -0.0, 1.5, -2.25, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e-310, 3.0, 7.125];
    let words = ["", "PROMO BRUSHED", "PROMO PLATED", "STANDARD", "ECONOMY ANODIZED", "a'quote", "é", "PROMO"];
    let pick = |rng: &mut StdRng, i: usize| (!nulls[i]).then(|| rng.gen_range(0..1000));
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("id", Arc::new(Int64Array::from_iter_values(0..rows as i64))),
        ("small", Arc::new(UInt8Array::from_iter((0..rows).map(|i| pick(&mut rng, i).map(|v| (v % 7) as u8))))),
        ("signed", Arc::new(Int32Array::from_iter((0..rows).map(|i| pick(&mut rng, i).map(|v| v - 500))))),
        ("big", Arc::new(UInt64Array::from_iter_values((0..rows).map(|i| u64::MAX - (i as u64 % 50) * 1_000_003)))),
        (
            "f64",
            Arc::new(Float64Array::from_iter((0..rows).map(|i| pick(&mut rng, i).map(|v| floats[v as usize % 10])))),
        ),
        ("f32", Arc::new(Float32Array::from_iter((0..rows).map(|i| pick(&mut rng, i).map(|v| v as f32 / 10.0))))),
        (
            "f16",
            Arc::new(Float16Array::from_iter(
                (0..rows).map(|i| pick(&mut rng, i).map(|v| half::f16::from_f32(v as f32 / 8.0))),
            )),
        ),
        (
            "price",
            Arc::new(
                Decimal128Array::from_iter((0..rows).map(|i| pick(&mut rng, i).map(|v| v as i128 * 25)))
                    .with_precision_and_scale(15, 2)
                    .unwrap(),
            ),
        ),
        (
            "wide",
            Arc::new(
                Decimal128Array::from_iter(
                    (0..rows).map(|i| pick(&mut rng, i).map(|v| (v as i128 - 400) * 10i128.pow(25))),
                )
                .with_precision_and_scale(38, 2)
                .unwrap(),
            ),
        ),
        ("day", Arc::new(Date32Array::from_iter((0..rows).map(|i| pick(&mut rng, i).map(|v| 9000 + v / 10))))),
        (
            "at",
            Arc::new(TimestampMillisecondArray::from_iter(
                (0..rows).map(|i| pick(&mut rng, i).map(|v| 1_600_000_000_000 + v as i64 * 3_600_000)),
            )),
        ),
        ("flag", Arc::new(BooleanArray::from_iter((0..rows).map(|i| pick(&mut rng, i).map(|v| v % 3 == 0))))),
        (
            "word",
            Arc::new(StringArray::from_iter(
                (0..rows).map(|i| pick(&mut rng, i).map(|v| words[v as usize % words.len()])),
            )),
        ),
        (
            "run",
            Arc::new(StringArray::from_iter(
                (0..rows).map(|i| (i / 300 % 4 != 1).then(|| ["b", "a", "c"][i / 2000 % 3])),
            )),
        ),
        (
            "blob",
            Arc::new(BinaryArray::from_iter(
                (0..rows)
                    .map(|i| pick(&mut rng, i).map(|v| vec![(v % 5) as u8, 0xff][..(v % 2 + 1) as usize].to_vec())),
            )),
        ),
        (
            "large",
            Arc::new(LargeStringArray::from_iter(
                (0..rows).map(|i| pick(&mut rng, i).map(|v| format!("k{:03}", v % 40))),
            )),
        ),
        ("clock", Arc::new(Time32SecondArray::from_iter((0..rows).map(|i| pick(&mut rng, i).map(|v| v * 86))))),
    ];
    let fields: Vec<Field> = columns.iter().map(|(n, a)| Field::new(*n, a.data_type().clone(), true)).collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns.into_iter().map(|(_, a)| a).collect()).unwrap()
}

fn write(batch: &RecordBatch, segment_rows: usize) -> LwcFile {
    let options = WriteOptions { encode: EncodeOptions { segment_rows, ..Default::default() }, ..Default::default() };
    LwcFile::from_bytes(lwc_file::write_to_bytes(batch.schema(), std::slice::from_ref(batch), options).unwrap())
        .unwrap()
}

fn is_bytes(t: &DataType) -> bool {
    matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Binary | DataType::LargeBinary)
}

fn is_integer(t: &DataType) -> bool {
    t.is_integer()
}

/// A literal for a column: one of its values (maybe NULL), or for integers one halfway between two.
fn literal(column: &ArrayRef, rng: &mut StdRng) -> Literal {
    let i = rng.gen_range(0..column.len());
    if is_integer(column.data_type()) && rng.gen_bool(0.15) {
        let v = arrow_cast::cast(&column.slice(i, 1), &DataType::Float64).unwrap();
        let v = v.as_primitive::<Float64Type>();
        // Only where f64 holds the column's values exactly, so the reference's cast compares them right.
        if v.is_null(0) || v.value(0).abs() < 1e15 {
            return if v.is_null(0) { Literal::null() } else { Literal::from(v.value(0) + 0.5) };
        }
    }
    Literal::new(column.slice(i, 1)).unwrap()
}

fn random_test(column: &ArrayRef, rng: &mut StdRng) -> Test {
    let ops = [CompareOp::Eq, CompareOp::NotEq, CompareOp::Lt, CompareOp::LtEq, CompareOp::Gt, CompareOp::GtEq];
    match rng.gen_range(0..10) {
        0..=3 => Test::Compare(ops[rng.gen_range(0..6)], literal(column, rng)),
        4 | 5 => Test::Between(literal(column, rng), literal(column, rng)),
        6 => Test::In((0..rng.gen_range(1..4)).map(|_| literal(column, rng)).collect()),
        7 => Test::IsNull,
        8 => Test::IsNotNull,
        _ if is_bytes(column.data_type()) => {
            let i = rng.gen_range(0..column.len());
            let bytes = value_bytes(column, i).unwrap_or_default();
            Test::StartsWith(bytes[..rng.gen_range(0..=bytes.len())].to_vec())
        }
        _ => Test::Compare(CompareOp::GtEq, literal(column, rng)),
    }
}

fn random_filter(batch: &RecordBatch, rng: &mut StdRng, depth: usize) -> Filter {
    match rng.gen_range(0..if depth == 0 { 1 } else { 6 }) {
        0..=2 => {
            let c = rng.gen_range(0..batch.num_columns());
            Filter::column(batch.schema().field(c).name().clone(), random_test(batch.column(c), rng))
        }
        3 => Filter::And((0..rng.gen_range(2..4)).map(|_| random_filter(batch, rng, depth - 1)).collect()),
        4 => Filter::Or((0..rng.gen_range(2..4)).map(|_| random_filter(batch, rng, depth - 1)).collect()),
        _ => random_filter(batch, rng, depth - 1).not(),
    }
}

fn value_bytes(column: &ArrayRef, i: usize) -> Option<Vec<u8>> {
    if column.is_null(i) {
        return None;
    }
    Some(match column.data_type() {
        DataType::Utf8 => column.as_string::<i32>().value(i).as_bytes().to_vec(),
        DataType::LargeUtf8 => column.as_string::<i64>().value(i).as_bytes().to_vec(),
        DataType::Binary => column.as_binary::<i32>().value(i).to_vec(),
        DataType::LargeBinary => column.as_binary::<i64>().value(i).to_vec(),
        t => panic!("not bytes: {t}"),
    })
}

/// What Arrow's kernels say of a test: true, false or NULL per row.
fn reference_test(column: &ArrayRef, test: &Test) -> BooleanArray {
    use arrow_ord::cmp;
    let compare = |op: CompareOp, literal: &Literal| -> BooleanArray {
        let (left, right) = match (column.data_type(), literal.array().data_type()) {
            (c, l) if c == l => (column.clone(), literal.array().clone()),
            // A halfway literal in an integer column: compare as f64 (exact for the values used here).
            (_, DataType::Null) => return BooleanArray::new_null(column.len()),
            (_, l) => (arrow_cast::cast(column, l).unwrap(), literal.array().clone()),
        };
        let scalar = Scalar::new(right);
        match op {
            CompareOp::Eq => cmp::eq(&left, &scalar),
            CompareOp::NotEq => cmp::neq(&left, &scalar),
            CompareOp::Lt => cmp::lt(&left, &scalar),
            CompareOp::LtEq => cmp::lt_eq(&left, &scalar),
            CompareOp::Gt => cmp::gt(&left, &scalar),
            CompareOp::GtEq => cmp::gt_eq(&left, &scalar),
        }
        .unwrap()
    };
    match test {
        Test::Compare(op, l) => compare(*op, l),
        Test::Between(lo, hi) => {
            arrow_arith::boolean::and_kleene(&compare(CompareOp::GtEq, lo), &compare(CompareOp::LtEq, hi)).unwrap()
        }
        Test::In(items) => items
            .iter()
            .map(|l| compare(CompareOp::Eq, l))
            .reduce(|a, b| arrow_arith::boolean::or_kleene(&a, &b).unwrap())
            .unwrap(),
        Test::IsNull => arrow_arith::boolean::is_null(column).unwrap(),
        Test::IsNotNull => arrow_arith::boolean::is_not_null(column).unwrap(),
        Test::StartsWith(p) => {
            BooleanArray::from_iter((0..column.len()).map(|i| value_bytes(column, i).map(|v| v.starts_with(p))))
        }
    }
}

fn reference(batch: &RecordBatch, filter: &Filter) -> BooleanArray {
    use arrow_arith::boolean::{and_kleene, not, or_kleene};
    match filter {
        Filter::Column { column, test } => reference_test(batch.column_by_name(column).unwrap(), test),
        Filter::And(all) => all.iter().map(|f| reference(batch, f)).reduce(|a, b| and_kleene(&a, &b).unwrap()).unwrap(),
        Filter::Or(any) => any.iter().map(|f| reference(batch, f)).reduce(|a, b| or_kleene(&a, &b).unwrap()).unwrap(),
        Filter::Not(f) => not(&reference(batch, f)).unwrap(),
    }
}

/// Rows where the reference says true (NULL is not true).
fn selected(mask: &BooleanArray) -> BooleanArray {
    arrow_arith::boolean::and_kleene(mask, &BooleanArray::from(vec![true; mask.len()]))
        .map(|m| BooleanArray::from_iter(m.iter().map(|v| Some(v == Some(true)))))
        .unwrap()
}

fn scanned(file: &LwcFile, options: ScanOptions) -> (RecordBatch, lwc_file::ScanStats) {
    let batch_rows = options.batch_rows;
    let limit = options.limit;
    let mut scan = file.scan(options).unwrap();
    let schema = scan.schema();
    let batches: Vec<RecordBatch> = scan.by_ref().map(|b| b.unwrap()).collect();
    for (i, b) in batches.iter().enumerate() {
        assert!(b.num_rows() > 0, "empty batch {i}");
        if i + 1 < batches.len() {
            assert_eq!(b.num_rows(), batch_rows, "batch {i} of {}", batches.len());
        }
    }
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    if let Some(limit) = limit {
        assert!(rows as u64 <= limit);
    }
    let all = if schema.fields().is_empty() {
        RecordBatch::try_new_with_options(schema, vec![], &RecordBatchOptions::new().with_row_count(Some(rows)))
            .unwrap()
    } else {
        arrow_select::concat::concat_batches(&schema, &batches).unwrap()
    };
    (all, scan.stats())
}

fn check(batch: &RecordBatch, file: &LwcFile, filter: &Filter, rng: &mut StdRng) {
    let mask = selected(&reference(batch, filter));
    let want_all = arrow_select::filter::filter_record_batch(batch, &mask).unwrap();
    let n = batch.num_columns();
    let projection: Vec<usize> = match rng.gen_range(0..4) {
        0 => (0..n).collect(),
        1 => vec![],
        _ => (0..rng.gen_range(1..4)).map(|_| rng.gen_range(0..n)).collect(),
    };
    let batch_rows = [1, 7, 1000, 8192][rng.gen_range(0..4)];
    let limit = rng.gen_bool(0.2).then(|| rng.gen_range(0..50u64));
    let mut options = ScanOptions::default()
        .with_projection(projection.clone())
        .with_filter(filter.clone())
        .with_batch_rows(batch_rows);
    if let Some(l) = limit {
        options = options.with_limit(l);
    }
    let (got, stats) = scanned(file, options);
    let want = want_all.project(&projection).unwrap();
    let want = match limit {
        Some(l) => want.slice(0, want.num_rows().min(l as usize)),
        None => want,
    };
    assert_eq!(got.num_rows(), want.num_rows(), "{filter}: rows");
    assert_eq!(got.columns(), want.columns(), "{filter}: values");
    if limit.is_none() {
        assert_eq!(stats.rows_selected, want.num_rows() as u64, "{filter}: stats");
        assert_eq!(stats.row_groups, stats.pruned + stats.kept_whole + stats.filtered);
    }
    // The planner's estimate: exact when it may run the filter on every row group, and never above the
    // rows there are; without samples only the rows the zone maps keep whole.
    let every = file.estimate_rows(filter, usize::MAX).unwrap();
    assert_eq!((every.rows, every.exact), (want_all.num_rows() as u64, true), "{filter}: estimate");
    let sampled = file.estimate_rows(filter, rng.gen_range(1..4)).unwrap();
    assert!(sampled.rows <= file.num_rows() && (!sampled.exact || sampled.rows == every.rows), "{filter}: {sampled:?}");
    let unsampled = file.estimate_rows(filter, 0).unwrap();
    assert!(unsampled.rows <= every.rows, "{filter}: {unsampled:?}");

    // Aggregates of one column over the same rows, and of the filter's own column where it tests one
    // (a float column then filters and aggregates each segment in one pass).
    check_aggregate(batch, file, filter, rng.gen_range(0..n), &want_all);
    if let [name] = filter.columns()[..] {
        check_aggregate(batch, file, filter, batch.schema().index_of(name).unwrap(), &want_all);
    }
    // Several columns under one evaluation of the filter: each as on its own.
    let columns = [rng.gen_range(0..n), rng.gen_range(0..n), rng.gen_range(0..n)];
    let together = file.aggregate_columns(&columns, Some(filter)).unwrap();
    assert_eq!(together.len(), columns.len());
    for (&c, agg) in columns.iter().zip(&together) {
        let alone = file.aggregate(c, Some(filter)).unwrap();
        let values = |a: &lwc_file::ColumnAggregates| {
            // Float sums apart, below: the two paths may add in different orders.
            let sum = a.sum.filter(|s| !matches!(s, Sum::Float(_)));
            (a.rows, a.count, sum, a.min.as_ref().map(|m| m.to_data()), a.max.as_ref().map(|m| m.to_data()))
        };
        assert!(values(agg) == values(&alone), "{filter}: column {c} aggregated with others");
        // Float sums within a few units in the last place of each other (both are within about 2ε Σ|x| of
        // the exact sum; seed 3241685397704662536 gave o_price_f64 sums one unit apart), NaN equal to NaN
        // of either sign (+inf + -inf may give either, depending on the order of the additions).
        if let (Some(Sum::Float(a)), Some(Sum::Float(b))) = (agg.sum, alone.sum) {
            let close =
                a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= 8.0 * f64::EPSILON * a.abs().max(b.abs());
            assert!(close, "{filter}: column {c}'s sum aggregated with others: {a} against {b}");
        }
    }
}

/// `file.aggregate(c, filter)` against Arrow's kernels over `want_all`, the rows the filter selects.
fn check_aggregate(batch: &RecordBatch, file: &LwcFile, filter: &Filter, c: usize, want_all: &RecordBatch) {
    let column = want_all.column(c);
    let agg = file.aggregate(c, Some(filter)).unwrap();
    assert_eq!(agg.rows, want_all.num_rows() as u64, "{filter}: aggregate rows");
    assert_eq!(agg.stats.rows_selected, agg.rows, "{filter}: aggregate stats");
    assert_eq!(agg.stats.row_groups, agg.stats.pruned + agg.stats.kept_whole + agg.stats.filtered);
    assert_eq!(agg.count, (column.len() - column.null_count()) as u64, "{filter}: count");
    let present = arrow_select::filter::filter(column, &arrow_arith::boolean::is_not_null(column).unwrap()).unwrap();
    let sorted = arrow_ord::sort::sort(&present, None).unwrap();
    let ends = (!sorted.is_empty()).then(|| (sorted.slice(0, 1), sorted.slice(sorted.len() - 1, 1)));
    assert_eq!(
        agg.min.as_ref().map(|a| a.to_data()),
        ends.as_ref().map(|e| e.0.to_data()),
        "{filter}: min of {}",
        batch.schema().field(c).name()
    );
    assert_eq!(agg.max.as_ref().map(|a| a.to_data()), ends.as_ref().map(|e| e.1.to_data()), "{filter}: max");
    match (agg.sum, column.data_type()) {
        (Some(Sum::Int(s)), t) if t.is_integer() || matches!(t, DataType::Decimal128(..)) => {
            let wide = arrow_cast::cast(&present, &DataType::Decimal128(38, 0)).ok();
            let unscaled: i128 = match t {
                DataType::Decimal128(..) => present.as_primitive::<Decimal128Type>().iter().flatten().sum(),
                _ => wide.unwrap().as_primitive::<Decimal128Type>().iter().flatten().sum(),
            };
            assert_eq!(s, unscaled, "{filter}: sum");
        }
        (Some(Sum::Float(s)), DataType::Float64) => {
            let values: Vec<f64> = present.as_primitive::<Float64Type>().values().to_vec();
            let plain: f64 = values.iter().sum();
            // Finite values that overflow together may meet an infinity as the opposite one or not,
            // depending on the order of summation: then NaN and an infinity are both right.
            let order_decides = values.iter().any(|v| v.is_infinite())
                && !values.iter().filter(|v| v.is_finite()).map(|v| v.abs()).sum::<f64>().is_finite();
            assert!(
                s.to_bits() == plain.to_bits()
                    || (s - plain).abs() <= 1e-9 * values.iter().map(|v| v.abs()).sum::<f64>()
                    || (s.is_nan() && plain.is_nan())
                    || (order_decides && !s.is_finite() && !plain.is_finite()),
                "{filter}: sum {s} vs {plain}"
            );
        }
        (None, t) => assert!(is_bytes(t), "{filter}: no sum for {t}"),
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn scans_select_what_arrow_selects(seed in any::<u64>(), rows in prop::sample::select(vec![1usize, 63, 999, 1000, 4321])) {
        let mut rng = StdRng::seed_from_u64(seed);
        let batch = kitchen_sink(rows, seed);
        let file = write(&batch, [64, 1000, 65536][rng.gen_range(0..3)]);
        for _ in 0..12 {
            let filter = random_filter(&batch, &mut rng, 2);
            check(&batch, &file, &filter, &mut rng);
        }
    }

    #[test]
    fn corpus_tables_scan_like_arrow(seed in any::<u64>()) {
        corpus_case(seed);
    }
}

/// Random filters over the corpus tables generated from `seed`, each checked against Arrow.
fn corpus_case(seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    for batch in
        [lwc_testdata::flights(2_000, seed), lwc_testdata::orders(1_500, seed), lwc_testdata::sensors(1_700, seed)]
    {
        let file = write(&batch, 500);
        for _ in 0..4 {
            let filter = random_filter(&batch, &mut rng, 2);
            check(&batch, &file, &filter, &mut rng);
        }
    }
}

/// Found by CI's property test: rows holding -inf and finite values that overflow together, where the
/// order of summation decides between -inf and NaN (see `check`).
#[test]
fn corpus_seed_where_summation_order_decides_an_infinity() {
    corpus_case(11966829166807329011);
}

#[test]
fn a_float_column_filtered_on_itself_aggregates_in_one_pass() {
    // Rising prices with nulls, NaN and -0.0: zone maps prune the early segments, keep none whole (every
    // segment has a null) and filter the rest, where each segment filters and aggregates in one pass.
    let prices: Vec<Option<f64>> = (0..6_000)
        .map(|i| match i % 97 {
            0 => None,
            1 => Some(-0.0),
            2 if i > 3_000 => Some(f64::NAN),
            _ => Some(i as f64 * 0.25),
        })
        .collect();
    let batch = RecordBatch::try_from_iter([("price", Arc::new(Float64Array::from(prices)) as ArrayRef)]).unwrap();
    let file = write(&batch, 1000);
    for filter in [
        Filter::between("price", 800.0f64, 1_200.0f64),
        Filter::compare("price", CompareOp::Gt, 1_000.5f64),
        Filter::compare("price", CompareOp::LtEq, 0.0f64),
        Filter::parse("price", "> NaN").unwrap(),
        Filter::is_null("price"),
    ] {
        let want = arrow_select::filter::filter_record_batch(&batch, &selected(&reference(&batch, &filter))).unwrap();
        check_aggregate(&batch, &file, &filter, 0, &want);
    }
    let stats = file.aggregate(0, Some(&Filter::between("price", 800.0f64, 1_200.0f64))).unwrap().stats;
    assert!(stats.pruned >= 3 && stats.filtered >= 1, "{stats:?}");
}

#[test]
fn zone_maps_skip_and_keep_row_groups() {
    let batch = kitchen_sink(10_000, 1);
    let file = write(&batch, 1000);
    let count = |f: Filter| {
        file.scan(ScanOptions::default().with_projection(vec![]).with_filter(f)).unwrap().count_rows().unwrap()
    };
    let late = count(Filter::compare("id", CompareOp::GtEq, 8_500i64));
    assert_eq!((late.rows_selected, late.pruned, late.kept_whole, late.filtered), (1_500, 8, 1, 1));
    let all = count(Filter::compare("id", CompareOp::GtEq, 0i64));
    assert_eq!((all.pruned, all.kept_whole, all.filtered), (0, 10, 0));
    // `run` holds one string per 2,000 rows, with null stretches: the zone maps of other strings say no.
    let b = count(Filter::starts_with("run", "b"));
    assert!(b.pruned + b.kept_whole > 0, "{b:?}");
    let none = count(Filter::compare("id", CompareOp::Eq, 2.5));
    assert_eq!((none.rows_selected, none.pruned), (0, 10));
    let not_half = count(Filter::compare("id", CompareOp::Eq, 2.5).not());
    assert_eq!((not_half.rows_selected, not_half.kept_whole), (10_000, 10));
    // The planner's estimate reads only the row group the zone maps leave open, if it may sample one.
    let estimate = |f: Filter, sample| file.estimate_rows(&f, sample).unwrap();
    let late = || Filter::compare("id", CompareOp::GtEq, 8_500i64);
    assert_eq!(estimate(late(), 0), lwc_file::RowEstimate { rows: 1_000, exact: false });
    assert_eq!(estimate(late(), 1), lwc_file::RowEstimate { rows: 1_500, exact: true });
    assert_eq!(estimate(Filter::compare("id", CompareOp::Eq, 2.5), 0), lwc_file::RowEstimate { rows: 0, exact: true });
    // `signed` is uniform over -500 ..= 499 in every group: half the groups sampled, the other half
    // extrapolated at the sampled share, comes near the count.
    let positive = || Filter::compare("signed", CompareOp::Gt, 0i64);
    let half = estimate(positive(), 5);
    let count = estimate(positive(), 10);
    assert!(!half.exact && count.exact, "{half:?} {count:?}");
    assert!(half.rows.abs_diff(count.rows) < count.rows / 10, "{half:?} against {count:?}");
    let unknown = file.estimate_rows(&Filter::compare("nope", CompareOp::Eq, 1i64), 4);
    assert!(matches!(unknown, Err(lwc_file::Error::ColumnNotFound { .. })), "{unknown:?}");
}

#[test]
fn text_literals_are_read_in_the_column_type() {
    let batch = kitchen_sink(3_000, 2);
    let file = write(&batch, 1000);
    let rows = |column: &str, condition: &str| -> u64 {
        let filter = Filter::parse(column, condition).unwrap();
        file.scan(ScanOptions::default().with_projection(vec![]).with_filter(filter))
            .unwrap()
            .count_rows()
            .unwrap()
            .rows_selected
    };
    let days = batch.column_by_name("day").unwrap().as_primitive::<Date32Type>();
    let want = days.iter().flatten().filter(|&d| d >= 9050).count() as u64;
    assert_eq!(rows("day", ">= '1994-10-12'"), want); // day 9050
    assert_eq!(rows("day", ">= 9050"), want);
    let prices = batch.column_by_name("price").unwrap().as_primitive::<Decimal128Type>();
    let want = prices.iter().flatten().filter(|&p| p < 1000).count() as u64;
    assert_eq!(rows("price", "< 10"), want); // 10.00 is 1000 unscaled
    assert_eq!(rows("price", "< 9.999"), prices.iter().flatten().filter(|&p| p <= 999).count() as u64);
    let floats = batch.column_by_name("f64").unwrap().as_primitive::<Float64Type>();
    assert_eq!(rows("f64", "= 'NaN'"), floats.iter().flatten().filter(|v| v.is_nan()).count() as u64);
    assert_eq!(rows("f64", "> inf"), floats.iter().flatten().filter(|v| v.is_nan()).count() as u64);
    assert_eq!(
        rows("f64", "= -0"),
        floats.iter().flatten().filter(|v| v.to_bits() == (-0.0f64).to_bits()).count() as u64
    );
    let words = batch.column_by_name("word").unwrap().as_string::<i32>();
    assert_eq!(rows("word", "like 'PROMO%'"), words.iter().flatten().filter(|w| w.starts_with("PROMO")).count() as u64);
    assert_eq!(rows("word", "= ''"), words.iter().flatten().filter(|w| w.is_empty()).count() as u64);
    assert_eq!(rows("word", "= 'a''quote'"), words.iter().flatten().filter(|w| *w == "a'quote").count() as u64);
    assert_eq!(
        rows("word", "in ('STANDARD', null)"),
        words.iter().flatten().filter(|w| *w == "STANDARD").count() as u64
    );
    assert_eq!(rows("at", "< '2020-09-13T12:26:40'"), 0); // 1,600,000,000,000 ms is the first value
    assert_eq!(rows("flag", "= true"), batch.column_by_name("flag").unwrap().as_boolean().true_count() as u64);
}

#[test]
fn filters_that_cannot_run_say_why() {
    let batch = kitchen_sink(100, 3);
    let file = write(&batch, 1000);
    let error = |f: Filter| file.scan(ScanOptions::default().with_filter(f)).err().expect("an error").to_string();
    assert!(
        error(Filter::starts_with("id", "1")).contains("LIKE needs a string"),
        "{}",
        error(Filter::starts_with("id", "1"))
    );
    assert!(error(Filter::parse("day", "> 'yesterday'").unwrap()).contains("is not a Date32 value"));
    assert!(error(Filter::parse("nope", "> 1").unwrap()).contains("no column named 'nope'"));
    assert!(error(Filter::parse("id", "> 'x'").unwrap()).contains("filter on column 'id'"));
    assert!(file.scan(ScanOptions::default().with_projection(vec![99])).is_err());
    assert!(file.scan(ScanOptions::default().with_rows(50..200)).is_err());
    assert!(file.scan(ScanOptions::default().with_batch_rows(0)).is_err());
    assert!(file.aggregate(99, None).is_err());
}

#[test]
fn row_ranges_split_a_scan() {
    let batch = kitchen_sink(5_000, 4);
    let file = write(&batch, 1000);
    let filter = Filter::compare("signed", CompareOp::Gt, 0i32);
    let whole = scanned(&file, ScanOptions::default().with_filter(filter.clone())).0;
    let parts: Vec<RecordBatch> = [0..1500u64, 1500..1501, 1501..5000]
        .into_iter()
        .map(|r| scanned(&file, ScanOptions::default().with_filter(filter.clone()).with_rows(r)).0)
        .collect();
    assert_eq!(arrow_select::concat::concat_batches(&whole.schema(), &parts).unwrap(), whole);
}

#[test]
fn column_ranges_come_from_the_footer_and_match_the_data() {
    for rows in [1, 999, 4321] {
        let batch = kitchen_sink(rows, rows as u64);
        let file = write(&batch, 1000);
        for (c, info) in file.columns().iter().enumerate() {
            let got = file.column_range(c).unwrap();
            if !matches!(info.storage, lwc_file::Storage::Values(_)) {
                assert!(got.is_none(), "{}: a range for a column that is not of values", info.name);
                continue;
            }
            let column = batch.column(c);
            let present =
                arrow_select::filter::filter(column, &arrow_arith::boolean::is_not_null(column).unwrap()).unwrap();
            let sorted = arrow_ord::sort::sort(&present, None).unwrap();
            let want = (!sorted.is_empty())
                .then(|| (sorted.slice(0, 1).to_data(), sorted.slice(sorted.len() - 1, 1).to_data()));
            assert_eq!(got.map(|(lo, hi)| (lo.to_data(), hi.to_data())), want, "{} ({rows} rows)", info.name);
        }
    }
    assert!(write(&kitchen_sink(10, 1), 1000).column_range(99).is_err());
}
