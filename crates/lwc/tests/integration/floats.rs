//! Floats through every registered encoding: `f32` and `f64` are stored as order-preserving integer
//! latents, so every integer encoding serves them. Each answer is checked against a plain `Vec<Option<F>>`:
//! decode, get and take bit for bit (NaN payloads, ±0.0, ±inf and subnormals included), filters by IEEE's
//! total order (as Arrow's comparison kernels), count, min and max exactly, and the sum within the bound
//! of compensated summation.

use lwc::{
    encode_segment, AccessMix, Bitmap, Cascade, EncodeOptions, EncodedColumn, Encoding, EncodingId, Error, Objective,
    Predicate, Requirement, Segment, Value,
};
use proptest::prelude::*;

/// The floats a test draws from: prices of decimal origin, full-mantissa noise, the special values, and
/// shapes with structure (constant, sorted).
fn shaped<F: Float>(shape: u8, n: usize, seed: u64) -> Vec<F> {
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let specials = [f64::NAN, -f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 0.0, 5e-324, -1e-310, f64::MAX];
    (0..n)
        .map(|i| match shape % 6 {
            0 => F::from_f64((next() % 1_000_000) as f64 / 100.0),
            1 => F::from_bits64(next()),
            2 => F::from_f64(specials[(next() % specials.len() as u64) as usize]),
            3 => F::from_f64(42.5),
            4 => F::from_f64(i as f64 * 0.25 - 100.0),
            _ => F::from_f64(if next() % 5 == 0 { specials[i % specials.len()] } else { (i % 17) as f64 }),
        })
        .collect()
}

/// What the tests need of `f32` and `f64` beyond [`Value`].
trait Float: Value<Sum = f64> {
    fn from_f64(v: f64) -> Self;
    /// Any bit pattern (NaN payloads included).
    fn from_bits64(bits: u64) -> Self;
    fn to_f64(self) -> f64;
    fn bits(self) -> u64;
}

