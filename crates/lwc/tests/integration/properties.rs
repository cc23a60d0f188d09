//! Property tests: every encoding × every operation × every integer type × many data shapes, each answer
//! checked against a plain `Vec<Option<T>>` reference model.
//!
//! Segments and columns are checked through one generic routine ([`check_view`]) over the [`View`] trait:
//! decode of random ranges, get of every row (a sample on long data), take with repeats sorted and not
//! (and long enough to take the decode-everything and decode-windows paths), filter with every predicate variant against
//! constants drawn from the data and arbitrary ones, and aggregates over all rows, over each filter's
//! selection and over caller-built selections; plus the errors for rows out of range and wrong types,
//! and the bytes → `from_bytes` → `open` round trip.

use std::collections::BTreeSet;
use std::ops::Range;

use lwc::types::Word;
use lwc::{
    encode_segment, Aggregates, AlignedBytes, Array, Bitmap, Cascade, Column, ColumnBuilder, ColumnSelection,
    EncodeOptions, EncodedColumn, Encoding, EncodingId, Error, LwcInt, Predicate, Segment, Selection, SelectionPart,
    ValueType,
};
use proptest::collection::vec;
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Cases per property and type: 8 types × 2 properties × this, each case run through every encoding.
const CASES: u32 = 32;

/// Data at most this long is checked row by row; longer data by a sample.
const EVERY_ROW_UP_TO: usize = 4096;

/// Every encoding, with `for_n` at the smallest block, a small one and the default, `delta2` at a small
/// stride and the default, `delta` at 16, 128 and the default, and cascades that put encodings under the
/// ones with child streams.
fn encodings() -> Vec<Cascade> {
    // Every registered encoding at its default parameter, from the registry (a new one is tested without
    // being named here), other parameters that change the layout, and `auto`.
    let mut leaves: Vec<Encoding> = EncodingId::ALL.into_iter().map(Encoding::from).collect();
    for extra in [
        Encoding::ForN { block: 1 },
        Encoding::ForN { block: 16 },
        Encoding::Delta2 { stride: 4 },
        Encoding::Delta { stride: 16 },
        // The longest stride whose rows are read near their data points.
        Encoding::Delta { stride: 128 },
        Encoding::Auto,
    ] {
        if !leaves.contains(&extra) {
            leaves.push(extra);
        }
    }
    let cascades = [
        "dict(for)",
        "dict(for_n:16)",
        "dict(dict(plain))",
        "dict(auto)",
        "dict(zstd)",
        "pfor(for, bitpack)",
        "pfor(plain, pfor)",
        "gcd(pfor)",
        "gcd(for_n:16)",
        "delta:64(dict, plain)",
        "dict(delta:16)",
        "rle(sequence, sequence)",
        "rle(for_n:16, delta2:8)",
        "dict(rle)",
        "rle(delta(dict), delta)",
    ];
    leaves.into_iter().map(Cascade::from).chain(cascades.iter().map(|c| c.parse().unwrap())).collect()
}

/// Whether a cascade read back from bytes is what was asked for: the same encodings where one was named
/// (not `auto`), child by child for the children named.
fn written_as(read: &Cascade, asked: &Cascade) -> bool {
    let same_top = match (read.encoding().id(), asked.encoding().id()) {
        (_, None) => true,
        (Some(_), Some(_)) => read.encoding() == asked.encoding(), // parameters included
        (None, Some(_)) => false,
    };
    same_top && asked.children().iter().zip(read.children()).all(|(a, r)| written_as(r, a))
}

/// The integer types under test: what proptest and the model need beyond `LwcInt`.
trait TestInt: LwcInt + Arbitrary + 'static {}
impl<T: LwcInt + Arbitrary + 'static> TestInt for T {}

/// `base + by`, wrapping in the type's own width.
fn offset<T: LwcInt>(base: T, by: u64) -> T {
    T::add_offset(base, T::Unsigned::from_u64(by))
}

/// `base + by`, stopping at `T::MAX`.
fn saturating_offset<T: LwcInt>(base: T, by: u64) -> T {
    if by > T::MAX.offset_from(base).to_u64() {
        T::MAX
    } else {
        offset(base, by)
    }
}

/// What the segment layer stores for `rows` (see `lwc::fill_nulls`): when the non-null values lie on one
/// line `base + row * step` that stays in the type over every row, the line; otherwise each null slot holds
/// the previous non-null value, leading ones the first. All null: zeros.
fn stored<T: LwcInt>(rows: &[Option<T>]) -> Vec<T> {
    let present: Vec<(i128, i128)> =
        rows.iter().enumerate().filter_map(|(i, r)| r.map(|v| (i as i128, v.to_i128()))).collect();
    let Some(&(_, first)) = present.first() else { return vec![T::default(); rows.len()] };
    if let [(i0, v0), (i1, v1), ..] = present[..] {
        if (v1 - v0) % (i1 - i0) == 0 {
            let step = (v1 - v0) / (i1 - i0);
            let line = |i: i128| v0 + (i - i0) * step;
            let in_type = |v: i128| (T::MIN.to_i128()..=T::MAX.to_i128()).contains(&v);
            if present.iter().all(|&(i, v)| line(i) == v) && (0..rows.len() as i128).all(|i| in_type(line(i))) {
                return (0..rows.len() as i128).map(|i| from_i128(line(i))).collect();
            }
        }
    }
    let mut last = from_i128(first);
    rows.iter()
        .map(|r| {
            if let Some(v) = r {
                last = *v;
            }
            last
        })
        .collect()
}

/// The value of `T` with the low bits of `v`.
fn from_i128<T: LwcInt>(v: i128) -> T {
    T::from_bits(<T::Unsigned as Word>::from_u64(v as u64))
}

/// The greatest common divisor of the values' differences from their minimum (0 if they are all equal).
fn common_divisor<T: LwcInt>(values: &[T]) -> u64 {
    let Some(&min) = values.iter().min() else { return 0 };
    let gcd = |mut a: u64, mut b: u64| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    values.iter().fold(0, |d, v| gcd(d, v.offset_from(min).to_u64()))
}

