//! Literals read in a column's type: the one set of rules every front end shares.
//!
//! Integer-backed columns compare stored integers: a date is its day number (`'1995-03-15'` or `8838`), a
//! decimal its unscaled value (`3` is `300` in a scale-2 column), a timestamp or time its count of units
//! (ISO text or a number), a boolean 0 or 1. Float columns compare `f64` literals (`'NaN'`, `'inf'` and
//! `'-0'` included). A literal between two storable values (`2.5` in an integer column, `300` in a `u8`
//! column, `0.1` in an `f32` column) selects what the exact comparison would: `x < 2.5` is `x <= 2`,
//! `x = 2.5` nothing, `x <> 2.5` every non-null row.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Decimal128Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type,
    UInt8Type,
};
use arrow_array::{Array, ArrayRef, StringArray};
use arrow_cast::{cast_with_options, CastOptions};
use arrow_schema::DataType;
use lwc::{LwcInt, Value, ValueType};

use super::Literal;

/// Where a literal falls among the keys a column compares: on one, or strictly between two neighbours
/// (`None` past either end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bound {
    /// The literal is this key.
    Exact(i128),
    /// The largest key below the literal and the smallest above it.
    Between(Option<i128>, Option<i128>),
}

impl Bound {
    /// The smallest key at or above the literal.
    pub(crate) fn at_or_above(self) -> Option<i128> {
        match self {
            Bound::Exact(k) => Some(k),
            Bound::Between(_, above) => above,
        }
    }

    /// The largest key at or below the literal.
    pub(crate) fn at_or_below(self) -> Option<i128> {
        match self {
            Bound::Exact(k) => Some(k),
            Bound::Between(below, _) => below,
        }
    }
}

/// The keys a column compares, as `i128`: integers themselves, floats their order-preserving latents (the
/// footer's min/max domain), wide decimals their unscaled value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keys {
    /// An integer type (booleans, dates, decimals up to 18 digits, ... as stored).
    Int(ValueType),
    /// `f32` latents (also `f16` columns, compared as the `f32` they widen to exactly).
    F32,
    /// `f64` latents.
    F64,
    /// `i128` (decimals above 18 digits).
    Wide,
}

/// A literal as a number in the column's units, before it meets the column's storable values.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Number {
    Exact(i128),
    Real(f64),
}

/// Where `literal` falls among the keys of a column of `data_type` compared as `keys`; `Ok(None)` for NULL.
pub(crate) fn key_bound(literal: &Literal, data_type: &DataType, keys: Keys) -> Result<Option<Bound>, String> {
    if literal.is_null() {
        return Ok(None);
    }
    let number = match keys {
        Keys::F32 | Keys::F64 => Number::Real(real(literal, data_type)?),
        Keys::Int(_) | Keys::Wide => integer(literal, data_type)?,
    };
    Ok(Some(match keys {
        Keys::Int(t) => int_bound(number, int_range(t)),
        Keys::Wide => int_bound(number, (i128::MIN, i128::MAX)),
        Keys::F64 => {
            let v = match number {
                Number::Exact(v) => v as f64,
                Number::Real(v) => v,
            };
            Bound::Exact(v.to_latent() as i128)
        }
        Keys::F32 => f32_bound(match number {
            Number::Exact(v) => v as f64,
            Number::Real(v) => v,
        }),
    }))
}

/// The bytes of `literal` for a string or binary column; `Ok(None)` for NULL.
pub(crate) fn literal_bytes(literal: &Literal) -> Result<Option<Vec<u8>>, String> {
    if literal.is_null() {
        return Ok(None);
    }
    let a = literal.array();
    Ok(Some(match a.data_type() {
        DataType::Utf8 => a.as_string::<i32>().value(0).as_bytes().to_vec(),
        DataType::LargeUtf8 => a.as_string::<i64>().value(0).as_bytes().to_vec(),
        DataType::Utf8View => a.as_string_view().value(0).as_bytes().to_vec(),
        DataType::Binary => a.as_binary::<i32>().value(0).to_vec(),
        DataType::LargeBinary => a.as_binary::<i64>().value(0).to_vec(),
        DataType::BinaryView => a.as_binary_view().value(0).to_vec(),
        DataType::FixedSizeBinary(_) => a.as_fixed_size_binary().value(0).to_vec(),
        other => {
            let text = cast_with_options(a, &DataType::Utf8, &strict())
                .map_err(|_| format!("cannot compare {other} with text"))?;
            text.as_string::<i32>().value(0).as_bytes().to_vec()
        }
    }))
}

