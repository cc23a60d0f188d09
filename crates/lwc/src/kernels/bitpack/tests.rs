//! Round trips at every width and word, both decode paths, plans and their reach.

use super::*;

fn round_trip<U: Word>(values: &[U], w: u32) {
    let mut packed = vec![0xAAu8; 3]; // an odd start: the layout needs no alignment
    pack(values, w, &mut packed);
    let packed = &packed[3..];
    assert_eq!(packed.len(), packed_len(values.len(), w));
    let mut out = vec![U::ZERO; values.len()];
    unpack_range(packed, values.len(), w, U::ZERO, 0, &mut out);
    assert_eq!(out, values, "w={w}");
    if w > 0 {
        for (i, &v) in values.iter().enumerate() {
            assert_eq!(get(packed, w, U::low_mask(w), i), v, "get {i} w={w}");
        }
        let positions: Vec<u32> = (0..values.len() as u32).rev().collect();
        let mut gathered = vec![U::ZERO; values.len()];
        gather(packed, values.len(), w, U::ZERO, &positions, &mut gathered);
        assert!(gathered.iter().rev().eq(values.iter()), "gather w={w}");
    }
    for (start, len) in [(1, 1030), (3, 5), (1023, 2), (1000, 1500), (2047, 1), (7, 9)] {
        if start + len <= values.len() {
            let mut part = vec![U::ZERO; len];
            unpack_range(packed, values.len(), w, U::ZERO, start, &mut part);
            assert_eq!(part, &values[start..start + len], "w={w} {start}+{len}");
        }
    }
}

/// The AVX2 gather kernel whatever the CPU's vendor (the dispatch takes it for some words on Intel
/// alone), where the CPU has AVX2 and the kernel covers this word and width; `None` elsewhere.
fn hardware_gather<U: Word>(source: GatherSource<'_, U>, positions: &[u32]) -> Option<Vec<U>> {
    #[cfg(target_arch = "x86_64")]
    if crate::kernels::cpu::avx2() {
        let mut got = vec![U::ZERO; positions.len()];
        // SAFETY: AVX2 is present; callers pass a whole stream of `n` values at `w >= 1`, positions below
        // `n` and a reference for each.
        if unsafe { x86::gather(source, positions, &mut got, true) } {
            return Some(got);
        }
    }
    None
}