/// Whether `cascade` can encode `values`: the float encodings take `u32` and `u64` (float latents) only,
/// `constant` needs one distinct value, `sequence` equal steps
/// (as integers, so without wrapping), `gcd` differences with a common divisor above 1, and encodings
/// with children need children they can encode.
fn applies<T: LwcInt>(cascade: &Cascade, values: &[T]) -> bool {
    let child = |k: usize| cascade.children().get(k).cloned().unwrap_or(Cascade::new(Encoding::Auto));
    match cascade.encoding() {
        // Float latents: any `u32` or `u64` bits are a float's (`narrow`: a double's).
        Encoding::Alp | Encoding::AlpRd => matches!(T::TYPE, ValueType::U32 | ValueType::U64),
        Encoding::Narrow => T::TYPE == ValueType::U64,
        Encoding::Constant => values.windows(2).all(|w| w[0] == w[1]),
        Encoding::Gcd => common_divisor(values) > 1,
        Encoding::Sequence => {
            let step = |w: &[T]| w[1].to_i128() - w[0].to_i128();
            values.windows(2).all(|w| step(w) == step(&values[..2]))
        }
        Encoding::Rle => {
            let mut runs: Vec<(T, u32)> = Vec::new();
            for (i, &v) in values.iter().enumerate() {
                match runs.last_mut() {
                    Some((last, end)) if *last == v => *end = i as u32 + 1,
                    _ => runs.push((v, i as u32 + 1)),
                }
            }
            let (run_values, ends): (Vec<T>, Vec<u32>) = runs.into_iter().unzip();
            applies(&child(0), &run_values) && applies(&child(1), &ends)
        }
        Encoding::Dict => {
            let dictionary: Vec<T> = values.iter().copied().collect::<BTreeSet<_>>().into_iter().collect();
            let codes: Vec<u32> = values.iter().map(|v| dictionary.binary_search(v).unwrap() as u32).collect();
            applies(&child(0), &codes)
        }
        _ => true,
    }
}

// ---------------------------------------------------------------------------------------------------------
// Data.

/// One generated column: values handed to the encoder, which rows are valid, and predicate material.
#[derive(Debug, Clone)]
struct Case<T> {
    /// One value per row; null rows hold arbitrary values that must never leak out.
    values: Vec<T>,
    /// `Some(bits)` (true = not null) when a validity bitmap is passed to the encoder.
    valid: Option<Vec<bool>>,
    /// Arbitrary predicate constants.
    constants: Vec<T>,
    /// Seeds the positions, ranges and data picks of the checks.
    seed: u64,
}

impl<T: LwcInt> Case<T> {
    /// The reference model.
    fn rows(&self) -> Vec<Option<T>> {
        match &self.valid {
            None => self.values.iter().map(|&v| Some(v)).collect(),
            Some(valid) => self.values.iter().zip(valid).map(|(&v, &ok)| ok.then_some(v)).collect(),
        }
    }

    fn validity(&self) -> Option<Bitmap> {
        self.valid.as_ref().map(|v| Bitmap::from_bools(v))
    }
}

fn lengths() -> impl Strategy<Value = usize> {
    prop_oneof![3 => 0usize..=2, 8 => 3usize..300, 2 => 1000usize..2200]
}

/// `n` values in one of the shapes real columns and edge cases have.
fn shaped<T: TestInt>(n: usize) -> BoxedStrategy<Vec<T>> {
    let near = move |spread: u64| {
        (any::<T>(), vec(0..spread, n)).prop_map(|(base, o)| o.into_iter().map(|x| offset(base, x)).collect())
    };
    let extreme = prop_oneof![
        Just(T::MIN),
        Just(T::MAX),
        Just(offset(T::MIN, 1)),
        Just(offset(T::MAX, u64::MAX)),
        Just(T::default()),
        Just(offset(T::default(), u64::MAX)),
    ];
    prop_oneof![
        // Uniform over the whole range of the type.
        vec(any::<T>(), n),
        // Small ranges anywhere in the type (wrapping, so near MAX they may straddle it).
        near(16),
        near(1000),
        // Sorted.
        vec(any::<T>(), n).prop_map(|mut v| {
            v.sort_unstable();
            v
        }),
        // Keys: ascending in small steps from anywhere.
        (any::<T>(), vec(0u64..4, n)).prop_map(|(base, steps)| {
            let mut at = 0u64;
            steps
                .into_iter()
                .map(|s| {
                    at += s;
                    saturating_offset(base, at)
                })
                .collect()
        }),
        // Runs of a few distinct values.
        (any::<T>(), vec((0u64..8, 1usize..40), 1..20)).prop_map(move |(base, runs)| {
            runs.iter().flat_map(|&(v, k)| std::iter::repeat_n(offset(base, v), k)).cycle().take(n).collect()
        }),
        // Constant.
        any::<T>().prop_map(move |c| vec![c; n]),
        // Arithmetic sequences ascending or descending without wrapping, each value repeated 1 to 4 times
        // (row ids; TPC-H ps_partkey repeats each key 4 times).
        (any::<T>(), prop_oneof![0u64..4, any::<u64>()], any::<bool>(), 1usize..5).prop_map(
            move |(base, step, ascending, repeat)| {
                let room = if ascending { T::MAX.offset_from(base) } else { base.offset_from(T::MIN) }.to_u64();
                let max_step = room / (n.div_ceil(repeat).max(2) as u64 - 1);
                let step = if max_step == u64::MAX { step } else { step % (max_step + 1) };
                (0..n)
                    .map(|i| {
                        let by = (i / repeat) as u64 * step;
                        offset(base, if ascending { by } else { by.wrapping_neg() })
                    })
                    .collect()
            }
        ),
        // Multiples of a step from a base (prices in cents, quantities x100): what gcd divides out.
        (any::<T>(), prop_oneof![2u64..=6, Just(100)], vec(0u64..40, n))
            .prop_map(|(base, step, k)| k.into_iter().map(|k| offset(base, k * step)).collect()),
        // Outliers: mostly small, a few huge.
        (vec(0u64..100, n), vec((any::<prop::sample::Index>(), any::<T>()), 1..4)).prop_map(move |(small, huge)| {
            let mut v: Vec<T> = small.into_iter().map(|x| offset(T::default(), x)).collect();
            if n > 0 {
                for (at, h) in huge {
                    v[at.index(n)] = h;
                }
            }
            v
        }),
        // Extremes: MIN and MAX mixed with their neighbours, zero and all-ones.
        vec(extreme, n),
    ]
    .boxed()
}

