//! Round trips, sorted walks and estimates of `delta`, at several strides and shapes.

use super::*;
use crate::bytes::AlignedBytes;
use crate::column::{EncodeOptions, EncodedColumn};
use crate::encodings::encode_stream;

fn encode<T: LwcInt>(values: &[T], cascade: &str) -> AlignedBytes {
    let mut w = Writer::new();
    encode_stream(values, &cascade.parse().unwrap(), Default::default(), &mut w).unwrap();
    w.into_aligned()
}

fn open<'a, T: LwcInt>(bytes: &'a [u8], n: usize) -> Result<StreamView<'a, T>> {
    let mut r = Reader::new(bytes);
    let view = StreamView::open(&mut r, n)?;
    r.finish("delta stream")?;
    Ok(view)
}

/// Every operation of the delta stream of `values` against the values themselves.
fn check<T: LwcInt>(values: &[T], cascade: &str) {
    let n = values.len();
    let what = format!("{} {cascade}, {n} values", T::TYPE);
    let bytes = encode(values, cascade);
    let view = open::<T>(&bytes, n).unwrap();
    assert_eq!(view.encoding(), crate::EncodingId::Delta, "{what}");
    assert_eq!(view.cascade().to_string().split('(').next(), cascade.split('(').next(), "{what}");

    let mut all = vec![T::default(); n];
    view.decode_into(0, &mut all);
    assert_eq!(all, values, "{what}: decode");
    let edges = [0, 1, 15, 16, 17, 63, 64, 65, 1023, 1024, 1025, n / 2, n.saturating_sub(1)];
    for &start in edges.iter().filter(|&&s| s < n) {
        for len in [1, 2, 17, 1000, 3000] {
            let len = len.min(n - start);
            let mut out = vec![T::default(); len];
            view.decode_into(start, &mut out);
            assert_eq!(out, &values[start..start + len], "{what}: decode {start}+{len}");
        }
    }
    for (i, &v) in values.iter().enumerate().step_by(1 + n / 3000) {
        assert_eq!(view.get(i), v, "{what}: get {i}");
    }

    let mut x = n as u64 ^ 0x9E37_79B9_7F4A_7C15;
    let mut random = |k: usize| -> Vec<u32> {
        (0..k)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % n.max(1) as u64) as u32
            })
            .collect()
    };
    for k in [1, 5, SORT_FROM, 200, 5000] {
        if n == 0 {
            break;
        }
        let mut positions = random(k);
        let mut out = vec![T::default(); k];
        view.take_into(&positions, &mut out);
        let expect: Vec<T> = positions.iter().map(|&p| values[p as usize]).collect();
        assert_eq!(out, expect, "{what}: take {k}");
        positions.sort_unstable();
        view.take_sorted_into(&positions, &mut out);
        let expect: Vec<T> = positions.iter().map(|&p| values[p as usize]).collect();
        assert_eq!(out, expect, "{what}: take {k} sorted");
    }

    // Sorted lists that turn sparse and dense: rows at every place in their strides (the data point,
    // either side of the middle, where a seek turns to the next data point, the end), a dense run, and
    // the last rows, where no data point follows.
    let mut placed: Vec<u32> = (0..n as u32).filter(|p| [0, 1, 7, 8, 9, 31, 32, 33, 63].contains(&(p % 64)) && p / 64 % 3 == 0).collect();
    placed.extend((n as u32 / 2..n as u32 / 2 + 300).filter(|&p| p < n as u32));
    placed.extend(n.saturating_sub(3) as u32..n as u32);
    placed.sort_unstable();
    placed.dedup();
    let mut out = vec![T::default(); placed.len()];
    view.take_sorted_into(&placed, &mut out);
    let expect: Vec<T> = placed.iter().map(|&p| values[p as usize]).collect();
    assert_eq!(out, expect, "{what}: take placed rows");

    let mut constants: Vec<T> = vec![T::MIN, T::MAX];
    constants.extend(values.iter().step_by(1 + n / 7).copied());
    constants.extend(values.iter().step_by(1 + n / 5).map(|&v| T::add_offset(v, T::Unsigned::from_u64(1))));
    for &lo in &constants {
        for &hi in constants.iter().filter(|&&hi| hi >= lo) {
            let mut bits = Bitmap::new_clear(n);
            view.filter_range(lo, hi, &mut bits);
            let expect: Vec<bool> = values.iter().map(|v| lo <= *v && *v <= hi).collect();
            assert_eq!(bits, Bitmap::from_bools(&expect), "{what}: filter {lo:?}..={hi:?}");
        }
    }
    let mut set: Vec<T> = constants.clone();
    set.sort_unstable();
    set.dedup();
    let mut bits = Bitmap::new_clear(n);
    view.filter_in(&set, &mut bits);
    let expect: Vec<bool> = values.iter().map(|v| set.binary_search(v).is_ok()).collect();
    assert_eq!(bits, Bitmap::from_bools(&expect), "{what}: filter in");

    assert_eq!(view.sum(), values.iter().map(|v| v.to_i128()).sum::<i128>(), "{what}: sum");
    let picked: Vec<u32> = (0..n as u32).filter(|p| p % 7 == 0 || (p / 3000) % 2 == 1).collect();
    let expect = SumMinMax::of(&picked.iter().map(|&p| values[p as usize]).collect::<Vec<_>>());
    assert_eq!(view.aggregate(&Selection::Positions(picked.clone())), expect, "{what}: aggregate positions");
    let bitmap = Selection::Bitmap(Bitmap::from_positions(&picked, n));
    assert_eq!(view.aggregate(&bitmap), expect, "{what}: aggregate bitmap");
}