/// Every decoding path against the others at width `w`: the dispatched `unpack_range` (AVX2 where
/// the CPU has it), the scalar group decoder, `get`, the scalar and dispatched `gather`, and
/// `gather_via_decode`, with a base that wraps, over odd starts and lengths.
fn paths_agree<U: Word>(values: &[U], w: u32) {
    let n = values.len();
    let mut buf = vec![0x55u8; 5];
    pack(values, w, &mut buf);
    // An exact-length slice at an odd address: any read past the padding would panic or fail.
    let packed = &buf[5..];
    let base = U::MAX; // wraps every nonzero value
    let expect: Vec<U> = values.iter().map(|&v| v.wrapping_add(base)).collect();
    if w > 0 && n >= 8 {
        // The scalar group decoder, also on CPUs where `unpack_range` takes the AVX2 path.
        let groups = n / 8 * 8;
        let mut scalar = vec![U::ZERO; groups];
        unpack_groups_generic(packed, w, base, &mut scalar);
        assert_eq!(scalar, expect[..groups], "scalar groups w={w}");
        let mut dispatched = vec![U::ZERO; groups];
        unpack_groups(packed, w, base, &mut dispatched);
        assert_eq!(dispatched, expect[..groups], "dispatched groups w={w}");
    }
    for start in [0, 1, 3, 7, 8, 9, 61] {
        for len in [0, 1, 7, 9, 15, 17, 31, 33, 63, 100, 257] {
            let len = len.min(n.saturating_sub(start));
            if start + len > n {
                continue;
            }
            let mut part = vec![U::ZERO; len];
            unpack_range(packed, n, w, base, start, &mut part);
            assert_eq!(part, expect[start..start + len], "w={w} {start}+{len}");
        }
        // Up to the very last value.
        if start <= n {
            let mut part = vec![U::ZERO; n - start];
            unpack_range(packed, n, w, base, start, &mut part);
            assert_eq!(part, expect[start..], "w={w} {start}..");
        }
    }
    if w == 0 || n == 0 {
        return;
    }
    let mask = U::low_mask(w);
    assert_eq!(get(packed, w, mask, 0), values[0]);
    assert_eq!(get(packed, w, mask, n - 1), values[n - 1]);
    // Positions with repeats, the first and the last, over a thousand of them.
    let positions: Vec<u32> = (0..1037u32)
        .map(|k| match k % 5 {
            0 => 0,
            1 => n as u32 - 1,
            _ => k.wrapping_mul(2_654_435_761) % n as u32,
        })
        .collect();
    let want: Vec<U> = positions.iter().map(|&i| expect[i as usize]).collect();
    let mut got = vec![U::ZERO; positions.len()];
    gather(packed, n, w, base, &positions, &mut got);
    assert_eq!(got, want, "gather w={w}");
    got.fill(U::ZERO);
    let one_base = GatherSource { packed, n, w, references: &[base], shift: u32::MAX };
    // SAFETY: width in range, `packed` is a whole stream of `n` values, equal lengths, positions `< n`.
    unsafe { gather_generic(one_base, &positions, &mut got) };
    assert_eq!(got, want, "scalar gather w={w}");
    if let Some(got) = hardware_gather(one_base, &positions) {
        assert_eq!(got, want, "hardware gather w={w}");
    }
    // With a reference per block of 8 (each block's reference is `base` plus its index).
    let references: Vec<U> = (0..n.div_ceil(8) as u64).map(|b| base.wrapping_add(U::from_u64(b))).collect();
    let want_blocks: Vec<U> =
        positions.iter().map(|&i| values[i as usize].wrapping_add(references[i as usize / 8])).collect();
    got.fill(U::ZERO);
    gather_block_offsets(packed, n, w, &references, 8, &positions, &mut got);
    assert_eq!(got, want_blocks, "gather with references w={w}");
    got.fill(U::ZERO);
    let blocks = GatherSource { packed, n, w, references: &references, shift: 3 };
    // SAFETY: as above, and `references` covers every block.
    unsafe { gather_generic(blocks, &positions, &mut got) };
    assert_eq!(got, want_blocks, "scalar gather with references w={w}");
    if let Some(got) = hardware_gather(blocks, &positions) {
        assert_eq!(got, want_blocks, "hardware gather with references w={w}");
    }
    got.fill(U::ZERO);
    let mut scratch = Vec::new();
    gather_via_decode(packed, n, w, base, &positions, &mut got, &mut scratch);
    assert_eq!(got, want, "gather via decode w={w}");
}

#[test]
fn all_paths_agree_for_every_width_of_every_word() {
    fn run<U: Word>() {
        for w in 0..=U::BITS {
            for n in [1, 7, 8, 9, 31, 32, 33, 64 + 7, 200, 1024 + 9] {
                let values: Vec<U> = (0..n as u64)
                    .map(|i| U::from_u64(i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17)))
                    .map(|v| v & U::low_mask(w))
                    .collect();
                paths_agree(&values, w);
            }
            // All ones: every bit of every value set, including each value's top byte.
            paths_agree(&[U::low_mask(w); 77], w);
        }
    }
    run::<u8>();
    run::<u16>();
    crate::kernels::on_every_path(run::<u32>);
    crate::kernels::on_every_path(run::<u64>);
}