fn validity(n: usize) -> impl Strategy<Value = Option<Vec<bool>>> {
    prop_oneof![
        4 => Just(None),
        3 => vec(prop::bool::weighted(0.8), n).prop_map(Some),
        1 => vec(prop::bool::weighted(0.1), n).prop_map(Some),
        1 => Just(Some(vec![false; n])),
    ]
}

fn case<T: TestInt>() -> impl Strategy<Value = Case<T>> {
    lengths()
        .prop_flat_map(|n| (shaped::<T>(n), validity(n), vec(any::<T>(), 3), any::<u64>()))
        .prop_map(|(values, valid, constants, seed)| Case { values, valid, constants, seed })
}

fn segment_rows() -> impl Strategy<Value = usize> {
    prop_oneof![1usize..=8, 9usize..300, Just(lwc::column::DEFAULT_SEGMENT_ROWS)]
}

// ---------------------------------------------------------------------------------------------------------
// The reference model.

fn selects<T: LwcInt>(p: &Predicate<T>, v: Option<T>) -> bool {
    match (p, v) {
        (Predicate::IsNull, v) => v.is_none(),
        (Predicate::IsNotNull, v) => v.is_some(),
        (_, None) => false,
        (Predicate::Eq(c), Some(v)) => v == *c,
        (Predicate::NotEq(c), Some(v)) => v != *c,
        (Predicate::Lt(c), Some(v)) => v < *c,
        (Predicate::LtEq(c), Some(v)) => v <= *c,
        (Predicate::Gt(c), Some(v)) => v > *c,
        (Predicate::GtEq(c), Some(v)) => v >= *c,
        (Predicate::Between(lo, hi), Some(v)) => *lo <= v && v <= *hi,
        (Predicate::In(set), Some(v)) => set.contains(&v),
    }
}

fn model_aggregate<T: LwcInt>(rows: impl IntoIterator<Item = Option<T>>) -> Aggregates<T> {
    let mut a = Aggregates::empty();
    for row in rows {
        match row {
            None => a.null_count += 1,
            Some(v) => {
                a.count += 1;
                a.sum += v.to_i128();
                a.min = Some(a.min.map_or(v, |m: T| m.min(v)));
                a.max = Some(a.max.map_or(v, |m: T| m.max(v)));
            }
        }
    }
    a
}

/// Every predicate variant, with constants from the data (and next to it), arbitrary ones and the extremes.
fn predicates<T: LwcInt>(rows: &[Option<T>], arbitrary: &[T], rng: &mut StdRng) -> Vec<Predicate<T>> {
    let present: Vec<T> = rows.iter().flatten().copied().collect();
    let pick = |rng: &mut StdRng| {
        if present.is_empty() {
            arbitrary[rng.gen_range(0..arbitrary.len())]
        } else {
            present[rng.gen_range(0..present.len())]
        }
    };
    let mut constants = vec![T::MIN, T::MAX];
    constants.extend_from_slice(arbitrary);
    let (a, b) = (pick(rng), pick(rng));
    constants.extend([a, b, offset(a, 1), offset(a, u64::MAX)]);

    let mut preds = vec![Predicate::IsNull, Predicate::IsNotNull];
    for &c in &constants {
        preds.extend([
            Predicate::Eq(c),
            Predicate::NotEq(c),
            Predicate::Lt(c),
            Predicate::LtEq(c),
            Predicate::Gt(c),
            Predicate::GtEq(c),
        ]);
    }
    let (lo, hi) = (a.min(b), a.max(b));
    let (min, max) = (present.iter().min().copied(), present.iter().max().copied());
    preds.extend([
        Predicate::Between(lo, hi),
        Predicate::Between(hi, lo),
        Predicate::Between(a, a),
        Predicate::Between(T::MIN, T::MAX),
        Predicate::Between(T::MIN, lo),
        Predicate::Between(hi, T::MAX),
        Predicate::Between(constants[2].min(constants[3]), constants[2].max(constants[3])),
    ]);
    if let (Some(min), Some(max)) = (min, max) {
        preds.extend([Predicate::Between(min, max), Predicate::Between(offset(min, 1), max)]);
    }
    preds.extend([
        Predicate::In(vec![]),
        Predicate::In(vec![a]),
        Predicate::In(vec![a, a]),
        Predicate::In(vec![b, a, arbitrary[0], T::MAX, b, T::MIN]),
        Predicate::In((0..12).map(|_| pick(rng)).collect()),
        // Sets large enough for a bitmap over their span where that is dense (a join's keys), or searched.
        Predicate::In((0..40).map(|_| pick(rng)).collect()),
        Predicate::In((0..90).map(|k| offset(a, k * 2)).collect()),
    ]);
    preds
}

// ---------------------------------------------------------------------------------------------------------
// Segments and columns behind one interface, so one routine checks both.

trait View<T: LwcInt> {
    type Sel: std::fmt::Debug;
    fn rows(&self) -> u64;
    fn get(&self, row: u64) -> lwc::Result<Option<T>>;
    fn decode(&self, range: Range<u64>) -> lwc::Result<Array<T>>;
    fn take(&self, rows: &[u64]) -> lwc::Result<Array<T>>;
    fn filter(&self, p: &Predicate<T>) -> Self::Sel;
    /// The selected row ids, after checking the selection's own invariants.
    fn selected(&self, sel: &Self::Sel, what: &str) -> Vec<u64>;
    fn aggregate(&self, sel: Option<&Self::Sel>) -> lwc::Result<Aggregates<T>>;
    fn filter_aggregate(&self, p: &Predicate<T>) -> Aggregates<T>;
    /// Selections of exactly `rows` (ascending, distinct) built by a caller, in every form.
    fn selections_of(&self, rows: &[u64]) -> Vec<Self::Sel>;
    /// Selections that reach past the end.
    fn bad_selections(&self) -> Vec<Self::Sel>;
}

