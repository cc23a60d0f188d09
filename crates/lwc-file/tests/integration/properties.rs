//! Property tests: any nullable integers and strings, any row group size, any batch cuts round trip,
//! and `take` agrees with Arrow's.

use std::sync::Arc;

use arrow_array::*;
use arrow_schema::{DataType, Field, Schema};
use lwc::EncodeOptions;
use lwc_file::{write_to_bytes, LwcFile, WriteOptions};
use proptest::prelude::*;

fn table(ints: &[Option<i64>], strings: &[Option<String>]) -> RecordBatch {
    let schema =
        Arc::new(Schema::new(vec![Field::new("i", DataType::Int64, true), Field::new("s", DataType::Utf8, true)]));
    RecordBatch::try_new(
        schema,
        vec![Arc::new(Int64Array::from(ints.to_vec())), Arc::new(StringArray::from(strings.to_vec()))],
    )
    .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn round_trips(
        rows in prop::collection::vec(
            (prop::option::of(prop_oneof![any::<i64>(), 0i64..10]), prop::option::of("[a-c]{0,3}|[a-z]{5,12}")),
            0..300,
        ),
        segment_rows in 1usize..100,
        cut in 1usize..120,
        // Up to 60 rows: 4 a segment or more go through the column's take, fewer segment by segment.
        picks in prop::collection::vec(any::<prop::sample::Index>(), 0..60),
    ) {
        let (ints, strings): (Vec<_>, Vec<_>) = rows.into_iter().unzip();
        let batch = table(&ints, &strings);
        let batches: Vec<RecordBatch> =
            (0..batch.num_rows()).step_by(cut).map(|at| batch.slice(at, cut.min(batch.num_rows() - at))).collect();
        let options = WriteOptions { encode: EncodeOptions { segment_rows, ..Default::default() }, ..Default::default() };
        let bytes = write_to_bytes(batch.schema(), &batches, options).unwrap();
        let file = LwcFile::from_bytes(bytes).unwrap();
        file.verify().unwrap();
        prop_assert_eq!(file.read_batch().unwrap(), batch.clone());
        if batch.num_rows() > 0 {
            let rows: Vec<u64> = picks.iter().map(|p| p.index(batch.num_rows()) as u64).collect();
            let indices = UInt64Array::from(rows.clone());
            for c in 0..2 {
                let want = arrow_select::take::take(batch.column(c).as_ref(), &indices, None).unwrap();
                let got = file.take(c, &rows).unwrap();
                prop_assert_eq!(got.as_ref(), want.as_ref());
            }
        }
    }
}