#[cfg(target_arch = "x86_64")]
#[test]
fn simd_tables_stay_inside_their_halves() {
    use x86::{BROADCAST, NARROW, PERMUTE, PERMUTE_WIDE, SINGLE, WIDE};
    for w in 1..=32 {
        let plan = x86::Plan32::new(w); // asserts every index lies in its 16-byte half
        let (mode, vbmi_mode) = plan.modes();
        for m in [mode, vbmi_mode] {
            assert!(plan.reach_in(m) <= w as usize + PADDING, "w={w} mode={m}");
        }
        // Groups at their first value: the widths each mode serves (fifth bytes only at 26..=31,
        // where a value can start at bit `33 - w` or above of its first byte).
        let want = match w {
            1..=4 => (BROADCAST, BROADCAST),
            5..=14 => (SINGLE, SINGLE),
            _ if mode == WIDE => (WIDE, PERMUTE_WIDE),
            _ => (NARROW, PERMUTE),
        };
        assert_eq!((mode, vbmi_mode), want, "w={w}");
        assert!(mode != WIDE || (26..=31).contains(&w), "w={w}");
    }
    for w in 1..=56 {
        let plan = x86::Plan64::new(w);
        assert!(plan.reach() <= w as usize + PADDING);
    }
}

/// `u32` decoding into outputs at every offset from a 32-byte boundary, from every start within a
/// group, at every width: the aligned runs (whatever their start in their group), the values one
/// at a time around them, and the group path where no plan fits.
#[test]
fn u32_decodes_at_every_output_alignment_and_start() {
    crate::kernels::on_every_path(u32_decodes_at_every_output_alignment_and_start_on_this_path);
}