fn check_selection(sel: &Selection, rows: usize, what: &str) -> Vec<u32> {
    let positions = sel.to_positions();
    match sel {
        Selection::Positions(p) => {
            assert!(p.windows(2).all(|w| w[0] < w[1]), "{what}: positions not ascending and distinct");
            assert!(p.last().is_none_or(|&l| (l as usize) < rows), "{what}: position past {rows} rows");
        }
        Selection::Bitmap(b) => assert_eq!(b.len(), rows, "{what}: bitmap length"),
    }
    assert_eq!(sel.count(), positions.len(), "{what}: count");
    assert_eq!(sel.is_empty(), positions.is_empty(), "{what}: is_empty");
    assert!(sel.iter().eq(positions.iter().copied()), "{what}: iter");
    assert_eq!(sel.to_bitmap(rows).to_positions(), positions, "{what}: to_bitmap");
    positions
}

impl<T: LwcInt> View<T> for Segment<'_, T> {
    type Sel = Selection;
    fn rows(&self) -> u64 {
        Segment::rows(self) as u64
    }
    fn get(&self, row: u64) -> lwc::Result<Option<T>> {
        Segment::get(self, row as usize)
    }
    fn decode(&self, range: Range<u64>) -> lwc::Result<Array<T>> {
        Segment::decode(self, range.start as usize..range.end as usize)
    }
    fn take(&self, rows: &[u64]) -> lwc::Result<Array<T>> {
        Segment::take(self, &rows.iter().map(|&r| r as u32).collect::<Vec<_>>())
    }
    fn filter(&self, p: &Predicate<T>) -> Selection {
        Segment::filter(self, p)
    }
    fn selected(&self, sel: &Selection, what: &str) -> Vec<u64> {
        check_selection(sel, Segment::rows(self), what).into_iter().map(u64::from).collect()
    }
    fn aggregate(&self, sel: Option<&Selection>) -> lwc::Result<Aggregates<T>> {
        Segment::aggregate(self, sel)
    }
    fn filter_aggregate(&self, p: &Predicate<T>) -> Aggregates<T> {
        Segment::filter_aggregate(self, p)
    }
    fn selections_of(&self, rows: &[u64]) -> Vec<Selection> {
        let positions: Vec<u32> = rows.iter().map(|&r| r as u32).collect();
        let bitmap = Bitmap::from_positions(&positions, Segment::rows(self));
        vec![Selection::Positions(positions), Selection::Bitmap(bitmap)]
    }
    fn bad_selections(&self) -> Vec<Selection> {
        let n = Segment::rows(self);
        vec![Selection::Positions(vec![n as u32]), Selection::Bitmap(Bitmap::new_clear(n + 1))]
    }
}

/// First row of each segment, and the row count at the end.
fn starts<T: LwcInt>(col: &Column<'_, T>) -> Vec<u64> {
    let mut starts = vec![0];
    for s in col.segments() {
        starts.push(starts.last().unwrap() + s.rows() as u64);
    }
    starts
}

impl<T: LwcInt> View<T> for Column<'_, T> {
    type Sel = ColumnSelection;
    fn rows(&self) -> u64 {
        Column::rows(self)
    }
    fn get(&self, row: u64) -> lwc::Result<Option<T>> {
        Column::get(self, row)
    }
    fn decode(&self, range: Range<u64>) -> lwc::Result<Array<T>> {
        Column::decode(self, range)
    }
    fn take(&self, rows: &[u64]) -> lwc::Result<Array<T>> {
        Column::take(self, rows)
    }
    fn filter(&self, p: &Predicate<T>) -> ColumnSelection {
        Column::filter(self, p)
    }
    fn selected(&self, sel: &ColumnSelection, what: &str) -> Vec<u64> {
        let starts = starts(self);
        assert!(sel.parts.windows(2).all(|w| w[0].segment < w[1].segment), "{what}: parts out of order");
        let mut ids = Vec::new();
        for part in &sel.parts {
            assert_eq!(part.first_row, starts[part.segment], "{what}: first_row of part {}", part.segment);
            let rows = self.segments()[part.segment].rows();
            let positions = check_selection(&part.selection, rows, what);
            assert!(!positions.is_empty(), "{what}: empty part");
            ids.extend(positions.iter().map(|&p| part.first_row + p as u64));
        }
        assert_eq!(sel.row_ids(), ids, "{what}: row_ids");
        assert_eq!(sel.count(), ids.len(), "{what}: count");
        assert_eq!(sel.is_empty(), ids.is_empty(), "{what}: is_empty");
        ids
    }
    fn aggregate(&self, sel: Option<&ColumnSelection>) -> lwc::Result<Aggregates<T>> {
        Column::aggregate(self, sel)
    }
    fn filter_aggregate(&self, p: &Predicate<T>) -> Aggregates<T> {
        Column::filter_aggregate(self, p)
    }
    fn selections_of(&self, rows: &[u64]) -> Vec<ColumnSelection> {
        let starts = starts(self);
        let mut forms = vec![ColumnSelection::default(), ColumnSelection::default()];
        for seg in 0..self.segments().len() {
            let positions: Vec<u32> = rows
                .iter()
                .filter(|&&r| starts[seg] <= r && r < starts[seg + 1])
                .map(|&r| (r - starts[seg]) as u32)
                .collect();
            if positions.is_empty() {
                continue;
            }
            let bitmap = Bitmap::from_positions(&positions, self.segments()[seg].rows());
            for (form, selection) in forms.iter_mut().zip([Selection::Positions(positions), Selection::Bitmap(bitmap)])
            {
                form.parts.push(SelectionPart { segment: seg, first_row: starts[seg], selection });
            }
        }
        forms
    }
    fn bad_selections(&self) -> Vec<ColumnSelection> {
        let part = |segment: usize, row: u32| SelectionPart {
            segment,
            first_row: 0,
            selection: Selection::Positions(vec![row]),
        };
        let mut bad = vec![ColumnSelection { parts: vec![part(self.segments().len(), 0)] }];
        if let Some(first) = self.segments().first() {
            bad.push(ColumnSelection { parts: vec![part(0, first.rows() as u32)] });
        }
        bad
    }
}

fn is_out_of_range<V>(r: &lwc::Result<V>, rows: u64) -> bool {
    matches!(r, Err(Error::RowOutOfRange { rows: r, .. }) if *r == rows)
}