fn strict() -> CastOptions<'static> {
    CastOptions { safe: false, ..Default::default() }
}

fn text_of(literal: &Literal) -> Option<&str> {
    let a = literal.array();
    match a.data_type() {
        DataType::Utf8 => Some(a.as_string::<i32>().value(0)),
        DataType::LargeUtf8 => Some(a.as_string::<i64>().value(0)),
        DataType::Utf8View => Some(a.as_string_view().value(0)),
        _ => None,
    }
}

fn describe(literal: &Literal) -> String {
    match text_of(literal) {
        Some(t) => format!("'{t}'"),
        None => format!("{literal} ({})", literal.array().data_type()),
    }
}

/// A float literal: text parsed as Rust parses floats (`NaN`, `inf`, `-0`), anything numeric cast.
fn real(literal: &Literal, data_type: &DataType) -> Result<f64, String> {
    let bad = || format!("{} is not a {data_type} value", describe(literal));
    if let Some(text) = text_of(literal) {
        return text.trim().parse::<f64>().map_err(|_| bad());
    }
    let a = literal.array();
    if let DataType::Decimal32(_, s) | DataType::Decimal64(_, s) | DataType::Decimal128(_, s) = a.data_type() {
        let v = cast_with_options(a, &DataType::Decimal128(38, *s), &strict()).map_err(|_| bad())?;
        return Ok(v.as_primitive::<Decimal128Type>().value(0) as f64 / 10f64.powi(*s as i32));
    }
    let v = cast_with_options(a, &DataType::Float64, &strict()).map_err(|_| bad())?;
    Ok(v.as_primitive::<Float64Type>().value(0))
}

/// The scale of a decimal column, 0 for other integer-backed ones.
fn scale_of(data_type: &DataType) -> i8 {
    match data_type {
        DataType::Decimal32(_, s) | DataType::Decimal64(_, s) | DataType::Decimal128(_, s) => *s,
        _ => 0,
    }
}

/// `v` at scale `from` as a number at scale `to`.
fn rescale(v: i128, from: i8, to: i8) -> Number {
    let shift = to as i32 - from as i32;
    let power = |n: i32| 10i128.checked_pow(n.unsigned_abs());
    match shift {
        0 => Number::Exact(v),
        s if s > 0 => match power(s).and_then(|p| v.checked_mul(p)) {
            Some(x) => Number::Exact(x),
            None => Number::Real(v as f64 * 10f64.powi(s)),
        },
        s => match power(s) {
            Some(p) if v % p == 0 => Number::Exact(v / p),
            Some(p) => Number::Real(v as f64 / p as f64),
            None => Number::Real(0.0),
        },
    }
}