use crate::encodings::test_shapes::{l_orderkey, o_orderkey};

#[test]
fn every_operation_on_keys_at_every_stride() {
    for stride in [16, 32, 64, 128, 1024, 65_536] {
        let name = format!("delta:{stride}");
        let cascade = if stride == DEFAULT_STRIDE { "delta" } else { &name };
        check(&o_orderkey(5000), cascade);
        check(&l_orderkey(5000), cascade);
        let descending: Vec<i32> = l_orderkey(3000).iter().map(|&k| -(k as i32)).collect();
        check(&descending, cascade);
    }
    // Steps that need 9-20 and 33-40 bits: wider than the deltas summed eight to a load.
    let mut x = 7u64;
    let mut step = |bits: u32| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x >> (64 - bits)
    };
    let mut running_sum = |bits: std::ops::Range<u32>| -> Vec<u64> {
        let mut acc = 0;
        (0..5000u32).map(|i| { acc += step(bits.start + i % bits.len() as u32); acc }).collect()
    };
    let (mid, wide) = (running_sum(9..21), running_sum(33..41));
    for cascade in ["delta:16", "delta:64", "delta"] {
        check(&mid, cascade);
        check(&wide, cascade);
    }
    // Dictionaries of steps summed as their codes are (evenly spaced: two entries, or 3, 5, 7 from a
    // negative start; two far apart), from the counts of their codes' bits (three or four entries, one
    // far; l_orderkey's below, in `for` codes over a base), and decoded (five entries).
    let steps = |choices: &[u64]| -> Vec<i64> {
        let mut acc = -(1i64 << 62);
        (0..5000u64).map(|i| { acc += choices[(i * 7 + i / 3) as usize % choices.len()] as i64; acc }).collect()
    };
    for choices in [&[3, 5, 7][..], &[1, 1 << 40], &[1, 2, 4], &[1, 2, 4, 9], &[0, 1 << 40, 3], &[1, 2, 4, 9, 20]] {
        check(&steps(choices), "delta:16(dict)");
        check(&steps(choices), "delta(dict(bitpack))");
    }
    check(&l_orderkey(5000), "delta:16(dict, for)");
    check(&o_orderkey(5000), "delta(dict(bitpack))");
    check(&o_orderkey(5000), "delta(auto, auto)");
}

