//! The value types lwc stores, and the integers its encodings and kernels work on.
//!
//! Every fixed-width [`Value`] is encoded as an integer *latent* that sorts like the value: integers are
//! their own latents, and floats map to unsigned integers of their width by flipping the sign bit (and
//! every bit of negative values), so the integer encodings, their filters and the zone maps serve floats
//! bit-exactly, NaN payloads, ±0.0, infinities and subnormals included. Latents order floats as IEEE 754's
//! `totalOrder` (and Rust's `f64::total_cmp`, and Arrow's comparison kernels) do: -NaN < -inf < ... < -0.0 <
//! +0.0 < ... < +inf < +NaN.
//!
//! Integers are handled through the unsigned word of the same width (`i32` through `u32`, and so on):
//! reinterpreting two's complement bits costs nothing, and `value - reference` computed with wrapping
//! arithmetic in the unsigned domain is exact whenever `value >= reference`, for signed and unsigned types
//! alike. That is how frame of reference handles `i64::MIN..=i64::MAX` without overflow.

use std::borrow::Cow;

use std::fmt::Debug;
use std::ops::{BitAnd, BitOr, BitXor, Not, Shl, Shr};

use bytemuck::Pod;

/// The type of a segment's values, as stored in headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ValueType {
    /// `u8`
    U8 = 0,
    /// `u16`
    U16 = 1,
    /// `u32`
    U32 = 2,
    /// `u64`
    U64 = 3,
    /// `i8`
    I8 = 4,
    /// `i16`
    I16 = 5,
    /// `i32`
    I32 = 6,
    /// `i64`
    I64 = 7,
    /// `f32`, stored through order-preserving `u32` latents.
    F32 = 8,
    /// `f64`, stored through order-preserving `u64` latents.
    F64 = 9,
}

impl ValueType {
    /// The Rust name of the type (`"u32"`, `"i64"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ValueType::U8 => "u8",
            ValueType::U16 => "u16",
            ValueType::U32 => "u32",
            ValueType::U64 => "u64",
            ValueType::I8 => "i8",
            ValueType::I16 => "i16",
            ValueType::I32 => "i32",
            ValueType::I64 => "i64",
            ValueType::F32 => "f32",
            ValueType::F64 => "f64",
        }
    }

    /// Parses the id stored in headers.
    pub fn from_id(id: u8) -> Option<ValueType> {
        Some(match id {
            0 => ValueType::U8,
            1 => ValueType::U16,
            2 => ValueType::U32,
            3 => ValueType::U64,
            4 => ValueType::I8,
            5 => ValueType::I16,
            6 => ValueType::I32,
            7 => ValueType::I64,
            8 => ValueType::F32,
            9 => ValueType::F64,
            _ => return None,
        })
    }

    /// Width of the type in bytes.
    pub fn byte_width(self) -> usize {
        match self {
            ValueType::U8 | ValueType::I8 => 1,
            ValueType::U16 | ValueType::I16 => 2,
            ValueType::U32 | ValueType::I32 | ValueType::F32 => 4,
            ValueType::U64 | ValueType::I64 | ValueType::F64 => 8,
        }
    }

    /// Every value type, in id order.
    pub const ALL: [ValueType; 10] = [
        ValueType::U8,
        ValueType::U16,
        ValueType::U32,
        ValueType::U64,
        ValueType::I8,
        ValueType::I16,
        ValueType::I32,
        ValueType::I64,
        ValueType::F32,
        ValueType::F64,
    ];

    /// Whether values are floating point (their sums are `f64`, their order IEEE's total order).
    pub fn is_float(self) -> bool {
        matches!(self, ValueType::F32 | ValueType::F64)
    }
}

impl std::fmt::Display for ValueType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

mod sealed {
    pub trait SealedWord {}
    pub trait SealedInt {}
    pub trait SealedValue {}
}