/// A literal for an integer-backed column, in its stored units.
fn integer(literal: &Literal, data_type: &DataType) -> Result<Number, String> {
    use DataType::*;
    let bad = || format!("{} is not a {data_type} value", describe(literal));
    let scale = scale_of(data_type);
    if let Some(text) = text_of(literal) {
        // More fraction digits than the column's scale: read them all (a cast would round them away).
        let digits = text.trim().split_once('.').map_or(0, |(_, f)| f.bytes().take_while(u8::is_ascii_digit).count());
        if scale != 0 && digits > scale.max(0) as usize && digits <= 38 {
            if let Some(v) = stored_integer(text, &Decimal128(38, digits as i8)) {
                return Ok(rescale(v, digits as i8, scale));
            }
        }
        return match stored_integer(text, data_type) {
            Some(v) => Ok(Number::Exact(v)),
            // `2.5` in an integer or decimal column: between two stored values.
            None if matches!(data_type, Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64)
                || scale != 0 =>
            {
                let v = text.trim().parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(bad)?;
                Ok(Number::Real(v * 10f64.powi(scale as i32)))
            }
            None => Err(bad()),
        };
    }
    let a = literal.array();
    match a.data_type() {
        // Read in place: a join's build side pushes 10^4 keys, lowered again for every segment.
        Int8 => Ok(rescale(a.as_primitive::<Int8Type>().value(0) as i128, 0, scale)),
        Int16 => Ok(rescale(a.as_primitive::<Int16Type>().value(0) as i128, 0, scale)),
        Int32 => Ok(rescale(a.as_primitive::<Int32Type>().value(0) as i128, 0, scale)),
        Int64 => Ok(rescale(a.as_primitive::<Int64Type>().value(0) as i128, 0, scale)),
        UInt8 => Ok(rescale(a.as_primitive::<UInt8Type>().value(0) as i128, 0, scale)),
        UInt16 => Ok(rescale(a.as_primitive::<UInt16Type>().value(0) as i128, 0, scale)),
        UInt32 => Ok(rescale(a.as_primitive::<UInt32Type>().value(0) as i128, 0, scale)),
        UInt64 => Ok(rescale(a.as_primitive::<UInt64Type>().value(0) as i128, 0, scale)),
        Float16 | Float32 | Float64 => Ok(Number::Real(real(literal, data_type)? * 10f64.powi(scale as i32))),
        Decimal32(_, s) | Decimal64(_, s) | Decimal128(_, s) => {
            let v = cast_with_options(a, &Decimal128(38, *s), &strict()).map_err(|_| bad())?;
            Ok(rescale(v.as_primitive::<Decimal128Type>().value(0), *s, scale))
        }
        Boolean => Ok(Number::Exact(a.as_boolean().value(0) as i128)),
        _ => {
            // Dates, times, timestamps, durations: the column's own type, as its stored integer.
            let typed = cast_with_options(a, data_type, &strict()).map_err(|_| bad())?;
            let raw = cast_with_options(&typed, &Int64, &strict()).map_err(|_| bad())?;
            Ok(Number::Exact(raw.as_primitive::<Int64Type>().value(0) as i128))
        }
    }
}

/// The integer an `.lwc` file stores for `text` in a column of `data_type`: integers as they are, dates
/// as days (`1995-03-15` or a day number), decimals scaled, timestamps and times in their unit (ISO text or
/// a number), booleans as 0/1. `None` if the text is no such value.
pub(crate) fn stored_integer(text: &str, data_type: &DataType) -> Option<i128> {
    use DataType::*;
    let text = text.trim();
    let cast = |to: &DataType| {
        let array: ArrayRef = Arc::new(StringArray::from(vec![text]));
        cast_with_options(&array, to, &strict()).ok().filter(|a| a.is_valid(0))
    };
    match data_type {
        Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64 => text.parse::<i128>().ok(),
        Boolean => match text.to_ascii_lowercase().as_str() {
            "true" | "1" => Some(1),
            "false" | "0" => Some(0),
            _ => None,
        },
        Decimal32(_, s) | Decimal64(_, s) | Decimal128(_, s) => {
            Some(cast(&Decimal128(38, *s))?.as_primitive::<Decimal128Type>().value(0))
        }
        _ => {
            if let Ok(v) = text.parse::<i128>() {
                return Some(v);
            }
            let raw = arrow_cast::cast(&cast(data_type)?, &Int64).ok()?;
            Some(raw.as_primitive::<Int64Type>().value(0) as i128)
        }
    }
}

/// The smallest and largest value of an integer type.
fn int_range(t: ValueType) -> (i128, i128) {
    fn of<T: LwcInt>() -> (i128, i128) {
        (T::MIN.to_i128(), T::MAX.to_i128())
    }
    match t {
        ValueType::U8 => of::<u8>(),
        ValueType::U16 => of::<u16>(),
        ValueType::U32 => of::<u32>(),
        ValueType::U64 => of::<u64>(),
        ValueType::I8 => of::<i8>(),
        ValueType::I16 => of::<i16>(),
        ValueType::I32 => of::<i32>(),
        ValueType::I64 => of::<i64>(),
        // Floats compare as latents ([`Keys::F32`], [`Keys::F64`]), never as integers.
        ValueType::F32 | ValueType::F64 => (i128::MIN, i128::MAX),
    }
}

