//! The integer types lwc stores, and the unsigned machine words its kernels work on.
//!
//! Every value is handled through the unsigned word of the same width (`i32` through `u32`, and so on):
//! reinterpreting two's complement bits costs nothing, and `value - reference` computed with wrapping
//! arithmetic in the unsigned domain is exact whenever `value >= reference`, for signed and unsigned types
//! alike. That is how frame of reference handles `i64::MIN..=i64::MAX` without overflow.

use std::fmt::Debug;
use std::ops::{BitAnd, BitOr, BitXor, Not, Shl, Shr};

use bytemuck::Pod;

/// The logical integer type of a column, as stored in headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum IntType {
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
}

impl IntType {
    /// The Rust name of the type (`"u32"`, `"i64"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            IntType::U8 => "u8",
            IntType::U16 => "u16",
            IntType::U32 => "u32",
            IntType::U64 => "u64",
            IntType::I8 => "i8",
            IntType::I16 => "i16",
            IntType::I32 => "i32",
            IntType::I64 => "i64",
        }
    }

    /// Parses the id stored in headers.
    pub fn from_id(id: u8) -> Option<IntType> {
        Some(match id {
            0 => IntType::U8,
            1 => IntType::U16,
            2 => IntType::U32,
            3 => IntType::U64,
            4 => IntType::I8,
            5 => IntType::I16,
            6 => IntType::I32,
            7 => IntType::I64,
            _ => return None,
        })
    }

    /// Width of the type in bytes.
    pub fn byte_width(self) -> usize {
        match self {
            IntType::U8 | IntType::I8 => 1,
            IntType::U16 | IntType::I16 => 2,
            IntType::U32 | IntType::I32 => 4,
            IntType::U64 | IntType::I64 => 8,
        }
    }
}

impl std::fmt::Display for IntType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

mod sealed {
    pub trait SealedWord {}
    pub trait SealedInt {}
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
        }
    )*};
}
impl_word!(u8, u16, u32, u64);

/// An integer type lwc can store: `u8`, `u16`, `u32`, `u64`, `i8`, `i16`, `i32`, `i64`.
pub trait LwcInt: Pod + Ord + Default + Debug + Send + Sync + std::hash::Hash + sealed::SealedInt {
    /// The unsigned word of the same width (itself an `LwcInt`, so residuals can form child streams).
    type Unsigned: Word + LwcInt<Unsigned = Self::Unsigned>;
    /// The type id stored in headers.
    const TYPE: IntType;
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
    /// Exact sum of a slice; accumulates in 64-bit words where that cannot overflow.
    fn sum(values: &[Self]) -> i128;
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
        impl sealed::SealedInt for $t {}
        impl LwcInt for $t {
            type Unsigned = $u;
            const TYPE: IntType = IntType::$id;
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
            fn sum(values: &[Self]) -> i128 {
                // Chunks small enough that the accumulator cannot overflow, so the inner loop vectorizes.
                const CHUNK: usize = if <$t>::BITS >= 64 { 1 } else { 1 << (63 - <$t>::BITS) };
                values.chunks(CHUNK).map(|c| c.iter().map(|&v| v as $acc).sum::<$acc>() as i128).sum()
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
    fn masks_and_widths() {
        assert_eq!(u32::low_mask(32), u32::MAX);
        assert_eq!(u32::low_mask(0), 0);
        assert_eq!(u64::low_mask(63), u64::MAX >> 1);
        assert_eq!(7u8.bits_used(), 3);
        assert_eq!(0u64.bits_used(), 0);
        assert_eq!(u64::MAX.bits_used(), 64);
    }
}
