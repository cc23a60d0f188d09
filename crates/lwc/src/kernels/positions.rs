//! Passes over position lists that run before a take: the largest position (the bounds check), whether
//! the list ascends (the sorted fast path) and whether it is dense somewhere (decode a block instead of
//! reading values one by one).
//!
//! Each pass folds without early exits so it vectorizes; AVX2 builds are dispatched at run time because
//! baseline x86-64 has no unsigned 32-bit max or compare, and its emulation costs three times as much.

with_avx2! {
    /// The largest position (`None` when empty) and whether the positions ascend, in one pass: chunks
    /// are folded without early exits, and order stops being tracked at the first chunk that breaks it.
    pub fn max_and_sorted(positions: &[u32]) -> (Option<u32>, bool) {
        const CHUNK: usize = 256;
        let (mut max, mut sorted, mut prev) = (0u32, true, 0u32);
        for chunk in positions.chunks(CHUNK) {
            max = chunk.iter().fold(max, |m, &p| m.max(p));
            if sorted {
                let inside = chunk.iter().zip(&chunk[1..]).fold(true, |acc, (a, b)| acc & (a <= b));
                sorted = inside && prev <= chunk[0];
                prev = chunk[chunk.len() - 1];
            }
        }
        ((!positions.is_empty()).then_some(max), sorted)
    }
}

with_avx2! {
    /// The largest position (0 when empty).
    pub fn max_position(positions: &[u32]) -> u32 {
        // Eight independent maxima fill one vector register without a reduction per step.
        let mut acc = [0u32; 8];
        let mut parts = positions.chunks_exact(8);
        for p in &mut parts {
            for (a, &v) in acc.iter_mut().zip(p) {
                *a = (*a).max(v);
            }
        }
        let rest = parts.remainder().iter().copied().max().unwrap_or(0);
        acc.into_iter().max().unwrap_or(0).max(rest)
    }
}

with_avx2! {
    /// Whether some aligned block of `block` positions (a power of two) holds at least `count >= 1` of
    /// these ascending positions: position `k` and position `k + count - 1` share a block.
    pub fn has_dense_block(positions: &[u32], block: u32, count: usize) -> bool {
        debug_assert!(block.is_power_of_two() && count >= 1);
        let shift = block.trailing_zeros();
        if let (Some(&first), Some(&last)) = (positions.first(), positions.last()) {
            // Pigeonhole: more positions than the blocks they span can hold at `count - 1` each.
            let spanned = ((last >> shift) - (first >> shift)) as usize + 1;
            if positions.len() > spanned.saturating_mul(count - 1) {
                return true;
            }
        }
        // Any `count` positions in one block hold an aligned run of `half` in that block too: runs at
        // multiples of `half` are looked at first, so a list dense nowhere costs one compare per `half`
        // positions instead of one per position (6 % of a sparse sorted take from `for_n` before, Intel Xeon).
        let half = (count / 2).max(1);
        let runs = positions.chunks_exact(half);
        if !runs.fold(false, |any, run| any | (run[0] >> shift == run[half - 1] >> shift)) {
            return false;
        }
        let far = positions.get(count - 1..).unwrap_or_default();
        positions.iter().zip(far).fold(false, |any, (&a, &b)| any | (a >> shift == b >> shift))
    }
}

/// `rows` read as `u32` positions where they are `u32` already (`None` for any other type), so a caller
/// hands them on as they are instead of copying them: a copy of 10^6 row ids cost a quarter of a take
/// from one segment that decodes it and gathers.
pub fn as_u32<R: 'static>(rows: &[R]) -> Option<&[u32]> {
    if std::any::TypeId::of::<R>() != std::any::TypeId::of::<u32>() {
        return None;
    }
    // SAFETY: `R` is `u32`, so `rows` is a slice of `u32` of the same length and lifetime.
    Some(unsafe { std::slice::from_raw_parts(rows.as_ptr().cast::<u32>(), rows.len()) })
}

/// Rows whose order is checked at once by [`rebase_ascending`], after the first [`REBASE_HEAD`] one by one.
const REBASE_CHUNK: usize = 256;
const REBASE_HEAD: usize = 8;