/// Where a number falls among the integers `min..=max`.
fn int_bound(number: Number, (min, max): (i128, i128)) -> Bound {
    let (below, above) = match number {
        Number::Exact(v) if (min..=max).contains(&v) => return Bound::Exact(v),
        Number::Exact(v) => (v.checked_sub(1), v.checked_add(1)),
        Number::Real(v) if v.is_nan() => (Some(max), None),
        Number::Real(v) if v.fract() == 0.0 && v.abs() < 1e38 => {
            return int_bound(Number::Exact(v as i128), (min, max))
        }
        // `as` saturates: far-off reals land past the ends.
        Number::Real(v) => (Some(v.floor() as i128), Some(v.ceil() as i128)),
    };
    let below = below.filter(|&b| b >= min).map(|b| b.min(max));
    let above = above.filter(|&a| a <= max).map(|a| a.max(min));
    Bound::Between(below, above)
}

/// Where an `f64` falls among the `f32` values, by their latents (consecutive latents are neighbouring
/// floats, so the neighbours of an inexact literal are one latent apart).
fn f32_bound(v: f64) -> Bound {
    let r = v as f32;
    let latent = r.to_latent() as i128;
    if v.is_nan() || r as f64 == v {
        Bound::Exact(latent)
    } else if (r as f64) > v {
        Bound::Between(Some(latent - 1), Some(latent))
    } else {
        Bound::Between(Some(latent), Some(latent + 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bound(literal: impl Into<Literal>, data_type: DataType, keys: Keys) -> Bound {
        key_bound(&literal.into(), &data_type, keys).unwrap().unwrap()
    }

    #[test]
    fn text_follows_the_column_type() {
        let i32s = Keys::Int(ValueType::I32);
        assert_eq!(bound(Literal::text("-7"), DataType::Int32, i32s), Bound::Exact(-7));
        assert_eq!(bound(Literal::text("1970-01-11"), DataType::Date32, i32s), Bound::Exact(10));
        assert_eq!(bound(Literal::text("8035"), DataType::Date32, i32s), Bound::Exact(8035));
        let i64s = Keys::Int(ValueType::I64);
        assert_eq!(bound(Literal::text("3"), DataType::Decimal128(15, 2), i64s), Bound::Exact(300));
        assert_eq!(bound(Literal::text("0.05"), DataType::Decimal128(15, 2), i64s), Bound::Exact(5));
        assert_eq!(bound(Literal::text("true"), DataType::Boolean, Keys::Int(ValueType::U8)), Bound::Exact(1));
        assert!(key_bound(&Literal::text("abc"), &DataType::Int64, i64s).is_err());
        assert!(key_bound(&Literal::text("1995-13-45"), &DataType::Date32, i32s).is_err());
        assert_eq!(key_bound(&Literal::null(), &DataType::Int64, i64s), Ok(None));
    }

    #[test]
    fn literals_between_values_fold() {
        let u8s = Keys::Int(ValueType::U8);
        assert_eq!(bound(300i64, DataType::UInt8, u8s), Bound::Between(Some(255), None));
        assert_eq!(bound(-1i64, DataType::UInt8, u8s), Bound::Between(None, Some(0)));
        assert_eq!(bound(2.5f64, DataType::UInt8, u8s), Bound::Between(Some(2), Some(3)));
        assert_eq!(bound(Literal::text("2.5"), DataType::UInt8, u8s), Bound::Between(Some(2), Some(3)));
        assert_eq!(bound(2.0f64, DataType::UInt8, u8s), Bound::Exact(2));
        assert_eq!(bound(f64::NAN, DataType::UInt8, u8s), Bound::Between(Some(255), None));
        let d2 = DataType::Decimal128(15, 2);
        let i64s = Keys::Int(ValueType::I64);
        assert_eq!(bound(Literal::text("0.125"), d2.clone(), i64s), Bound::Between(Some(12), Some(13)));
        assert_eq!(bound(7i64, d2, i64s), Bound::Exact(700));
        let f = |v: f32| v.to_latent() as i128;
        assert_eq!(bound(0.5f64, DataType::Float32, Keys::F32), Bound::Exact(f(0.5)));
        let tenth = 0.1f32;
        assert!((tenth as f64) > 0.1);
        assert_eq!(bound(0.1f64, DataType::Float32, Keys::F32), Bound::Between(Some(f(tenth) - 1), Some(f(tenth))));
        assert_eq!(
            bound(1e300f64, DataType::Float32, Keys::F32),
            Bound::Between(Some(f(f32::MAX)), Some(f(f32::INFINITY)))
        );
        assert_eq!(
            bound(Literal::text("NaN"), DataType::Float64, Keys::F64),
            Bound::Exact(f64::NAN.to_latent() as i128)
        );
    }
}