/// A rank finds its row by summing windows and runs of deltas, on from the data point before it or back
/// from the one after, whichever it lies nearer, and walking the last run value by value: every value of
/// a column of keys, and the values either side of it, rank as a search of the values says, at strides
/// shorter and longer than a window, whatever the row's place in its stride, window and run, and for
/// keys below zero too.
#[test]
fn ranks_agree_with_a_search_at_every_row() {
    fn check<T>(keys: &[T], one: T)
    where
        T: LwcInt + std::fmt::Display + std::ops::Add<Output = T> + std::ops::Sub<Output = T>,
    {
        for stride in ["delta:16", "delta:256", "delta", "delta:4096", "delta:65536", "delta(dict)"] {
            let bytes = encode(keys, stride);
            let view = open::<T>(&bytes, keys.len()).unwrap();
            for &v in keys {
                for probe in [v - one, v, v + one] {
                    let expect = keys.partition_point(|&k| k <= probe);
                    assert_eq!(view.rank(probe), expect, "{stride}: rank of {probe}");
                }
            }
            assert_eq!(view.rank(T::MIN), 0, "{stride}: below every value");
            assert_eq!(view.rank(T::MAX), keys.len(), "{stride}: above every value");
        }
    }
    let keys: Vec<u32> = l_orderkey(9000);
    check(&keys, 1);
    check(&keys.iter().map(|&k| i64::from(k) - 20_000).collect::<Vec<_>>(), 1);
}

#[test]
fn extremes_wrap_exactly() {
    let mut swings: Vec<i64> = (0..3000).map(|i| if i % 3 == 0 { i64::MIN } else { i64::MAX - i }).collect();
    check(&swings, "delta:16");
    swings.sort_unstable();
    check(&swings, "delta:16");
    let extremes = [u64::MIN, u64::MAX, 0, u64::MAX, 1, u64::MAX - 1];
    check(&extremes.repeat(50), "delta:16");
    check(&[i8::MIN, i8::MAX, i8::MIN, 0, i8::MAX].repeat(40), "delta:64");
    let wrapping: Vec<u8> = (0..2000u32).map(|i| (i * 3) as u8).collect();
    check(&wrapping, "delta:16");
    check(&[u16::MAX, u16::MAX, u16::MAX], "delta");
    check(&[i32::MIN, 0, i32::MAX], "delta:65536");
}

#[test]
fn strides_longer_than_the_data_and_tiny_data() {
    check::<u32>(&[], "delta");
    check(&[7u32], "delta");
    check(&[7u32, 3], "delta:16");
    for n in [15, 16, 17, 33] {
        check(&o_orderkey(n), "delta:16");
        check(&l_orderkey(n).iter().map(|&k| k as i16).rev().collect::<Vec<_>>(), "delta:65536");
    }
}

#[test]
fn estimates_are_the_encoded_size() {
    for values in [o_orderkey(10_000), l_orderkey(10_000), l_orderkey(777).into_iter().rev().collect()] {
        for stride in [16, 1024] {
            let estimate = crate::encodings::estimate_stream(&values, Encoding::Delta { stride }).unwrap();
            assert_eq!(estimate + 1, encode(&values, &format!("delta:{stride}")).len());
        }
    }
}