with_avx2! {
    /// Appends `row - start` to `local` for the leading `rows` that ascend (repeats allowed) from `start` and
    /// lie below `end`, and returns how many: a column's rows in one segment, found, checked and made
    /// segment-local. The first few rows are looked at one at a time; then the rows below `end` are found by
    /// galloping (exact where they ascend), their order checked a chunk at a time without a branch on each row
    /// (a fold the compiler vectorizes; an exit per row would not be), and the chunk that breaks it gone
    /// through one row at a time (its 64-bit compares take AVX2: baseline x86-64 has none). `end - start`
    /// fits in `u32`.
    pub fn rebase_ascending[R: Copy + Into<u64>](rows: &[R], start: u64, end: u64, local: &mut Vec<u32>) -> usize {
        debug_assert!(start <= end && end - start <= 1 << 32);
        // Rows out of order mostly are so from the first few on: those are looked at one at a time first,
        // so such a list costs neither a gallop nor a chunk.
        let mut prev = start;
        for (k, &row) in rows.iter().take(REBASE_HEAD).enumerate() {
            let row = row.into();
            if row < prev || row >= end {
                local.extend(rows[..k].iter().map(|&r| (r.into() - start) as u32));
                return k;
            }
            prev = row;
        }
        let below = leading(rows, |r| r.into() < end);
        let (mut good, mut prev) = (0, start);
        for (c, chunk) in rows[..below].chunks(REBASE_CHUNK).enumerate() {
            let (first, last) = (chunk[0].into(), chunk[chunk.len() - 1].into());
            // Each row against the one before it, the first chunk's first against `prev`: a whole chunk
            // then makes a whole number of vectors of pairs, with no scalar tail (as `windows(2)` left).
            let from = (c * REBASE_CHUNK).saturating_sub(1);
            let pairs = rows[from..c * REBASE_CHUNK + chunk.len() - 1].iter().zip(&rows[from + 1..]);
            // Ascending from `prev >= start` to a last row below `end`: every row lies in the segment.
            let inside = pairs.fold(prev <= first && last < end, |ok, (&a, &b)| ok & (a.into() <= b.into()));
            if !inside {
                for &row in chunk {
                    let row = row.into();
                    if row < prev || row >= end {
                        break;
                    }
                    local.push((row - start) as u32);
                    (prev, good) = (row, good + 1);
                }
                break;
            }
            // Rebased while the chunk is in L1.
            local.extend(chunk.iter().map(|&r| (r.into() - start) as u32));
            (prev, good) = (last, good + chunk.len());
        }
        good
    }
}

/// Ends compared with a row at once by [`runs_of_rows`].
pub const RUN_WINDOW: usize = 64;

with_avx2! {
    /// The runs of ascending `rows` among the ends of runs `first ..` (ascending, `held` of them, then
    /// [`RUN_WINDOW`] ends of `u32::MAX` that no row reaches), going on from `ends[from]`: `out[k]` is
    /// `first` plus the count of ends at or before `rows[k]`, until a row lies past the last end held.
    /// Returns how many rows were placed and the index in `ends` the walk stands at.
    ///
    /// The ends are counted a window at a time, without a branch on each (they ascend, so those counted
    /// are the first of the window): runs of a few rows are passed with one exit to predict per window,
    /// and a wide window's compares do not wait on each other.
    pub fn runs_of_rows(ends: &[u32], held: usize, first: usize, from: usize, rows: &[u32], out: &mut [u32]) -> (usize, usize) {
        debug_assert!(ends.len() >= held + RUN_WINDOW && ends[held..].iter().all(|&e| e == u32::MAX));
        let mut next = from;
        for (k, (&row, o)) in rows.iter().zip(out.iter_mut()).enumerate() {
            let bound = row.min(u32::MAX - 1);
            loop {
                let window: &[u32; RUN_WINDOW] = ends[next..next + RUN_WINDOW].try_into().expect("padded");
                let before = window.iter().map(|&end| u32::from(end <= bound)).sum::<u32>() as usize;
                next += before;
                if before < RUN_WINDOW {
                    break;
                }
            }
            if next >= held {
                return (k, next);
            }
            *o = (first + next) as u32;
        }
        (rows.len(), next)
    }
}

