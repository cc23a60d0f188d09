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

/// `sequence_segment` rebuilds, from rows, min and max alone, exactly the bytes `encode_segment` writes
/// for an ascending sequence (files leave such segments out and rebuild them).
#[test]
fn sequence_segments_rebuild_from_their_zone_map() {
    fn check<T: lwc::LwcInt>(starts: &[T], steps: &[u64]) {
        for &start in starts {
            for &step in steps {
                for rows in [1usize, 2, 3, 1000, 65_536] {
                    let last = start.to_i128() + step as i128 * (rows as i128 - 1);
                    let Some(max) = T::from_i128(last) else { continue };
                    let values: Vec<T> =
                        (0..rows).map(|i| T::from_i128(start.to_i128() + step as i128 * i as i128).unwrap()).collect();
                    let written = lwc::encode_segment(&values, None, lwc::Encoding::Sequence).unwrap();
                    let rebuilt = lwc::sequence_segment::<T>(rows as u32, start, max);
                    assert_eq!(rebuilt.as_deref(), Some(written.as_bytes()), "{start:?} step {step} rows {rows}");
                }
            }
        }
        let (lo, hi) = (T::MIN, T::MAX);
        assert!(lwc::sequence_segment::<T>(0, lo, lo).is_none());
        assert!(lwc::sequence_segment::<T>(1, lo, hi).is_none(), "one row spans no range");
        assert!(lwc::sequence_segment::<T>(2, hi, lo).is_none(), "min above max");
        assert!(lwc::sequence_segment::<T>(3, T::from_i128(0).unwrap(), T::from_i128(3).unwrap()).is_none());
    }
    check::<u8>(&[0, 7, 250], &[0, 1, 3]);
    check::<i8>(&[-128, -5, 100], &[0, 1, 2]);
    check::<u16>(&[0, 65_000], &[0, 1, 7]);
    check::<i16>(&[i16::MIN, -300], &[0, 1, 5]);
    check::<u32>(&[0, 1_000_000, u32::MAX - 10], &[0, 1, 3, 65_537]);
    check::<i32>(&[i32::MIN, -7, 7], &[0, 1, 3, 65_537]);
    check::<u64>(&[0, 1 << 40, u64::MAX - 100], &[0, 1, 5, 1 << 30]);
    check::<i64>(&[i64::MIN, -1, 1 << 50], &[0, 1, 9, 1 << 40]);
}
