//! Byte-string segments against a plain `Vec<Option<Vec<u8>>>`: every byte-string encoding (and `auto`),
//! with child streams left to the selector or forced, over strings shaped like real ones (few distinct,
//! all distinct, empty, long, non-ASCII, binary with 0x00 and 0xFF, sorted), with nulls in runs, all null,
//! one row, none. Every read (get, decode ranges, take in any order) and every filter (comparisons, sets,
//! prefixes, nulls) agrees with the reference; so do min and max.

use lwc::strings::{
    encode_bytes_segment, encode_bytes_segment_after, BytesPredicate, BytesSegment, BytesType, ZONE_BYTES,
};
use lwc::{Bitmap, Cascade, EncodeOptions, Encoding, Error, Predicate};
use proptest::prelude::*;

fn shaped(shape: u8, n: usize, seed: u64) -> Vec<Vec<u8>> {
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let words: [&[u8]; 10] =
        [b"MAIL", b"SHIP", b"AIR", b"", "naïve".as_bytes(), b"\x00\xff", b"REG AIR", b"MAIL2", b"MAIL\0", b"\0"];
    (0..n)
        .map(|i| match shape % 5 {
            0 => words[(next() % words.len() as u64) as usize].to_vec(),
            1 => format!("row-{i}-{}", next() % 1000).into_bytes(),
            2 => (0..(next() % 200) as usize).map(|_| (next() % 256) as u8).collect(),
            3 => format!("{:08}", i / 3).into_bytes(),
            _ => {
                let mut long = vec![b'x'; ZONE_BYTES + (next() % 10) as usize];
                long.push((next() % 4) as u8);
                long
            }
        })
        .collect()
}

/// `auto`, every registered byte-string encoding at its defaults, and a few with their children given.
fn cascades() -> Vec<Cascade> {
    let mut all: Vec<Cascade> = vec![Encoding::Auto.into()];
    all.extend(lwc::EncodingId::BYTES.iter().map(|&id| Cascade::from(Encoding::from(id))));
    all.extend([
        Cascade::with_children(Encoding::BytesDict, [Encoding::For, Encoding::Rle]).unwrap(),
        Cascade::with_children(Encoding::BytesPlain, [Encoding::DELTA]).unwrap(),
        Cascade::with_children(Encoding::BytesFsst, [Encoding::Varint]).unwrap(),
        // Ends whose gets walk: what the `size` objective picks for text.
        Cascade::with_children(Encoding::BytesZstd, [Encoding::DELTA]).unwrap(),
    ]);
    all
}