/// An unsigned machine word: the domain of the bit-packing kernels.
pub trait Word:
    Pod
    + Ord
    + Default
    + Debug
    + Send
    + Sync
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + sealed::SealedWord
{
    /// Bits in the word.
    const BITS: u32;
    /// Lanes of a 1024-value block (`1024 / BITS`): see [`crate::kernels::bitpack`].
    const LANES: usize = 1024 / Self::BITS as usize;
    /// Zero.
    const ZERO: Self;
    /// All bits set.
    const MAX: Self;
    /// Truncating conversion from `u64`.
    fn from_u64(v: u64) -> Self;
    /// Zero-extending conversion to `u64`.
    fn to_u64(self) -> u64;
    /// Wrapping addition.
    fn wrapping_add(self, other: Self) -> Self;
    /// Wrapping subtraction.
    fn wrapping_sub(self, other: Self) -> Self;
    /// Wrapping multiplication.
    fn wrapping_mul(self, other: Self) -> Self;
    /// The mask of the low `width` bits (`width <= BITS`).
    #[inline(always)]
    fn low_mask(width: u32) -> Self {
        if width >= Self::BITS {
            Self::MAX
        } else {
            Self::from_u64((1u64 << width) - 1)
        }
    }
    /// Number of bits needed to write `self` (0 for zero).
    #[inline(always)]
    fn bits_used(self) -> u32 {
        64 - self.to_u64().leading_zeros()
    }
}

macro_rules! impl_word {
    ($($t:ty),*) => {$(
        impl sealed::SealedWord for $t {}
        impl Word for $t {
            const BITS: u32 = <$t>::BITS;
            const ZERO: Self = 0;
            const MAX: Self = <$t>::MAX;
            #[inline(always)]
            fn from_u64(v: u64) -> Self { v as $t }
            #[inline(always)]
            fn to_u64(self) -> u64 { self as u64 }
            #[inline(always)]
            fn wrapping_add(self, other: Self) -> Self { <$t>::wrapping_add(self, other) }
            #[inline(always)]
            fn wrapping_sub(self, other: Self) -> Self { <$t>::wrapping_sub(self, other) }
            #[inline(always)]
            fn wrapping_mul(self, other: Self) -> Self { <$t>::wrapping_mul(self, other) }
        }
    )*};
}
impl_word!(u8, u16, u32, u64);

/// An integer type lwc can store: `u8`, `u16`, `u32`, `u64`, `i8`, `i16`, `i32`, `i64`. Every integer is a
/// [`Value`] that is its own latent, with exact `i128` sums.
pub trait LwcInt:
    Value<Latent = Self, Sum = i128> + Pod + Ord + Default + Debug + Send + Sync + std::hash::Hash + sealed::SealedInt
{
    /// The unsigned word of the same width (itself an `LwcInt`, so residuals can form child streams).
    type Unsigned: Word + LwcInt<Unsigned = Self::Unsigned>;
    /// Smallest value.
    const MIN: Self;
    /// Largest value.
    const MAX: Self;
    /// Reinterprets the bits as the unsigned word.
    fn to_bits(self) -> Self::Unsigned;
    /// Reinterprets an unsigned word as this type.
    fn from_bits(bits: Self::Unsigned) -> Self;
    /// Exact widening to `i128`.
    fn to_i128(self) -> i128;
    /// Exact narrowing from `i128`, `None` out of range.
    fn from_i128(v: i128) -> Option<Self>;
    /// `self - base` in the unsigned domain; exact when `self >= base`.
    #[inline(always)]
    fn offset_from(self, base: Self) -> Self::Unsigned {
        self.to_bits().wrapping_sub(base.to_bits())
    }
    /// `base + offset`, the inverse of [`LwcInt::offset_from`].
    #[inline(always)]
    fn add_offset(base: Self, offset: Self::Unsigned) -> Self {
        Self::from_bits(base.to_bits().wrapping_add(offset))
    }
    /// The next smaller value, `None` at `MIN`.
    fn checked_pred(self) -> Option<Self>;
    /// The next larger value, `None` at `MAX`.
    fn checked_succ(self) -> Option<Self>;
}