/// How many leading `items` satisfy `pred`, which holds for a prefix of them: found by galloping from the
/// front (1, 2, 4, … items, then a bisection of the last step), so a short prefix of a long list costs
/// a few probes near its start instead of a bisection of the whole list.
pub fn leading<R: Copy>(items: &[R], pred: impl Fn(R) -> bool) -> usize {
    let mut end = 1;
    while end <= items.len() && pred(items[end - 1]) {
        end *= 2;
    }
    let start = end / 2;
    let end = end.min(items.len() + 1) - 1;
    start + items[start..end].partition_point(|&r| pred(r))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_and_sorted_across_chunk_edges() {
        assert_eq!(max_and_sorted(&[]), (None, true));
        assert_eq!(max_and_sorted(&[7]), (Some(7), true));
        let up: Vec<u32> = (0..1000).collect();
        assert_eq!(max_and_sorted(&up), (Some(999), true));
        let mut edge = up.clone();
        edge.swap(255, 256); // the break sits exactly between two chunks
        assert_eq!(max_and_sorted(&edge), (Some(999), false));
        let mut inner = up.clone();
        inner.swap(600, 601);
        assert_eq!(max_and_sorted(&inner), (Some(999), false));
        assert_eq!(max_and_sorted(&[3, 3, 3]), (Some(3), true));
    }

    #[test]
    fn rebase_ascending_stops_at_the_first_row_out_of_order_or_out_of_the_segment() {
        // The leading rows that ascend from `start` and lie below `end`, one at a time.
        let expected = |rows: &[u64], start: u64, end: u64| {
            let mut prev = start;
            rows.iter().take_while(|&&r| (r >= prev && r < end, prev = r).0).count()
        };
        let (start, end) = (1_000u64, 5_000u64);
        let up: Vec<u64> = (0..2_000).map(|i| start + i * 2).collect();
        let mut cases = vec![up.clone(), vec![start], vec![end - 1, end - 1, end], vec![start; 300]];
        for at in [1, 15, 16, 255, 256, 257, 511, 1_999] {
            let mut descent = up.clone();
            descent[at] = descent[at - 1] - 1; // a descent (the gallop does not see it) inside a chunk or at its edge
            cases.push(descent);
            let mut outside = up.clone();
            outside[at] = end + 7; // past the segment, then back inside: as if unsorted
            cases.push(outside);
            // Ascending into the next segment, which starts inside a chunk, at its edge, or on a repeat.
            let leaving: Vec<u64> = (0..2_500).map(|i| if i < at as u64 { start + i } else { end + i }).collect();
            cases.push(leaving.clone());
            // Past the segment for one row, then back inside for one.
            let mut bounce = leaving.clone();
            bounce[at + 1] = start + at as u64 + 1;
            cases.push(bounce);
            let mut repeat = leaving;
            repeat[at - 1] = repeat[at.saturating_sub(2)];
            cases.push(repeat);
        }
        cases.push(vec![start, start + 3, start - 1]); // back below the segment
        cases.push(vec![start + 5, (1 << 32) + start + 6, start + 9]); // would alias if cut to 32 bits first
        for rows in &cases {
            let mut local = vec![7]; // appended to
            let n = rebase_ascending(rows, start, end, &mut local);
            assert_eq!(n, expected(rows, start, end), "{:?}", &rows[..rows.len().min(8)]);
            let rebased: Vec<u32> = rows[..n].iter().map(|&r| (r - start) as u32).collect();
            assert_eq!(local[1..], rebased[..]);
            let narrow: Vec<u32> = rows.iter().map(|&r| r.min(u32::MAX as u64) as u32).collect();
            if rows.iter().all(|&r| r <= u32::MAX as u64) {
                assert_eq!(rebase_ascending(&narrow, start, end, &mut Vec::new()), n);
            }
        }
    }

    #[test]
    fn runs_of_rows_count_the_ends_at_or_before_each_row() {
        // Ends 3 rows apart on average, irregular, with the padding of `u32::MAX` the kernel reads past
        // them; rows that stay in a window, cross several, end exactly on an end, and pass the last.
        let ends: Vec<u32> = (1..=300u32)
            .scan(0, |end, k| {
                *end += 1 + k * k % 5;
                Some(*end)
            })
            .collect();
        let held = ends.len();
        let mut padded = ends.clone();
        padded.extend([u32::MAX; RUN_WINDOW]);
        let last = ends[held - 1];
        for (from_row, step) in [(0, 1), (0, 7), (5, 190), (0, 400), (last - 3, 1), (ends[100], 64)] {
            let rows: Vec<u32> = (from_row..last + 10).step_by(step as usize).collect();
            let from = ends.partition_point(|&e| e <= from_row);
            let mut out = vec![0; rows.len()];
            let (placed, next) = runs_of_rows(&padded, held, 1_000, from, &rows, &mut out);
            let expected: Vec<u32> = rows.iter().map(|&r| 1_000 + ends.partition_point(|&e| e <= r) as u32).collect();
            let inside = rows.iter().take_while(|&&r| r < last).count();
            assert_eq!(placed, inside, "from {from_row} by {step}");
            assert_eq!(out[..placed], expected[..placed], "from {from_row} by {step}");
            let stands = rows.get(placed).map_or(ends.partition_point(|&e| e <= rows[placed - 1]), |_| held);
            assert_eq!(next, stands, "from {from_row} by {step}");
        }
    }

    #[test]
    fn row_ids_read_as_u32_only_where_they_are() {
        let rows = [3u32, 0, 7];
        assert_eq!(as_u32(&rows), Some(&rows[..]));
        assert_eq!(as_u32::<u32>(&[]), Some(&[][..]));
        assert_eq!(as_u32(&[3u64, 0, 7]), None);
        assert_eq!(as_u32(&[3i32, 0, 7]), None);
    }

    #[test]
    fn leading_counts_the_prefix_at_every_length() {
        for len in 0..70u32 {
            let items: Vec<u32> = (0..len).collect();
            for bound in 0..=len + 1 {
                assert_eq!(leading(&items, |r| r < bound), bound.min(len) as usize, "len {len}, bound {bound}");
            }
        }
    }

    #[test]
    fn max_position_sees_every_lane_and_the_tail() {
        assert_eq!(max_position(&[]), 0);
        for len in [1, 7, 8, 9, 17, 100] {
            for at in 0..len {
                let mut p = vec![5u32; len];
                p[at] = u32::MAX - 1;
                assert_eq!(max_position(&p), u32::MAX - 1, "len {len}, max at {at}");
            }
        }
    }

    #[test]
    fn dense_blocks_are_found_only_where_they_are() {
        let sparse: Vec<u32> = (0..100).map(|k| k * 64).collect();
        assert!(!has_dense_block(&sparse, 1024, 17));
        assert!(has_dense_block(&sparse, 1024, 16));
        assert!(!has_dense_block(&[], 1024, 1));
        assert!(has_dense_block(&[3], 1024, 1));
        // 96 positions straddling a block edge are not dense; shifted into one block they are.
        let straddle: Vec<u32> = (0..96).map(|k| 1000 + k).collect();
        assert!(!has_dense_block(&straddle, 1024, 96));
        let inside: Vec<u32> = (0..96).map(|k| 1024 + k).collect();
        assert!(has_dense_block(&inside, 1024, 96));
        // Many repeats of few positions: dense by counting alone.
        assert!(has_dense_block(&[5; 200], 1024, 96));
        assert!(!has_dense_block(&[5; 95], 1024, 96));
    }

    #[test]
    fn dense_blocks_agree_with_counting_every_block() {
        // Sparse lists with one cluster of every size around `count` at random offsets in its block, so
        // the look at aligned runs first neither misses a dense block nor invents one.
        let naive = |p: &[u32], block: u32, count: usize| {
            p.chunk_by(|a, b| a / block == b / block).any(|same_block| same_block.len() >= count)
        };
        let mut rng = crate::stats::SplitMix(5);
        for count in [1, 2, 3, 7, 16, 17, 256] {
            for _ in 0..200 {
                let cluster = (count + rng.below(5)).saturating_sub(2);
                let at = 4096 + rng.below(2048) as u32;
                let mut p: Vec<u32> = (0..rng.below(300)).map(|_| rng.below(1 << 16) as u32).collect();
                p.extend((0..cluster as u32).map(|k| at + k * rng.below(3) as u32));
                p.sort_unstable();
                assert_eq!(has_dense_block(&p, 1024, count), naive(&p, 1024, count), "count {count}: {p:?}");
            }
        }
    }
}