/// Checks every operation of `view` against the model `rows`.
fn check_view<T: LwcInt, V: View<T>>(
    view: &V,
    rows: &[Option<T>],
    preds: &[Predicate<T>],
    rng: &mut StdRng,
    what: &str,
) {
    let n = rows.len() as u64;
    assert_eq!(view.rows(), n, "{what}: rows");

    // Decode: everything, random ranges, empty ranges.
    let all = view.decode(0..n).unwrap();
    assert_eq!(all.len(), rows.len(), "{what}: decode length");
    assert_eq!(all.to_options(), rows, "{what}: decode all");
    for _ in 0..4 {
        let (a, b) = (rng.gen_range(0..=n), rng.gen_range(0..=n));
        let (a, b) = (a.min(b), a.max(b));
        let got = view.decode(a..b).unwrap();
        assert_eq!(got.to_options(), &rows[a as usize..b as usize], "{what}: decode {a}..{b}");
    }
    assert!(view.decode(n..n).unwrap().is_empty(), "{what}: decode {n}..{n}");

    // Get: every row, or boundaries and a sample.
    if rows.len() <= EVERY_ROW_UP_TO {
        for (i, &expected) in rows.iter().enumerate() {
            assert_eq!(view.get(i as u64).unwrap(), expected, "{what}: get {i}");
        }
    } else {
        let mut sample: Vec<u64> = (0..2000).map(|_| rng.gen_range(0..n)).collect();
        sample.extend([0, n - 1, 65_535.min(n - 1), 65_536.min(n - 1)]);
        for i in sample {
            assert_eq!(view.get(i).unwrap(), rows[i as usize], "{what}: get {i}");
        }
    }

    // Take: unsorted with repeats, sorted with repeats, long enough to decode everything first, empty.
    let expect_take = |positions: &[u64]| positions.iter().map(|&p| rows[p as usize]).collect::<Vec<_>>();
    if n > 0 {
        let mut lists: Vec<Vec<u64>> = Vec::new();
        let k = rng.gen_range(1..64);
        let mut random: Vec<u64> = (0..k).map(|_| rng.gen_range(0..n)).collect();
        random.push(random[0]);
        lists.push(random.clone());
        random.sort_unstable();
        lists.push(random);
        if n <= 3000 {
            let mut many: Vec<u64> = (0..4 * n + 3).map(|_| rng.gen_range(0..n)).collect();
            lists.push(many.clone());
            many.sort_unstable();
            lists.push(many);
        }
        lists.push((0..n).rev().step_by(1 + n as usize / 500).collect());
        // Ascending and dense enough that encodings whose gets walk decode windows instead, across
        // window boundaries on long data.
        lists.push((0..n).step_by(1 + n as usize / 5000).chain([n - 1, n - 1]).collect());
        // Dense on average over what it spans (a scan's match vector), with repeats and with gaps of
        // thousands of rows: taken by decoding windows of several blocks, some holding no position.
        let mut half: Vec<u64> = (0..n).filter(|&i| (i / 3000) % 2 == 0 && rng.gen_bool(0.6)).collect();
        half.extend(half.first().copied());
        half.sort_unstable();
        lists.push(half);
        for positions in &lists {
            let got = view.take(positions).unwrap();
            assert_eq!(got.len(), positions.len(), "{what}: take length");
            assert_eq!(got.to_options(), expect_take(positions), "{what}: take {} positions", positions.len());
        }
    }
    assert!(view.take(&[]).unwrap().is_empty(), "{what}: take nothing");

    // Filter with every predicate, then aggregate what it selected.
    for p in preds {
        let sel = view.filter(p);
        let got = view.selected(&sel, &format!("{what}: filter {p:?}"));
        let expected: Vec<u64> = (0..n).filter(|&i| selects(p, rows[i as usize])).collect();
        assert_eq!(got, expected, "{what}: filter {p:?}");
        let agg = view.aggregate(Some(&sel)).unwrap();
        assert_eq!(agg, model_aggregate(expected.iter().map(|&i| rows[i as usize])), "{what}: aggregate {p:?}");
        assert_eq!(view.filter_aggregate(p), agg, "{what}: filter_aggregate {p:?}");
    }

    // Aggregates over everything and over selections a caller built (nulls included).
    assert_eq!(view.aggregate(None).unwrap(), model_aggregate(rows.iter().copied()), "{what}: aggregate all");
    let density = rng.gen_range(0.0..1.0);
    let picked: Vec<u64> = (0..n).filter(|_| rng.gen_bool(density)).collect();
    let expected = model_aggregate(picked.iter().map(|&i| rows[i as usize]));
    for sel in view.selections_of(&picked) {
        assert_eq!(view.aggregate(Some(&sel)).unwrap(), expected, "{what}: aggregate of {} picked", picked.len());
    }

    // Rows past the end are errors, never panics.
    assert!(is_out_of_range(&view.get(n), n), "{what}: get {n}");
    assert!(is_out_of_range(&view.get(u32::MAX as u64 + 7), n), "{what}: get far");
    assert!(is_out_of_range(&view.decode(0..n + 1), n), "{what}: decode past the end");
    if n > 0 {
        let (start, end) = (n, n - 1);
        assert!(is_out_of_range(&view.decode(start..end), n), "{what}: decode {start}..{end}");
    }
    assert!(is_out_of_range(&view.take(&[0, n]), n) || n == 0, "{what}: take {n}");
    assert!(is_out_of_range(&view.take(&[n]), n), "{what}: take {n}");
    // A bad row last in lists long enough to be checked as they are served: shorter than the rows, and
    // longer (served from one decode of everything).
    for len in [16, n as usize + 1] {
        let mut long: Vec<u64> = (0..len as u64).map(|i| i % n.max(1)).collect();
        *long.last_mut().expect("not empty") = n;
        assert!(is_out_of_range(&view.take(&long), n), "{what}: take {n} after {} rows", len - 1);
    }
    for bad in view.bad_selections() {
        assert!(matches!(view.aggregate(Some(&bad)), Err(Error::RowOutOfRange { .. })), "{what}: aggregate {bad:?}");
    }
}

// ---------------------------------------------------------------------------------------------------------
// Types.

