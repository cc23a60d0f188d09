use lwc::*;
#[test]
fn smoke_all_encodings() {
    let data: Vec<i64> = (0..70_000).map(|i| (i * 37 % 1000) as i64 - 500).collect();
    for enc in [
        Encoding::Plain,
        Encoding::Bitpack,
        Encoding::Bytepack,
        Encoding::For,
        Encoding::FOR64,
        Encoding::Dict,
        Encoding::Auto,
    ] {
        let col = EncodedColumn::encode(&data, None, EncodeOptions::with_encoding(enc)).unwrap();
        let c = col.open::<i64>().unwrap();
        assert_eq!(c.decode(0..70_000).unwrap().values, data, "{enc:?}");
        assert_eq!(c.get(69_999).unwrap(), Some(data[69_999]));
        let pos: Vec<u64> = (0..70_000).rev().step_by(7).collect();
        assert_eq!(c.take(&pos).unwrap().values, pos.iter().map(|&p| data[p as usize]).collect::<Vec<_>>(), "{enc:?}");
        let sel = c.filter(&Predicate::Between(-10, 200));
        assert_eq!(sel.count(), data.iter().filter(|&&v| (-10..=200).contains(&v)).count(), "{enc:?}");
        let agg = c.aggregate(None).unwrap();
        assert_eq!(agg.sum, data.iter().map(|&v| v as i128).sum::<i128>(), "{enc:?}");
        let agg = c.aggregate(Some(&sel)).unwrap();
        assert_eq!(
            agg.sum,
            data.iter().filter(|&&v| (-10..=200).contains(&v)).map(|&v| v as i128).sum::<i128>(),
            "{enc:?}"
        );
        println!("{enc:?} {} bytes {:?}", col.as_bytes().len(), c.encodings());
    }
}