#[test]
fn bad_strides_and_flags_are_rejected() {
    let values = o_orderkey(100);
    for stride in [0, 8, 24, 1 << 17] {
        let mut w = Writer::new();
        let cascade = Encoding::Delta { stride }.into();
        assert!(
            matches!(encode_stream(&values, &cascade, Default::default(), &mut w), Err(Error::InvalidArgument(_))),
            "{stride}"
        );
    }
    let bytes = encode(&values, "delta:16").to_vec();
    for (at, byte) in [(1, 8u8), (2, 1), (1, 17), (5, 2), (5, 0x81)] {
        let mut bad = bytes.clone();
        bad[at] = byte;
        let bad = AlignedBytes::copy_from(&bad);
        assert!(matches!(open::<u32>(&bad, 100), Err(Error::Corrupt(_))), "byte {at} = {byte}");
    }
    let truncated = AlignedBytes::copy_from(&bytes[..bytes.len() - 1]);
    assert!(open::<u32>(&truncated, 100).is_err());
    assert!(open::<u32>(&AlignedBytes::copy_from(&bytes), 101).is_err(), "children hold 100 values");
}

#[test]
fn views_stay_send_and_sync() {
    fn send_sync<V: Send + Sync>() {}
    send_sync::<DeltaView<'static, i64>>();
    send_sync::<crate::Segment<'static, u8>>();
}

/// o_orderkey at TPC-H scale factor 1 (1,500,000 keys) in 65,536-row segments stays within 200 KB with
/// its deltas (two distinct steps, 1 and 25) in a dictionary.
#[test]
fn o_orderkey_at_sf1_fits_200_kb() {
    let keys = o_orderkey(1_500_000);
    let cascade: Cascade = "delta(dict)".parse().unwrap();
    let column = EncodedColumn::encode(&keys, None, EncodeOptions::with_encoding(cascade)).unwrap();
    let bytes = column.as_bytes().len();
    assert!(bytes <= 200_000, "{bytes} bytes");
    let open = column.open::<u32>().unwrap();
    assert_eq!(open.get(1_234_567).unwrap(), Some(keys[1_234_567]));
}

/// On a sample, the jump where two runs from far-apart rows meet is taken as the delta before it.
#[test]
fn a_samples_seams_are_no_deltas() {
    let sample = [10u32, 11, 13, 5_000, 5_001, 5_003];
    assert_eq!(Parts::of(&sample, 1024).deltas, [1, 1, 2, 4_987, 1, 2]);
    assert_eq!(Parts::of_sample(&sample, 1024, &[3]).deltas, [1, 1, 2, 2, 1, 2]);
    // Seams outside the sample, or at its first row, change nothing.
    assert_eq!(Parts::of_sample(&sample, 1024, &[0, 6]).deltas, Parts::of(&sample, 1024).deltas);
    // Runs of one row show no delta: each jump after one seen inside a run takes it (the first jump, with
    // none before it, stands), and row 0's copies the first seen.
    assert_eq!(Parts::of_sample(&sample, 1024, &[1, 3, 4]).deltas, [2, 1, 2, 2, 2, 2]);
    // Where no run holds two rows, the jumps are all there is.
    let scattered = [700u32, 20, 9_000, 35];
    assert_eq!(Parts::of_sample(&scattered, 1024, &[1, 2, 3]).deltas, Parts::of(&scattered, 1024).deltas);
}

/// A dense list in no order is sorted and walked by `delta`'s own take, and priced so: at stride 16, a
/// tenth of a segment's rows (l_orderkey's share of a 10 % take) cost 2.9x the segment's decode and a
/// gather when their plan priced them as gets and the take sorted them (Intel Xeon). Such a list is
/// decoded and gathered from; a short one is read by gets, a sparse one at a long stride sorted.
#[test]
fn dense_unsorted_takes_are_priced_as_sorted() {
    use crate::encodings::stream::TakePlan;
    let keys = o_orderkey(65_536);
    let mut x = 7u64;
    let mut random = |k: usize| -> Vec<u32> {
        (0..k)
            .map(|_| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (x >> 33) as u32 % 65_536
            })
            .collect()
    };
    let cases = [(16, 6_500, true, TakePlan::Decode), (16, 40, false, TakePlan::Gets), (1024, 60, true, TakePlan::Gets)];
    for (stride, k, sorts, plan) in cases {
        let bytes = encode(&keys, &format!("delta:{stride}"));
        let view = open::<u32>(&bytes, keys.len()).unwrap();
        let StreamView::Delta(delta) = &view else { panic!("a delta stream") };
        assert_eq!(delta.sorts(k), sorts, "stride {stride}, {k} positions");
        assert_eq!(view.take_plan(k), plan, "stride {stride}, {k} positions");
        let positions = random(k);
        let mut out = vec![0; k];
        view.take_into(&positions, &mut out);
        assert!(out.iter().zip(&positions).all(|(&o, &p)| o == keys[p as usize]), "stride {stride}, {k} positions");
    }
}