macro_rules! impl_int {
    ($t:ty, $u:ty, $id:ident, $acc:ty) => {
        impl sealed::SealedValue for $t {}
        impl Value for $t {
            type Latent = $t;
            type Sum = i128;
            const TYPE: ValueType = ValueType::$id;
            const SUMS_LATENTS: bool = true;
            #[inline(always)]
            fn to_latent(self) -> $t {
                self
            }
            #[inline(always)]
            fn from_latent(latent: $t) -> $t {
                latent
            }
            fn latents(values: &[$t]) -> Cow<'_, [$t]> {
                Cow::Borrowed(values)
            }
            #[inline(always)]
            fn latents_to_values(_: &mut [$t]) {}
            fn sum_of_latents(sum: i128) -> i128 {
                sum
            }
            fn sum_of_floats(_: f64) -> i128 {
                unreachable!("integer sums are sums of latents")
            }
            /// Exact: chunks small enough that the accumulator cannot overflow, so the inner loop vectorizes.
            fn sum(values: &[$t]) -> i128 {
                const CHUNK: usize = if <$t>::BITS >= 64 { 1 } else { 1 << (63 - <$t>::BITS) };
                values.chunks(CHUNK).map(|c| c.iter().map(|&v| v as $acc).sum::<$acc>() as i128).sum()
            }
            fn add(a: i128, b: i128) -> i128 {
                a + b
            }
        }
        impl sealed::SealedInt for $t {}
        impl LwcInt for $t {
            type Unsigned = $u;
            const MIN: Self = <$t>::MIN;
            const MAX: Self = <$t>::MAX;
            #[inline(always)]
            fn to_bits(self) -> $u {
                self as $u
            }
            #[inline(always)]
            fn from_bits(bits: $u) -> Self {
                bits as $t
            }
            #[inline(always)]
            fn to_i128(self) -> i128 {
                self as i128
            }
            fn from_i128(v: i128) -> Option<Self> {
                <$t>::try_from(v).ok()
            }
            #[inline(always)]
            fn checked_pred(self) -> Option<Self> {
                self.checked_sub(1)
            }
            #[inline(always)]
            fn checked_succ(self) -> Option<Self> {
                self.checked_add(1)
            }
        }
    };
}
impl_int!(u8, u8, U8, u64);
impl_int!(u16, u16, U16, u64);
impl_int!(u32, u32, U32, u64);
impl_int!(u64, u64, U64, u128);
impl_int!(i8, u8, I8, i64);
impl_int!(i16, u16, I16, i64);
impl_int!(i32, u32, I32, i64);
impl_int!(i64, u64, I64, i128);

/// A fixed-width value lwc stores: the integers and `f32`, `f64`. Encodings see its [`Value::Latent`], an
/// integer that sorts like the value; reads map latents back.
pub trait Value: Pod + Default + Debug + PartialEq + Send + Sync + sealed::SealedValue {
    /// The integer the value is encoded as (integers: themselves).
    type Latent: LwcInt;
    /// What sums of values are: exact `i128` for integers, `f64` for floats.
    type Sum: Copy + Debug + PartialEq + Default + Send + Sync + 'static;
    /// The type id stored in headers.
    const TYPE: ValueType;
    /// Whether the sum of values is the sum of latents (integers), so encodings that sum without decoding
    /// can answer it.
    const SUMS_LATENTS: bool;

    /// The latent: same width, same order.
    fn to_latent(self) -> Self::Latent;
    /// The value of a latent.
    fn from_latent(latent: Self::Latent) -> Self;
    /// The latents of `values` (integers: the same slice, not copied).
    fn latents(values: &[Self]) -> Cow<'_, [Self::Latent]>;
    /// The latents in place, as values (integers: nothing to do).
    fn latents_to_values(buffer: &mut [Self]);
    /// A sum of latents, as a sum of values (integers only: see [`Value::SUMS_LATENTS`]).
    fn sum_of_latents(sum: i128) -> Self::Sum;
    /// A sum of values computed as `f64` (floats only: see [`Value::SUMS_LATENTS`]).
    fn sum_of_floats(sum: f64) -> Self::Sum;
    /// The sum of `values`.
    fn sum(values: &[Self]) -> Self::Sum;
    /// The sum of two sums.
    fn add(a: Self::Sum, b: Self::Sum) -> Self::Sum;
}