fn u32_decodes_at_every_output_alignment_and_start_on_this_path() {
    for w in 1..=32 {
        let n = 300;
        let values: Vec<u32> =
            (0..n as u64).map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 17) as u32 & u32::low_mask(w)).collect();
        let mut buf = vec![0x55u8; 1];
        pack(&values, w, &mut buf);
        let packed = &buf[1..]; // exact length at an odd address
        let mut out = vec![0u32; n + 16];
        let aligned = (out.as_ptr() as usize).wrapping_neg() % 32 / 4;
        for base in [0, u32::MAX - 2] {
            for offset in 0..8 {
                let at = aligned + offset;
                for start in 0..9 {
                    for len in [0, 1, 7, 8, 9, 15, 16, 17, 23, 24, 69, n - start] {
                        let dst = &mut out[at..at + len];
                        unpack_range(packed, n, w, base, start, dst);
                        let want = values[start..start + len].iter().map(|v| v.wrapping_add(base));
                        assert!(dst.iter().copied().eq(want), "w={w} offset={offset} start={start} len={len}");
                    }
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn most_run_starts_have_a_plan() {
    // Phase 0 fits every width (`Plan32::new` panics otherwise); a later start can push a wide
    // value's bytes past its half, and those fall back to group-aligned runs.
    for w in 1..=32 {
        x86::Plan32::new(w);
        for first in 0..8 {
            let plan = x86::Plan32::starting_at(w, first);
            assert!(plan.is_some() || w >= 26, "w={w} first={first}");
            // A run's reads end within the padding after its group's bytes, in either mode.
            if let Some(p) = plan {
                let (mode, vbmi_mode) = p.modes();
                for m in [mode, vbmi_mode] {
                    assert!(p.skip() + p.reach_in(m) <= w as usize + PADDING, "w={w} first={first} mode={m}");
                }
                // The permute modes fit every run that has a plan up to width 30.
                let one_load = [x86::SINGLE, x86::BROADCAST].contains(&mode);
                assert!(
                    w > 30 || one_load || [x86::PERMUTE, x86::PERMUTE_WIDE].contains(&vbmi_mode),
                    "w={w} first={first}"
                );
                // Broadcast exactly where the run's 8 values lie in the 4 bytes from its first byte.
                let s0 = first * w % 8;
                assert_eq!(mode == x86::BROADCAST, s0 + 8 * w <= 32, "w={w} first={first}");
            }
        }
    }
}

#[test]
#[should_panic(expected = "out of range")]
fn gather_rejects_a_bad_position_in_a_later_chunk() {
    let values = vec![1u32; 2000];
    let mut packed = Vec::new();
    pack(&values, 5, &mut packed);
    let mut positions = vec![3u32; 1500];
    positions[1400] = 2000;
    let mut out = vec![0u32; 1500];
    gather(&packed, 2000, 5, 0, &positions, &mut out);
}

/// The scalar gather reads a position past the end as the last value and returns the largest position, so
/// its caller rejects the list after one pass without reading out of bounds.
#[test]
fn scalar_gather_clamps_positions_past_the_end_and_reports_them() {
    let values: Vec<u64> = (0..100).collect();
    let mut packed = Vec::new();
    pack(&values, 7, &mut packed);
    let mut out = [0u64; 3];
    let source = GatherSource { packed: &packed, n: 100, w: 7, references: &[0u64], shift: u32::MAX };
    // SAFETY: a whole stream of 100 values at width 7, one reference, equal lengths.
    let largest = unsafe { gather_generic(source, &[5, u32::MAX, 99], &mut out) };
    assert_eq!((largest, out), (u32::MAX, [5, 99, 99]));
}

#[test]
#[should_panic(expected = "position 64 out of range for 64 values")]
fn gather_with_references_rejects_positions_past_the_end() {
    let mut packed = Vec::new();
    pack(&[1u64; 64], 3, &mut packed);
    let mut out = [0u64; 2];
    gather_block_offsets(&packed, 64, 3, &[7u64], 64, &[0, 64], &mut out);
}

#[test]
fn decode_first_crossover() {
    assert!(!decode_first_pays(65_536, 1000));
    assert!(decode_first_pays(65_536, 1_000_000));
}

fn check_type<U: Word>() {
    for w in 0..=U::BITS {
        for n in [0, 1, 5, 8, 1023, 1024, 1025, 2048 + 77] {
            let values: Vec<U> =
                (0..n).map(|i| U::from_u64((i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)) & U::low_mask(w)).collect();
            round_trip(&values, w);
        }
        round_trip(&[U::low_mask(w); 1500], w);
    }
}

#[test]
fn every_width_of_every_word_round_trips() {
    check_type::<u8>();
    check_type::<u16>();
    crate::kernels::on_every_path(check_type::<u32>);
    check_type::<u64>();
}

#[test]
#[should_panic(expected = "out of range")]
fn gather_rejects_positions_past_the_end() {
    let mut packed = Vec::new();
    pack(&[1u32, 2, 3], 2, &mut packed);
    let mut out = [0u32; 1];
    gather(&packed, 3, 2, 0, &[3], &mut out);
}

#[test]
fn packed_ref_checks_once_and_reads_every_value() {
    for w in [0u32, 1, 31, 32] {
        let values: Vec<u32> = (0..1000u32).map(|i| i.wrapping_mul(2_654_435_761) & u32::low_mask(w)).collect();
        let mut packed = Vec::new();
        pack(&values, w, &mut packed);
        assert!(PackedRef::<u32>::new(&packed[..packed.len().saturating_sub(1)], 1000, w).is_none() || w == 0);
        let r = PackedRef::<u32>::new(&packed, 1000, w).unwrap();
        assert!(values.iter().enumerate().all(|(i, &v)| r.get(i) == v));
    }
    for w in [57u32, 64] {
        let values: Vec<u64> = (0..100u64).map(|i| u64::MAX - i).map(|v| v & u64::low_mask(w)).collect();
        let mut packed = Vec::new();
        pack(&values, w, &mut packed);
        let r = PackedRef::<u64>::new(&packed, 100, w).unwrap();
        assert_eq!(r.get(99), values[99]);
    }
    assert!(PackedRef::<u8>::new(&[0; 64], 1, 9).is_none());
}

#[test]
#[should_panic(expected = "out of range")]
fn packed_ref_rejects_reads_past_the_end() {
    let mut packed = Vec::new();
    pack(&[1u16, 2, 3], 2, &mut packed);
    PackedRef::<u16>::new(&packed, 3, 2).unwrap().get(3);
}

#[test]
fn base_is_added_wrapping() {
    let values = vec![0u32, 1, 2, 3, 0, 1, 2, 3, 3];
    let mut packed = Vec::new();
    pack(&values, 2, &mut packed);
    let mut out = vec![0u32; 9];
    unpack_range(&packed, 9, 2, u32::MAX, 0, &mut out);
    assert_eq!(out, vec![u32::MAX, 0, 1, 2, u32::MAX, 0, 1, 2, 2]);
}

/// The layout written one bit at a time: field `i` at bits `i * w ..` of a little-endian stream.
fn pack_bit_by_bit<U: Word>(values: &[U], base: U, w: u32) -> Vec<u8> {
    let mut out = vec![0u8; packed_len(values.len(), w)];
    for (i, &v) in values.iter().enumerate() {
        let field = v.wrapping_sub(base).to_u64();
        for b in 0..w as usize {
            if field >> b & 1 == 1 {
                let bit = i * w as usize + b;
                out[bit / 8] |= 1 << (bit % 8);
            }
        }
    }
    out
}

/// `pack_offsets` (whole blocks, the padded last block, both dispatch paths) writes the layout bit for
/// bit, drops the bits above the width, and leaves the padding zero.
fn pack_matches_layout<U: Word>() {
    let mut rng = crate::stats::SplitMix(U::BITS as u64);
    for w in 0..=U::BITS {
        for n in [0, 1, 7, 63, 64, 65, 128, 200] {
            // Values with bits above `w` too: packing must drop them.
            let values: Vec<U> = (0..n).map(|_| U::from_u64(rng.next())).collect();
            for base in [U::ZERO, U::from_u64(rng.next())] {
                let mut packed = vec![0xEEu8; 1];
                pack_offsets(&values, base, w, &mut packed);
                assert_eq!(packed[1..], pack_bit_by_bit(&values, base, w), "w={w} n={n}");
                if w > 0 && n >= 8 {
                    let whole = n / 8 * 8;
                    let mut scalar = vec![0u8; whole / 8 * w as usize + 8];
                    pack_groups_generic(&values[..whole], &[base], u32::MAX, w, &mut scalar);
                    scalar.truncate(whole / 8 * w as usize);
                    assert_eq!(scalar, packed[1..1 + scalar.len()], "scalar path w={w} n={n}");
                }
            }
        }
    }
}

#[test]
fn pack_writes_the_layout_for_every_word_and_width() {
    pack_matches_layout::<u8>();
    pack_matches_layout::<u16>();
    pack_matches_layout::<u32>();
    pack_matches_layout::<u64>();
}

/// for_n's values gathered in one pass (field and reference together) equal the residuals gathered and
/// their references added, for blocks from one value to larger than the stream, `u32` and `u64`.
#[test]
fn gather_block_offsets_adds_each_position_its_block_reference() {
    fn run<U: Word>() {
        let mut rng = crate::stats::SplitMix(5);
        for block in [1, 2, 64, 1024, 4096] {
            for n in [1usize, 9, 64, 65, 3001] {
                for w in [1, 7, 25, 26, U::BITS] {
                    let residuals: Vec<U> = (0..n).map(|_| U::from_u64(rng.next()) & U::low_mask(w)).collect();
                    let references: Vec<U> = (0..n.div_ceil(block)).map(|_| U::from_u64(rng.next())).collect();
                    let mut packed = Vec::new();
                    pack(&residuals, w, &mut packed);
                    let positions: Vec<u32> = (0..1100).map(|_| (rng.next() % n as u64) as u32).collect();
                    let want: Vec<U> = positions
                        .iter()
                        .map(|&p| residuals[p as usize].wrapping_add(references[p as usize / block]))
                        .collect();
                    let mut got = vec![U::ZERO; positions.len()];
                    gather_block_offsets(&packed, n, w, &references, block, &positions, &mut got);
                    assert_eq!(got, want, "block={block} n={n} w={w}");
                    let shift = block.trailing_zeros();
                    let source = GatherSource { packed: &packed, n, w, references: &references, shift };
                    if let Some(got) = hardware_gather(source, &positions) {
                        assert_eq!(got, want, "hardware gather block={block} n={n} w={w}");
                    }
                }
            }
        }
    }
    run::<u32>();
    run::<u64>();
}

#[test]
#[should_panic(expected = "assertion failed")]
fn gather_block_offsets_rejects_missing_references() {
    let mut packed = Vec::new();
    pack(&[1u32; 130], 3, &mut packed);
    let mut out = [0u32; 1];
    gather_block_offsets(&packed, 130, 3, &[0u32, 0], 64, &[0], &mut out);
}

/// for_n's residuals, packed straight from the values with each block's reference, equal the residuals
/// computed first and packed, for blocks smaller than, equal to and larger than a packing block.
#[test]
fn pack_block_offsets_equals_residuals_packed() {
    let mut rng = crate::stats::SplitMix(3);
    for block in [1, 8, 64, 128, 1024] {
        for n in [0usize, 1, 63, 64, 65, 1000, 2049] {
            let values: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
            let references: Vec<u32> = (0..n.div_ceil(block)).map(|_| rng.next() as u32).collect();
            let residuals: Vec<u32> =
                values.iter().enumerate().map(|(i, v)| v.wrapping_sub(references[i / block])).collect();
            for w in [0, 1, 13, 32] {
                let mut direct = Vec::new();
                pack_block_offsets(&values, &references, block, w, &mut direct);
                let mut expect = Vec::new();
                pack(&residuals, w, &mut expect);
                assert_eq!(direct, expect, "block={block} n={n} w={w}");
            }
        }
    }
}

/// The 512-bit decoder on its own, at every width it takes and every first bit a run can start at,
/// with and without a base: it decodes exactly the pairs of runs whose loads stay inside the bytes.
#[cfg(target_arch = "x86_64")]
#[test]
fn the_512_bit_decoder_reads_every_width_from_every_first_bit() {
    if !x86::use_zmm() {
        return; // no 512-bit path on this CPU
    }
    let mut rng = crate::stats::SplitMix(11);
    for w in 1..=x86::ZMM_WIDTHS as usize {
        for s0 in 0..8u32 {
            let n = 100;
            let values: Vec<u32> = (0..n).map(|_| rng.next() as u32 & u32::low_mask(w as u32)).collect();
            // The values at bits `s0 + k * w`, then room for every load, or for few: the decoder stops
            // where a load would pass the end.
            for room in [64, 8] {
                let mut bytes = vec![0u8; (s0 as usize + n * w).div_ceil(8) + room];
                for (k, &v) in values.iter().enumerate() {
                    for b in 0..w {
                        let bit = s0 as usize + k * w + b;
                        bytes[bit / 8] |= (((v >> b) & 1) as u8) << (bit % 8);
                    }
                }
                for base in [0u32, u32::MAX - 5] {
                    let mut out = vec![0u32; n];
                    // SAFETY: the CPU has AVX-512 F, BW and VBMI (checked above), and `w <= ZMM_WIDTHS`.
                    let done = unsafe {
                        if base == 0 {
                            x86::unpack_u32_zmm::<false>(&bytes, w, s0, base, &mut out)
                        } else {
                            x86::unpack_u32_zmm::<true>(&bytes, w, s0, base, &mut out)
                        }
                    };
                    let fits = bytes.len().checked_sub(64).map_or(0, |r| r / (2 * w) + 1);
                    assert_eq!(done, 16 * fits.min(n / 16), "w={w} s0={s0} room={room}");
                    assert!(room == 8 || done == n / 16 * 16, "w={w} s0={s0}: every pair fits");
                    let want: Vec<u32> = values[..done].iter().map(|v| v.wrapping_add(base)).collect();
                    assert_eq!(out[..done], want, "w={w} s0={s0} base={base}");
                    assert!(out[done..].iter().all(|&o| o == 0), "nothing written past the pairs decoded");
                }
            }
        }
    }
}

/// The 512-bit `u64` decoder on its own, at every width it takes, with and without a base, on streams
/// with room for every load and with only the padding: it decodes exactly the groups whose loads fit.
#[cfg(target_arch = "x86_64")]
#[test]
fn the_512_bit_u64_decoder_reads_every_width() {
    if !x86::use_zmm() {
        return; // no 512-bit path on this CPU
    }
    let mut rng = crate::stats::SplitMix(12);
    for w in 1..=56usize {
        let n = 96;
        let values: Vec<u64> = (0..n).map(|_| rng.next() & u64::low_mask(w as u32)).collect();
        let mut packed = Vec::new();
        pack(&values, w as u32, &mut packed);
        for room in [64, 0] {
            let bytes: Vec<u8> = packed.iter().copied().chain(std::iter::repeat_n(0, room)).collect();
            for base in [0u64, u64::MAX - 5] {
                let mut out = vec![0u64; n];
                // SAFETY: the CPU has AVX-512 F, BW and VBMI (checked above), and `w <= 56`.
                let done = unsafe { x86::unpack_u64_zmm(&bytes, w, base, &mut out) };
                let fits = bytes.len().checked_sub(64).map_or(0, |r| r / w + 1);
                assert_eq!(done, 8 * fits.min(n / 8), "w={w} room={room}");
                assert!(room == 0 || done == n, "w={w}: every group fits");
                let want: Vec<u64> = values[..done].iter().map(|v| v.wrapping_add(base)).collect();
                assert_eq!(out[..done], want, "w={w} base={base}");
                assert!(out[done..].iter().all(|&o| o == 0), "nothing written past the groups decoded");
            }
        }
    }
}

/// for_n's decode (fields plus each block's reference, a chunk at a time) against one value at a time, for
/// ranges that start and end inside blocks and chunks, on every word.
#[test]
fn block_offsets_decode_as_each_value_plus_its_reference() {
    fn run<U: Word>() {
        let mut rng = crate::stats::SplitMix(5);
        let n: usize = 20_000;
        // Widths of the 512-bit `u32` path (up to 25) and past it; blocks shorter than its 16 values, as
        // long, and longer.
        for w in [0u32, 3, U::BITS / 2, U::BITS * 3 / 4 + 1, U::BITS] {
            let fields: Vec<U> = (0..n).map(|_| U::from_u64(rng.next()) & U::low_mask(w)).collect();
            let mut packed = Vec::new();
            pack(&fields, w, &mut packed);
            for shift in [3u32, 4, 5, 6, 12] {
                let references: Vec<U> = (0..n.div_ceil(1 << shift)).map(|_| U::from_u64(rng.next())).collect();
                let want: Vec<U> = (0..n).map(|i| fields[i].wrapping_add(references[i >> shift])).collect();
                // Chunks hold 32 KiB of values: 4,096 `u64`, 8,192 `u32`, 16,384 `u16`.
                for (start, len) in [
                    (0, n),
                    (1, 16_390),
                    (63, 8_193),
                    (4_095, 2),
                    (8_191, 9_000),
                    (19_999, 1),
                    (100, 0),
                    (7, 40),
                    (n - 37, 37),
                ] {
                    let mut out = vec![U::ZERO; len];
                    unpack_range_block_offsets(&packed, n, w, &references, shift, start, &mut out);
                    assert_eq!(out, want[start..start + len], "w={w} shift={shift} start={start} len={len}");
                }
            }
        }
    }
    run::<u8>();
    run::<u16>();
    crate::kernels::on_every_path(run::<u32>);
    crate::kernels::on_every_path(run::<u64>);
}

/// Whole-byte residuals widened to the word plus a base that wraps, and cut where the stored word is wider
/// (a corrupt stream's), against one value at a time.
#[test]
fn widened_offsets_are_each_residual_plus_the_base() {
    let residuals: Vec<u8> = (0..=255).chain(0..77).collect();
    let mut out = vec![0u32; residuals.len()];
    widen_offsets(&residuals, u32::MAX - 100, &mut out);
    assert!(out.iter().zip(&residuals).all(|(&o, &r)| o == (r as u32).wrapping_add(u32::MAX - 100)));
    let wide: Vec<u64> = (0..100).map(|i| (i << 40) | i).collect();
    let mut cut = vec![0u16; wide.len()];
    widen_offsets(&wide, 7, &mut cut);
    assert!(cut.iter().zip(&wide).all(|(&o, &r)| o == (r as u16).wrapping_add(7)));
}