/// Opening as each of the eight types: the stored type opens, every other one is a `TypeMismatch`.
fn check_wrong_types<T: LwcInt>(segment: &[u8], column: &EncodedColumn) {
    fn one<W: LwcInt, T: LwcInt>(segment: &[u8], column: &EncodedColumn) {
        let results = [Segment::<W>::open(segment).map(|_| ()), column.open::<W>().map(|_| ())];
        for r in results {
            if W::TYPE == T::TYPE {
                assert!(r.is_ok(), "{} opens as itself: {r:?}", T::TYPE);
            } else {
                let mismatch = Error::TypeMismatch { expected: W::TYPE.name(), found: T::TYPE.name() };
                assert_eq!(r, Err(mismatch), "{} opened as {}", T::TYPE, W::TYPE);
            }
        }
    }
    one::<u8, T>(segment, column);
    one::<u16, T>(segment, column);
    one::<u32, T>(segment, column);
    one::<u64, T>(segment, column);
    one::<i8, T>(segment, column);
    one::<i16, T>(segment, column);
    one::<i32, T>(segment, column);
    one::<i64, T>(segment, column);
}

// ---------------------------------------------------------------------------------------------------------
// The properties.

fn segment_case<T: TestInt>(case: &Case<T>) {
    let rows = case.rows();
    let validity = case.validity();
    let mut rng = StdRng::seed_from_u64(case.seed);
    let preds = predicates(&rows, &case.constants, &mut rng);
    for cascade in encodings() {
        let what = format!("{} segment {cascade}, {} rows", T::TYPE, rows.len());
        let encoded = encode_segment(&case.values, validity.as_ref(), cascade.clone());
        if !applies(&cascade, &stored(&rows)) {
            assert!(matches!(encoded, Err(Error::NotApplicable { .. })), "{what}: {encoded:?}");
            continue;
        }
        let bytes = encoded.unwrap_or_else(|e| panic!("{what}: {e}"));
        let segment = Segment::<T>::open(&bytes).unwrap_or_else(|e| panic!("{what}: open: {e}"));
        assert!(written_as(&segment.cascade(), &cascade), "{what}: written as {}", segment.cascade());
        assert_eq!(segment.encoded_len(), bytes.len(), "{what}");
        assert_eq!(segment.null_count(), rows.iter().filter(|r| r.is_none()).count(), "{what}: null_count");
        assert_eq!(segment.min(), rows.iter().flatten().min().copied(), "{what}: min");
        assert_eq!(segment.max(), rows.iter().flatten().max().copied(), "{what}: max");
        check_view(&segment, &rows, &preds, &mut rng, &what);
        check_segment_into(&segment, &rows, &mut rng, &what);

        // Stored and read back into fresh aligned storage: the same answers.
        let stored: Vec<u8> = bytes.to_vec();
        let reread = AlignedBytes::copy_from(&stored);
        let again = Segment::<T>::open(&reread).unwrap();
        assert_eq!(again.decode_all(), segment.decode_all(), "{what}: reopened");
        assert_eq!(again.aggregate(None), segment.aggregate(None), "{what}: reopened");
        for p in preds.iter().step_by(7) {
            assert_eq!(again.filter(p), segment.filter(p), "{what}: reopened, {p:?}");
        }
    }
}

/// The allocation-free forms, `decode_into` and `take_into`, `decode_selected`, and the raw validity words.
fn check_segment_into<T: LwcInt>(segment: &Segment<'_, T>, rows: &[Option<T>], rng: &mut StdRng, what: &str) {
    let n = rows.len();
    // Null rows hold unspecified values: compare the valid ones.
    let agree = |got: &[T], want: &[Option<T>]| got.iter().zip(want).all(|(g, w)| w.is_none_or(|w| *g == w));
    match segment.validity() {
        None => assert!(rows.iter().all(Option::is_some), "{what}: validity() missing"),
        Some(words) => {
            let valid: Vec<bool> = (0..n).map(|i| words[i / 64] >> (i % 64) & 1 == 1).collect();
            assert_eq!(valid, rows.iter().map(Option::is_some).collect::<Vec<_>>(), "{what}: validity()");
        }
    }
    for _ in 0..3 {
        let (a, b) = (rng.gen_range(0..=n), rng.gen_range(0..=n));
        let (a, b) = (a.min(b), a.max(b));
        let mut out = vec![T::default(); b - a];
        segment.decode_into(a, &mut out).unwrap();
        assert!(agree(&out, &rows[a..b]), "{what}: decode_into {a}..{b}");
    }
    // decode_selected: a random range, and selections empty, full, dense and sparse.
    let (a, b) = (rng.gen_range(0..=n), rng.gen_range(0..=n));
    let range = a.min(b)..a.max(b);
    for density in [0.0, 1.0, 0.97, 0.5, 0.05] {
        let bools: Vec<bool> = range.clone().map(|_| rng.gen_bool(density)).collect();
        let got = segment.decode_selected(range.clone(), &Bitmap::from_bools(&bools)).unwrap();
        let want: Vec<Option<T>> = range.clone().filter(|&i| bools[i - range.start]).map(|i| rows[i]).collect();
        assert_eq!(got.to_options(), want, "{what}: decode_selected {range:?} at density {density}");
    }
    let bad = Bitmap::from_bools(&vec![true; range.len() + 1]);
    assert!(matches!(segment.decode_selected(range, &bad), Err(Error::InvalidArgument(_))), "{what}");
    let mut one = [T::default(); 1];
    assert!(is_out_of_range(&segment.decode_into(n, &mut one), n as u64), "{what}: decode_into past the end");
    assert!(is_out_of_range(&segment.decode_into(usize::MAX, &mut one), n as u64), "{what}: decode_into far");
    if n > 0 {
        let mut positions: Vec<u32> = (0..rng.gen_range(1..200)).map(|_| rng.gen_range(0..n as u32)).collect();
        for sorted in [false, true] {
            if sorted {
                positions.sort_unstable();
            }
            let mut out = vec![T::default(); positions.len()];
            segment.take_into(&positions, &mut out).unwrap();
            let want: Vec<Option<T>> = positions.iter().map(|&p| rows[p as usize]).collect();
            assert!(agree(&out, &want), "{what}: take_into (sorted: {sorted})");
        }
        let mut short = vec![T::default(); positions.len() - 1];
        assert!(matches!(segment.take_into(&positions, &mut short), Err(Error::InvalidArgument(_))), "{what}");
    }
    assert!(is_out_of_range(&segment.take_into(&[n as u32], &mut one), n as u64), "{what}: take_into past the end");
}