fn check(rows: &[Option<Vec<u8>>], cascade: &Cascade, what: &str) {
    let values: Vec<&[u8]> = rows.iter().map(|r| r.as_deref().unwrap_or(b"")).collect();
    let validity = rows
        .iter()
        .any(Option::is_none)
        .then(|| Bitmap::from_bools(&rows.iter().map(Option::is_some).collect::<Vec<_>>()));
    let encoded = match encode_bytes_segment(&values, validity.as_ref(), BytesType::Binary, cascade.clone()) {
        Ok(e) => e,
        // A dictionary of strings that are nearly all distinct is refused.
        Err(Error::NotApplicable { .. })
            if matches!(cascade.encoding(), Encoding::BytesDict | Encoding::BytesDictFsst) =>
        {
            return
        }
        Err(e) => panic!("{what}: {e}"),
    };
    assert_eq!(encoded.min(), rows.iter().flatten().min(), "{what}: the zone's min");
    assert_eq!(encoded.max(), rows.iter().flatten().max(), "{what}: the zone's max");
    let segment = BytesSegment::open(&encoded).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(segment.rows(), rows.len());
    assert_eq!(segment.decode_all().to_options(), rows, "{what}: decode");
    for (i, want) in rows.iter().enumerate() {
        assert_eq!(segment.get(i).unwrap().as_deref(), want.as_deref(), "{what}: get({i})");
    }
    let n = rows.len();
    for range in [0..n, n / 3..n / 2, n.saturating_sub(1)..n] {
        assert_eq!(
            segment.decode(range.clone()).unwrap().to_options(),
            rows[range.clone()].to_vec(),
            "{what}: {range:?}"
        );
    }
    let unsorted: Vec<u32> = (0..n as u32).rev().step_by(3).chain((0..n as u32).step_by(5)).collect();
    // Ascending with repeats, row 0 first: the ends are then taken by their sorted walks.
    let mut sorted = unsorted.clone();
    sorted.sort_unstable();
    for positions in [unsorted, sorted] {
        let taken = segment.take(&positions).unwrap().to_options();
        assert!(positions.iter().zip(&taken).all(|(&p, t)| *t == rows[p as usize]), "{what}: take {positions:?}");
    }
    assert!(matches!(segment.take(&[n as u32]), Err(Error::RowOutOfRange { .. })));

    let mut constants: Vec<Vec<u8>> = rows.iter().flatten().step_by(11).take(5).cloned().collect();
    constants.extend([
        b"".to_vec(),
        b"M".to_vec(),
        b"MAIL".to_vec(),
        b"zzzz".to_vec(),
        vec![b'x'; ZONE_BYTES],
        vec![0xff; 3],
    ]);
    let mut predicates: Vec<BytesPredicate> = vec![Predicate::IsNull.into(), Predicate::IsNotNull.into()];
    for c in &constants {
        predicates.extend([
            Predicate::Eq(c.clone()).into(),
            Predicate::NotEq(c.clone()).into(),
            Predicate::Lt(c.clone()).into(),
            Predicate::LtEq(c.clone()).into(),
            Predicate::Gt(c.clone()).into(),
            Predicate::GtEq(c.clone()).into(),
            Predicate::Between(b"A".to_vec(), c.clone()).into(),
            Predicate::In(vec![c.clone(), b"SHIP".to_vec(), c.clone()]).into(),
            BytesPredicate::StartsWith(c.iter().copied().take(2).collect()),
            BytesPredicate::StartsWith(c.clone()),
        ]);
    }
    for p in &predicates {
        let got = segment.filter(p).to_positions();
        let want: Vec<u32> = (0..n as u32).filter(|&i| p.matches(rows[i as usize].as_deref())).collect();
        assert_eq!(got, want, "{what}: filter {p:?}");
        let agg = segment.aggregate(Some(&segment.filter(p))).unwrap();
        let picked: Vec<&Vec<u8>> = want.iter().filter_map(|&i| rows[i as usize].as_ref()).collect();
        assert_eq!(agg.count as usize, picked.len(), "{what}: count of {p:?}");
        assert_eq!(agg.min.as_ref(), picked.iter().min().copied(), "{what}: min of {p:?}");
        assert_eq!(agg.max.as_ref(), picked.iter().max().copied(), "{what}: max of {p:?}");
    }
    let all = segment.aggregate(None).unwrap();
    assert_eq!(all.null_count as usize, rows.iter().filter(|r| r.is_none()).count(), "{what}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn byte_strings_answer_like_a_plain_vector(
        shape in 0u8..5,
        n in prop_oneof![0usize..5, 5usize..300, 4_000usize..6_000],
        nulls in 0u8..4,
        seed: u64,
    ) {
        let values = shaped(shape, n, seed);
        let rows: Vec<Option<Vec<u8>>> = values
            .into_iter()
            .enumerate()
            .map(|(i, v)| match nulls {
                0 => Some(v),
                1 => (i % 7 != 3).then_some(v),
                2 => ((i / 50) % 3 != 1).then_some(v),
                _ => None,
            })
            .collect();
        for cascade in cascades() {
            check(&rows, &cascade, &format!("{cascade}, shape {shape}, {n} rows, nulls {nulls}"));
        }
    }
}

/// Few distinct values become a dictionary on their own; distinct text is compressed by FSST; random bytes
/// stay plain; all read back.
#[test]
fn auto_picks_a_dictionary_for_few_values_fsst_for_text_and_plain_for_noise() {
    let few: Vec<Vec<u8>> = shaped(0, 65_536, 1);
    let distinct: Vec<Vec<u8>> = shaped(1, 65_536, 2);
    let noise: Vec<Vec<u8>> = shaped(2, 65_536, 3);
    for (values, want) in [(few, "dict"), (distinct, "fsst"), (noise, "plain")] {
        let rows: Vec<&[u8]> = values.iter().map(Vec::as_slice).collect();
        let encoded = encode_bytes_segment(&rows, None, BytesType::Utf8, EncodeOptions::default().explained()).unwrap();
        assert_eq!(encoded.cascade().encoding().id().unwrap().name(), want, "{}", encoded.explain().unwrap());
        let segment = BytesSegment::open(&encoded).unwrap();
        assert_eq!(segment.bytes_type(), BytesType::Utf8);
        assert_eq!(segment.get(40_000).unwrap().as_deref(), Some(rows[40_000]));
    }
}