macro_rules! impl_float_value {
    ($($t:ty, $bits:ty, $id:ident);*) => {$(
        impl sealed::SealedValue for $t {}
        impl Value for $t {
            type Latent = $bits;
            type Sum = f64;
            const TYPE: ValueType = ValueType::$id;
            const SUMS_LATENTS: bool = false;
            /// Sign bit set: flip every bit (negatives sort in reverse); clear: set the sign bit.
            #[inline(always)]
            fn to_latent(self) -> $bits {
                const SIGN: $bits = 1 << (<$bits>::BITS - 1);
                let bits = self.to_bits();
                if bits & SIGN != 0 { !bits } else { bits | SIGN }
            }
            #[inline(always)]
            fn from_latent(latent: $bits) -> $t {
                const SIGN: $bits = 1 << (<$bits>::BITS - 1);
                <$t>::from_bits(if latent & SIGN != 0 { latent & !SIGN } else { !latent })
            }
            fn latents(values: &[$t]) -> Cow<'_, [$bits]> {
                Cow::Owned(values.iter().map(|v| v.to_latent()).collect())
            }
            fn latents_to_values(buffer: &mut [$t]) {
                for v in buffer {
                    *v = <$t>::from_latent(v.to_bits());
                }
            }
            fn sum_of_latents(_: i128) -> f64 {
                unreachable!("float sums are summed from values")
            }
            fn sum_of_floats(sum: f64) -> f64 {
                sum
            }
            /// Compensated (Neumaier) summation: the error is at most about `2 ε Σ|x|` however many values,
            /// against `(n - 1) ε Σ|x|` for a plain loop. Once the running sum is infinite or NaN the
            /// carry means nothing (`inf - inf`), so the plain sum is the answer, as IEEE addition gives it.
            fn sum(values: &[$t]) -> f64 {
                let (mut sum, mut carry) = (0.0f64, 0.0f64);
                for &v in values {
                    let v = v as f64;
                    let next = sum + v;
                    carry += if sum.abs() >= v.abs() { (sum - next) + v } else { (v - next) + sum };
                    sum = next;
                }
                if sum.is_finite() { sum + carry } else { sum }
            }
            fn add(a: f64, b: f64) -> f64 { a + b }
        }
    )*};
}
impl_float_value!(f32, u32, F32; f64, u64, F64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_exact_across_the_whole_signed_range() {
        let d = i64::MAX.offset_from(i64::MIN);
        assert_eq!(d, u64::MAX);
        assert_eq!(i64::add_offset(i64::MIN, d), i64::MAX);
        assert_eq!((-1i8).offset_from(-128), 127);
    }

    #[test]
    fn sums_do_not_overflow() {
        assert_eq!(u64::sum(&[u64::MAX, u64::MAX]), 2 * u64::MAX as i128);
        assert_eq!(i64::sum(&[i64::MIN, i64::MIN]), 2 * i64::MIN as i128);
        let big = vec![u32::MAX; 10_000];
        assert_eq!(u32::sum(&big), 10_000 * u32::MAX as i128);
    }

    #[test]
    fn float_latents_sort_like_total_order_and_round_trip_every_bit() {
        let specials = [
            f64::NEG_INFINITY,
            -f64::MAX,
            -1.5,
            -f64::MIN_POSITIVE,
            -5e-324,
            -0.0,
            0.0,
            5e-324,
            f64::MIN_POSITIVE,
            1.5,
            f64::MAX,
            f64::INFINITY,
        ];
        let nans = [f64::from_bits(0x7ff8_0000_0000_0001), f64::NAN, -f64::NAN, f64::from_bits(0xfff0_0000_0000_0001)];
        let mut all: Vec<f64> = specials.iter().chain(&nans).copied().collect();
        for &v in &all {
            assert_eq!(f64::from_latent(v.to_latent()).to_bits(), v.to_bits());
        }
        all.sort_by(|a, b| a.total_cmp(b));
        let latents: Vec<u64> = all.iter().map(|v| v.to_latent()).collect();
        assert!(latents.windows(2).all(|w| w[0] < w[1]), "{all:?}");
        assert!((-0.0f32).to_latent() < 0.0f32.to_latent());
        let mut buffer: Vec<f32> = [1.25f32, -3.5].iter().map(|v| f32::from_bits(v.to_latent())).collect();
        f32::latents_to_values(&mut buffer);
        assert_eq!(buffer, [1.25, -3.5]);
    }

    #[test]
    fn float_sums_are_compensated() {
        let values = [1e16, 1.0, -1e16, 1.0];
        assert_eq!(f64::sum(&values), 2.0); // a plain loop gives 0 or 1
        assert!(f64::sum(&[1.0, f64::NAN]).is_nan());
        assert_eq!(f64::sum(&[1.0, f64::INFINITY, 2.0]), f64::INFINITY);
        assert_eq!(f64::sum(&[-1.0, f64::NEG_INFINITY]), f64::NEG_INFINITY);
        assert!(f64::sum(&[f64::INFINITY, f64::NEG_INFINITY]).is_nan());
        assert_eq!(f64::sum(&[f64::MAX, f64::MAX]), f64::INFINITY);
    }

    #[test]
    fn masks_and_widths() {
        assert_eq!(u32::low_mask(32), u32::MAX);
        assert_eq!(u32::low_mask(0), 0);
        assert_eq!(u64::low_mask(63), u64::MAX >> 1);
        assert_eq!(7u8.bits_used(), 3);
        assert_eq!(0u64.bits_used(), 0);
        assert_eq!(u64::MAX.bits_used(), 64);
    }
}