impl Float for f32 {
    fn from_f64(v: f64) -> f32 {
        v as f32
    }
    fn from_bits64(bits: u64) -> f32 {
        f32::from_bits(bits as u32)
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
}

impl Float for f64 {
    fn from_f64(v: f64) -> f64 {
        v
    }
    fn from_bits64(bits: u64) -> f64 {
        f64::from_bits(bits)
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
}

/// Bit-exact equality of optional floats.
fn same<F: Float>(a: &[Option<F>], b: &[Option<F>]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.map(F::bits) == y.map(F::bits))
}

/// Whether `id` may refuse data: those with a requirement (one value, equal steps, a common divisor) do
/// on data without it; the integer property tests check the requirements themselves.
fn may_refuse(id: EncodingId) -> bool {
    id.requires() != Requirement::Nothing
}

/// Whether `got` is a sum of `values` as IEEE arithmetic allows: NaN when a NaN or both infinities are
/// among them, that infinity when one is, else within the bound of compensated summation of the exact
/// sum. Where the magnitudes themselves overflow, the order of additions decides, so anything goes.
fn sum_agrees<F: Float>(got: f64, values: &[F]) -> bool {
    let doubles: Vec<f64> = values.iter().map(|v| v.to_f64()).collect();
    let has = |x: f64| doubles.contains(&x);
    if doubles.iter().any(|v| v.is_nan()) || (has(f64::INFINITY) && has(f64::NEG_INFINITY)) {
        return got.is_nan();
    }
    if has(f64::INFINITY) || has(f64::NEG_INFINITY) {
        let infinity = if has(f64::INFINITY) { f64::INFINITY } else { f64::NEG_INFINITY };
        // Finite values that overflow together (two f64::MAX) may become the opposite infinity before
        // they meet this one, in some summation orders: NaN is then an answer too.
        let finite_overflow = !doubles.iter().filter(|v| v.is_finite()).map(|v| v.abs()).sum::<f64>().is_finite();
        return got == infinity || (finite_overflow && got.is_nan());
    }
    let magnitude: f64 = doubles.iter().map(|v| v.abs()).sum();
    if !magnitude.is_finite() {
        return true;
    }
    let sum = f64::sum(&doubles);
    got.to_bits() == sum.to_bits() || (got - sum).abs() <= 4.0 * f64::EPSILON * magnitude
}

fn check<F: Float>(values: &[F], validity: Option<&Bitmap>, cascade: &Cascade, what: &str) {
    let rows: Vec<Option<F>> =
        (0..values.len()).map(|i| validity.is_none_or(|v| v.get(i)).then_some(values[i])).collect();
    let encoded = match encode_segment(values, validity, cascade.clone()) {
        Ok(e) => e,
        Err(Error::NotApplicable { .. }) if may_refuse(cascade.encoding().id().unwrap()) => {
            return;
        }
        Err(e) => panic!("{what}: {e}"),
    };
    let segment = Segment::<F>::open(&encoded).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(same(&segment.decode_all().to_options(), &rows), "{what}: decode");
    for (i, want) in rows.iter().enumerate() {
        assert_eq!(segment.get(i).unwrap().map(F::bits), want.map(F::bits), "{what}: get({i})");
    }
    let mut positions: Vec<u32> = (0..rows.len() as u32).rev().step_by(3).collect();
    for _ in 0..2 {
        let taken = segment.take(&positions).unwrap().to_options();
        let want: Vec<Option<F>> = positions.iter().map(|&p| rows[p as usize]).collect();
        assert!(same(&taken, &want), "{what}: take");
        positions.reverse();
    }
    let present: Vec<F> = rows.iter().flatten().copied().collect();
    let mut constants: Vec<F> = present.iter().step_by(7).copied().take(4).collect();
    constants.extend([F::from_f64(f64::NAN), F::from_f64(-0.0), F::from_f64(0.0), F::from_f64(f64::INFINITY)]);
    for &c in &constants {
        let predicates = [
            Predicate::Eq(c),
            Predicate::NotEq(c),
            Predicate::Lt(c),
            Predicate::LtEq(c),
            Predicate::Gt(c),
            Predicate::GtEq(c),
            Predicate::Between(F::from_f64(-1.0), c),
            Predicate::In(vec![c, F::from_f64(42.5)]),
            Predicate::IsNull,
            Predicate::IsNotNull,
        ];
        for p in predicates {
            let got = segment.filter(&p).to_positions();
            let want: Vec<u32> = (0..rows.len() as u32).filter(|&i| p.matches(rows[i as usize])).collect();
            assert_eq!(got, want, "{what}: filter {p:?}");
            let selection = segment.filter(&p);
            let agg = segment.aggregate(Some(&selection)).unwrap();
            let picked: Vec<F> = want.iter().filter_map(|&i| rows[i as usize]).collect();
            assert_eq!(agg.count as usize, picked.len(), "{what}: count of {p:?}");
            assert!(sum_agrees(agg.sum, &picked), "{what}: sum of {p:?}: {}", agg.sum);
            let by_order = |a: &&F, b: &&F| a.to_latent().cmp(&b.to_latent());
            let fused = segment.filter_aggregate(&p);
            assert_eq!((fused.count, fused.null_count), (agg.count, agg.null_count), "{what}: fused counts of {p:?}");
            assert!(sum_agrees(fused.sum, &picked), "{what}: fused sum of {p:?}: {}", fused.sum);
            assert_eq!(
                fused.min.map(F::bits),
                picked.iter().min_by(by_order).map(|v| v.bits()),
                "{what}: fused min of {p:?}"
            );
            assert_eq!(
                fused.max.map(F::bits),
                picked.iter().max_by(by_order).map(|v| v.bits()),
                "{what}: fused max of {p:?}"
            );
        }
    }
    let all = segment.aggregate(None).unwrap();
    assert_eq!(all.count as usize, present.len(), "{what}: count");
    let by_order = |a: &&F, b: &&F| a.to_latent().cmp(&b.to_latent());
    assert_eq!(all.min.map(F::bits), present.iter().min_by(by_order).map(|v| v.bits()), "{what}: min");
    assert_eq!(all.max.map(F::bits), present.iter().max_by(by_order).map(|v| v.bits()), "{what}: max");
    assert!(sum_agrees(all.sum, &present), "{what}: sum {}", all.sum);
}

/// Every registered encoding at its defaults, and `auto`.
fn cascades() -> Vec<Cascade> {
    EncodingId::ALL.iter().map(|&id| Cascade::from(id)).chain([Cascade::from(Encoding::Auto)]).collect()
}

fn run<F: Float>(shape: u8, n: usize, nulls: bool, seed: u64) {
    let values: Vec<F> = shaped(shape, n, seed);
    let validity = nulls.then(|| Bitmap::from_bools(&(0..n).map(|i| (i as u64 + seed) % 7 != 2).collect::<Vec<_>>()));
    for cascade in cascades() {
        let what = format!("{} {cascade}, shape {shape}, {n} rows, nulls {nulls}", F::TYPE);
        check(&values, validity.as_ref(), &cascade, &what);
    }
}

/// Found by the property test in CI: -inf among several f64::MAX, summed by the fused path in an order
/// where two MAX overflow to +inf first.
#[test]
fn an_infinity_among_overflowing_finite_values_may_sum_to_nan() {
    run::<f64>(5, 31, false, 3105866527680421950);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn f64_answers_like_a_plain_vector(shape in 0u8..6, n in prop_oneof![0usize..70, 900usize..3_000], nulls: bool, seed: u64) {
        run::<f64>(shape, n, nulls, seed);
    }

    #[test]
    fn f32_answers_like_a_plain_vector(shape in 0u8..6, n in prop_oneof![0usize..70, 900usize..3_000], nulls: bool, seed: u64) {
        run::<f32>(shape, n, nulls, seed);
    }
}

/// Columns of floats under every objective: many segments, and `Auto` never fails.
#[test]
fn float_columns_round_trip_under_every_objective() {
    let values: Vec<f64> = shaped(5, 70_000, 3);
    let objectives = [
        Objective::Size,
        Objective::Scan,
        Objective::Random,
        Objective::Balanced,
        Objective::Mix(AccessMix { scan: 1.0, get: 0.2 }),
    ];
    for objective in objectives {
        let encoded = EncodedColumn::encode(&values, None, EncodeOptions::with_objective(objective)).unwrap();
        let column = encoded.open::<f64>().unwrap();
        let back = column.decode(0..values.len() as u64).unwrap().values;
        assert!(back.iter().zip(&values).all(|(a, b)| a.to_bits() == b.to_bits()), "{objective}");
        assert!(matches!(encoded.open::<u64>(), Err(Error::TypeMismatch { .. })));
    }
}

/// Prices of decimal origin (two digits) are stored smaller than plain, even before a float codec.
#[test]
fn prices_are_stored_smaller_than_plain() {
    let prices: Vec<f64> = shaped(0, 65_536, 11);
    let encoded = EncodedColumn::encode(&prices, None, EncodeOptions::default()).unwrap();
    assert!(encoded.as_bytes().len() < prices.len() * 8, "{} bytes", encoded.as_bytes().len());
}