/// A segment keeps the cascade its column chose before while it writes about as small (no candidate
/// estimated: no FSST table trained for a dictionary column), and chooses afresh where that cascade no
/// longer applies (distinct rows after a dictionary) or writes 10 % larger, or for another string type;
/// every segment reads back.
#[test]
fn byte_segments_keep_the_choice_before_while_it_fits() {
    let encode = |values: &[Vec<u8>], kind, previous| {
        let rows: Vec<&[u8]> = values.iter().map(Vec::as_slice).collect();
        let options = EncodeOptions::default().explained();
        let encoded = encode_bytes_segment_after(&rows, None, kind, options, previous).unwrap();
        let decoded = BytesSegment::open(&encoded).unwrap().decode_all().to_options();
        assert_eq!(decoded, values.iter().map(|r| Some(r.clone())).collect::<Vec<_>>());
        encoded
    };
    let few = encode(&shaped(0, 65_536, 1), BytesType::Utf8, None);
    assert_eq!(few.choice().map(|c| c.kept()), Some(0));
    let kept = encode(&shaped(0, 65_536, 2), BytesType::Utf8, few.choice());
    assert_eq!(kept.cascade(), few.cascade());
    assert_eq!(kept.choice().unwrap().kept(), 1);
    let explain = kept.explain().unwrap();
    assert!(explain.reason.starts_with("kept the cascade chosen 1 segments before (on utf8 strings)"), "{explain}");
    assert!(explain.candidates.is_empty() && explain.choose_ns == 0);
    // Distinct text after a dictionary: chosen again, as FSST.
    let text = encode(&shaped(1, 65_536, 3), BytesType::Utf8, kept.choice());
    assert_eq!(text.cascade().encoding().id().unwrap().name(), "fsst");
    assert_eq!(text.choice().unwrap().kept(), 0);
    // Another type, or a forced cascade: never kept.
    let binary = encode(&shaped(0, 65_536, 4), BytesType::Binary, few.choice());
    assert_eq!(binary.choice().unwrap().kept(), 0);
    // Text keeps FSST and compresses with the table the chooser trained; noise after it does not fit.
    let more_text = encode(&shaped(1, 65_536, 7), BytesType::Utf8, text.choice());
    assert_eq!(more_text.cascade(), text.cascade());
    let reason = &more_text.explain().unwrap().reason;
    assert!(
        reason.starts_with("kept the cascade chosen 1 segments before (on utf8 strings, with its FSST table)"),
        "{reason}"
    );
    let noise = encode(&shaped(2, 65_536, 8), BytesType::Utf8, more_text.choice());
    assert_eq!(noise.cascade().encoding().id().unwrap().name(), "plain");
    assert_eq!(noise.choice().unwrap().kept(), 0);
    // A dictionary that still applies but writes far larger (a third of the rows distinct): chosen again.
    let many = encode(&shaped(3, 65_536, 6), BytesType::Utf8, kept.choice());
    assert_eq!(many.choice().unwrap().kept(), 0);
    assert!(!many.explain().unwrap().reason.starts_with("kept"));
    let values = shaped(0, 1_000, 5);
    let rows: Vec<&[u8]> = values.iter().map(Vec::as_slice).collect();
    let forced = encode_bytes_segment_after(&rows, None, BytesType::Utf8, Encoding::BytesPlain, few.choice()).unwrap();
    assert_eq!(forced.cascade().encoding().id().unwrap().name(), "plain");
    assert!(forced.choice().is_none());
}

/// A dictionary filters by codes: `x = 'SHIP'` over 65,536 rows compares bit-packed codes.
#[test]
fn dictionary_filters_run_on_codes() {
    let values = shaped(0, 65_536, 3);
    let rows: Vec<&[u8]> = values.iter().map(Vec::as_slice).collect();
    let encoded = encode_bytes_segment(&rows, None, BytesType::Utf8, Encoding::BytesDict).unwrap();
    assert_eq!(encoded.cascade().to_string(), "dict(for_n, bitpack)");
    let segment = BytesSegment::open(&encoded).unwrap();
    let ship = segment.filter(&Predicate::Eq(b"SHIP".to_vec()).into());
    assert_eq!(ship.count(), rows.iter().filter(|r| **r == b"SHIP").count());
    let mail = segment.filter(&BytesPredicate::StartsWith(b"MAIL".to_vec()));
    assert_eq!(mail.count(), rows.iter().filter(|r| r.starts_with(b"MAIL")).count());
}