fn column_case<T: TestInt>(case: &Case<T>, segment_rows: usize) {
    let rows = case.rows();
    let validity = case.validity();
    // Many tiny segments only on short data, to keep the run time modest.
    let segment_rows = segment_rows.max(rows.len() / 16).max(1);
    let mut rng = StdRng::seed_from_u64(case.seed);
    let preds = predicates(&rows, &case.constants, &mut rng);
    for cascade in encodings() {
        let what = format!("{} column {cascade}, {} rows in segments of {segment_rows}", T::TYPE, rows.len());
        let options = EncodeOptions { cascade: cascade.clone(), segment_rows, ..Default::default() };
        let encoded = EncodedColumn::encode(&case.values, validity.as_ref(), options.clone());
        if rows.chunks(segment_rows).any(|c| !applies(&cascade, &stored(c))) {
            assert!(matches!(encoded, Err(Error::NotApplicable { .. })), "{what}: {encoded:?}");
            continue;
        }
        let encoded = encoded.unwrap_or_else(|e| panic!("{what}: {e}"));
        let column = encoded.open::<T>().unwrap_or_else(|e| panic!("{what}: open: {e}"));
        assert_eq!(column.decode(0..rows.len() as u64).unwrap().to_options(), rows, "{what}: decode");
        let sizes: Vec<usize> = column.segments().iter().map(|s| s.rows()).collect();
        assert!(
            sizes.iter().rev().skip(1).all(|&s| s == segment_rows) && sizes.last().is_none_or(|&s| s <= segment_rows),
            "{what}: segment sizes {sizes:?}"
        );
        assert!(column.cascades().iter().all(|(c, _)| written_as(c, &cascade)), "{what}: {:?}", column.cascades());
        assert_eq!(column.encoded_len(), column.segments().iter().map(|s| s.encoded_len()).sum::<usize>());

        // Bytes out, bytes in: the full check runs on the column read back.
        let stored: Vec<u8> = encoded.as_bytes().to_vec();
        let reread = EncodedColumn::from_bytes(&stored);
        assert_eq!(reread, encoded, "{what}: from_bytes");
        assert_eq!(reread.value_type().unwrap(), T::TYPE, "{what}: value_type");
        let again = reread.open::<T>().unwrap_or_else(|e| panic!("{what}: reopen: {e}"));
        check_view(&again, &rows, &preds, &mut rng, &what);

        if cascade.encoding() == Encoding::For {
            let segment = encode_segment(&case.values, validity.as_ref(), Encoding::For).unwrap();
            check_wrong_types::<T>(&segment, &encoded);
            check_builder(case, options, &encoded);
        }
    }
}

/// A builder fed by `push` and `extend_from_slice` in arbitrary pieces writes the same bytes as `encode`.
fn check_builder<T: LwcInt>(case: &Case<T>, options: EncodeOptions, expected: &EncodedColumn) {
    let mut rng = StdRng::seed_from_u64(case.seed ^ 0xB1);
    let mut b = ColumnBuilder::<T>::new(options).unwrap();
    let rows = case.rows();
    let mut i = 0;
    while i < rows.len() {
        let k = rng.gen_range(1..=40).min(rows.len() - i);
        let piece = &rows[i..i + k];
        if piece.iter().all(Option::is_some) && rng.gen_bool(0.7) {
            b.extend_from_slice(&case.values[i..i + k]).unwrap();
        } else {
            for &r in piece {
                b.push(r).unwrap();
            }
        }
        i += k;
    }
    let built = b.finish().unwrap();
    let (col, want) = (built.open::<T>().unwrap(), expected.open::<T>().unwrap());
    assert_eq!(col.decode(0..col.rows()).unwrap().to_options(), rows, "builder");
    assert_eq!(col.decode(0..col.rows()), want.decode(0..want.rows()), "builder");
}

/// Columns of 65,535, 65,536 and 65,537 rows at the default segment size, and single segments past 2^16.
///
/// A check of 65,536 rows costs about 0.2 s in a debug build, so each type runs a third of the encodings
/// at each length, rotating with the type: across the eight types every encoding meets every length.
fn crossing_segment_boundary<T: TestInt>() {
    for (k, n) in [65_535usize, 65_536, 65_537].into_iter().enumerate() {
        let mut rng = StdRng::seed_from_u64(n as u64 * 31 + T::TYPE as u64);
        let base: T = offset(T::default(), rng.gen());
        let values: Vec<T> = (0..n)
            .map(|i| match i % 9973 {
                0 => T::MAX,
                1 => T::MIN,
                _ => offset(base, rng.gen_range(0..1000)),
            })
            .collect();
        let valid: Option<Vec<bool>> = match k {
            0 => None,
            1 => Some((0..n).map(|_| rng.gen_bool(0.9)).collect()),
            _ => Some((0..n).map(|i| i < 65_536 || i % 2 == 0).collect()),
        };
        let case =
            Case { values, valid, constants: vec![base, offset(base, 500), offset(T::MIN, rng.gen())], seed: n as u64 };
        let rows = case.rows();
        let validity = case.validity();
        let all_preds = predicates(&rows, &case.constants, &mut rng);
        let preds: Vec<Predicate<T>> = (0..6).map(|_| all_preds[rng.gen_range(0..all_preds.len())].clone()).collect();
        let turn = T::TYPE as usize + k;
        for (e, cascade) in encodings().into_iter().enumerate().filter(|(e, _)| (e + turn).is_multiple_of(3)) {
            let what = format!("{} column {cascade}, {n} rows", T::TYPE);
            let encoded =
                EncodedColumn::encode(&case.values, validity.as_ref(), EncodeOptions::with_encoding(cascade.clone()));
            if rows.chunks(lwc::column::DEFAULT_SEGMENT_ROWS).any(|c| !applies(&cascade, &stored(c))) {
                assert!(matches!(encoded, Err(Error::NotApplicable { .. })), "{what}");
                continue;
            }
            let encoded = encoded.unwrap();
            let column = encoded.open::<T>().unwrap();
            assert_eq!(column.segments().len(), n.div_ceil(65_536), "{what}: segments");
            check_view(&column, &rows, &preds, &mut rng, &what);
            if n == 65_537 && (e / 3 + turn).is_multiple_of(3) {
                let what = format!("{} segment {cascade}, {n} rows", T::TYPE);
                let bytes = encode_segment(&case.values, validity.as_ref(), cascade).unwrap();
                let segment = Segment::<T>::open(&bytes).unwrap();
                check_view(&segment, &rows, &preds[..3], &mut rng, &what);
            }
        }
    }
}