/// A sparse sorted list is walked where its rows are read near their data points, up to the longest
/// stride read so: priced as walks of half a stride a position, 700 positions of a segment at stride 128
/// were decoded and picked from (o_orderkey's 1 % match vector then took 1.35-1.43x its time with every
/// segment walked, Intel Xeon).
/// Past that stride, or where the positions are dense, the span is decoded.
#[test]
fn sparse_sorted_takes_near_data_points_are_walked() {
    let keys = o_orderkey(65_536);
    let max = crate::kernels::prefix::NEAR_POINTS_MAX_STRIDE;
    for (stride, k, walked) in [(16, 700, true), (max, 700, true), (max, 30_000, false), (max * 2, 700, false)] {
        let bytes = encode(&keys, &format!("delta:{stride}"));
        let view = open::<u32>(&bytes, keys.len()).unwrap();
        let StreamView::Delta(delta) = &view else { panic!("a delta stream") };
        assert_eq!(delta.near_point_loads().is_some(), stride <= max, "stride {stride}");
        let positions: Vec<u32> = (0..k as u32).map(|i| (i as u64 * 65_536 / k as u64) as u32).collect();
        let span = (positions[k - 1] - positions[0]) as usize + 1;
        assert_eq!(view.sorted_take_cost(k, span) < view.decode_cost(span), walked, "stride {stride}, {k} positions");
        let mut out = vec![0; k];
        view.take_sorted_into(&positions, &mut out);
        assert!(out.iter().zip(&positions).all(|(&o, &p)| o == keys[p as usize]), "stride {stride}, {k} positions");
    }
}

/// A sparse sorted walk is priced by how it reads the children: in place as frames, about 10 ns a
/// position and 0.09 ns a row passed; through their dispatch (deltas under `gcd`), about 20 ns a
/// position. Priced before at 32 decoded values a position either way, 1,024 sorted positions of a
/// segment of o_orderkey over `delta(gcd(bitpack), for)` were walked in 1.9x the time of a decode and
/// a gather; and 256 over `delta(for, for)`, each row passed priced as a decoded one, were decoded where
/// a walk took 0.6x the time (`take_bound` example, AMD EPYC Zen 5).
#[test]
fn sparse_sorted_walks_are_priced_by_how_they_read_the_children() {
    let keys = o_orderkey(65_536);
    let cases = [("delta(for, for)", 256, true), ("delta(for, for)", 1024, false)];
    let dispatched = [("delta(gcd(bitpack), for)", 256, true), ("delta(gcd(bitpack), for)", 1024, false)];
    for (cascade, k, walked) in cases.into_iter().chain(dispatched) {
        let bytes = encode(&keys, cascade);
        let view = open::<u32>(&bytes, keys.len()).unwrap();
        assert_eq!(view.cascade().to_string(), cascade);
        let positions: Vec<u32> = (0..k as u32).map(|i| (i as u64 * 65_536 / k as u64) as u32 + i % 5).collect();
        let span = (positions[k - 1] - positions[0]) as usize + 1;
        assert_eq!(view.sorted_take_cost(k, span) < view.decode_cost(span), walked, "{cascade}, {k} positions");
        let mut out = vec![0; k];
        view.take_sorted_into(&positions, &mut out);
        assert!(out.iter().zip(&positions).all(|(&o, &p)| o == keys[p as usize]), "{cascade}, {k} positions");
    }
}