/// Empty, one-row, one-null and two-extreme segments and columns in every encoding, checked on every run
/// (regression: `dict`'s sum once computed `dictionary.len() - 1` on the empty dictionary of an empty
/// segment).
fn tiny_cases<T: TestInt>() {
    let shapes: [(Vec<T>, Option<Vec<bool>>); 5] = [
        (vec![], None),
        (vec![], Some(vec![])),
        (vec![T::MAX], None),
        (vec![T::MIN], Some(vec![false])),
        (vec![T::MIN, T::MAX], Some(vec![true, true])),
    ];
    for (seed, (values, valid)) in shapes.into_iter().enumerate() {
        let case = Case { values, valid, constants: vec![T::MIN, T::MAX, T::default()], seed: seed as u64 };
        segment_case(&case);
        column_case(&case, 1);
    }
}

macro_rules! for_each_type {
    ($($module:ident: $t:ty),* $(,)?) => {$(
        mod $module {
            use super::*;

            proptest! {
                #![proptest_config(ProptestConfig::with_cases(CASES))]

                #[test]
                fn segments_answer_like_the_model(case in case::<$t>()) {
                    segment_case(&case);
                }

                #[test]
                fn columns_answer_like_the_model(case in case::<$t>(), segment_rows in segment_rows()) {
                    column_case(&case, segment_rows);
                }
            }

            #[test]
            fn tiny_segments_and_columns() {
                tiny_cases::<$t>();
            }

            #[test]
            fn columns_cross_the_2_16_segment_boundary() {
                crossing_segment_boundary::<$t>();
            }
        }
    )*};
}

for_each_type!(
    type_u8: u8,
    type_u16: u16,
    type_u32: u32,
    type_u64: u64,
    type_i8: i8,
    type_i16: i16,
    type_i32: i32,
    type_i64: i64,
);

// ---------------------------------------------------------------------------------------------------------
// Arguments.

#[test]
fn invalid_arguments_are_errors() {
    let values = [1u32, 2, 3];
    let invalid = |r: lwc::Result<EncodedColumn>| matches!(r, Err(Error::InvalidArgument(_)));
    assert!(invalid(EncodedColumn::encode(
        &values,
        None,
        EncodeOptions { cascade: Encoding::For.into(), segment_rows: 0, ..Default::default() }
    )));
    assert!(invalid(EncodedColumn::encode(&values, Some(&Bitmap::new_set(2)), EncodeOptions::default())));
    for block in [0, 3, 100] {
        let r = EncodedColumn::encode(&values, None, EncodeOptions::with_encoding(Encoding::ForN { block }));
        assert!(invalid(r), "for_n block {block}");
        let r = encode_segment(&values, None, Encoding::ForN { block });
        assert!(matches!(r, Err(Error::InvalidArgument(_))), "for_n block {block}");
    }
    for stride in [0, 8, 100, 1 << 17] {
        let r = EncodedColumn::encode(&values, None, EncodeOptions::with_encoding(Encoding::Delta { stride }));
        assert!(invalid(r), "delta stride {stride}");
    }
    assert!(matches!(
        encode_segment(&values, Some(&Bitmap::new_set(4)), Encoding::Plain),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(encode_segment(&values, None, Encoding::Constant), Err(Error::NotApplicable { .. })));
    assert!(matches!(encode_segment(&[1u32, 2, 4], None, Encoding::Sequence), Err(Error::NotApplicable { .. })));
    for stride in [0, 3] {
        let r = encode_segment(&values, None, Encoding::Delta2 { stride });
        assert!(matches!(r, Err(Error::InvalidArgument(_))), "delta2 stride {stride}");
    }
    let zero_rows = EncodeOptions { segment_rows: 0, ..Default::default() };
    assert!(matches!(ColumnBuilder::<u8>::new(zero_rows), Err(Error::InvalidArgument(_))));
    let four_deep: Cascade = "dict(dict(dict(for)))".parse().unwrap();
    assert!(matches!(Cascade::with_children(Encoding::Dict, [four_deep]), Err(Error::InvalidArgument(_))));
}

#[test]
fn names_parse() {
    for id in EncodingId::ALL {
        let encoding = Encoding::from_name(id.name()).unwrap();
        assert_eq!(encoding.id(), Some(id));
        assert_eq!(encoding.to_string(), id.name());
        assert_eq!(EncodingId::from_id(id as u8), Ok(id));
    }
    assert_eq!(Encoding::from_name("auto"), Some(Encoding::Auto));
    assert_eq!(Encoding::from_name("for_n:256"), Some(Encoding::ForN { block: 256 }));
    assert_eq!(Encoding::ForN { block: 256 }.to_string(), "for_n:256");
    assert_eq!(Encoding::from_name("delta:256"), Some(Encoding::Delta { stride: 256 }));
    assert_eq!(Encoding::Delta { stride: 256 }.to_string(), "delta:256");
    assert_eq!(Encoding::from_name("delta"), Some(Encoding::Delta { stride: 1024 }));
    assert_eq!(Encoding::from_name("delta2:16"), Some(Encoding::Delta2 { stride: 16 }));
    assert_eq!(Encoding::Delta2 { stride: 16 }.to_string(), "delta2:16");
    for bad in ["nope", "for:3", "for_n:x", "for_n:", "delta:", "delta2:", "rle:4"] {
        assert_eq!(Encoding::from_name(bad), None, "{bad}");
    }
    assert_eq!(EncodingId::from_id(200), Err(Error::UnknownEncoding(200)));
}
