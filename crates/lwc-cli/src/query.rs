//! `--where` conditions, `--rows` lists, literals in a column's type, and scans on encoded columns.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use arrow::array::{Array, ArrayRef, AsArray, Decimal128Array, Int32Array, Int64Array, StringArray};
use arrow::compute::CastOptions;
use arrow::datatypes::{DataType, Int64Type};
use arrow::util::display::{ArrayFormatter, FormatOptions};
use lwc::{LwcInt, Predicate};

/// Rows a `--rows` list may name at most.
pub const MAX_LISTED_ROWS: u64 = 10_000_000;

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
}

/// A parsed `--where` condition; literals are still text, read in the column's type later.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition {
    /// `OP literal`
    Compare(Op, String),
    /// `between lo and hi` (inclusive)
    Between(String, String),
    /// `in (a, b, ...)`
    In(Vec<String>),
    /// `is null`
    IsNull,
    /// `is not null`
    IsNotNull,
}

/// Parses a condition such as `> 10`, `= 5`, `between 3 and 9`, `in (1,2,3)`, `is null`, `is not null`,
/// `<> 4`, `<= '1995-03-15'`. It may start with the column's name (`l_quantity < 3`).
pub fn parse_condition(text: &str, column: &str) -> Result<Condition> {
    let mut rest = text.trim();
    if let Some(after) = rest.strip_prefix(column) {
        if after.starts_with(|c: char| c.is_whitespace() || "<>=!".contains(c)) {
            rest = after.trim_start();
        }
    }
    let lower = rest.to_ascii_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    if words == ["is", "null"] {
        return Ok(Condition::IsNull);
    }
    if words == ["is", "not", "null"] {
        return Ok(Condition::IsNotNull);
    }
    if lower.starts_with("between") && lower[7..].starts_with(char::is_whitespace) {
        let body = &rest[7..];
        let at = lower[7..].find(" and ").with_context(|| format!("'{text}': between needs `between LO and HI`"))?;
        let (lo, hi) = (literal(&body[..at])?, literal(&body[at + 5..])?);
        return Ok(Condition::Between(lo, hi));
    }
    if lower.starts_with("in") && lower[2..].trim_start().starts_with('(') {
        let body = rest[2..].trim();
        let inner = body
            .strip_prefix('(')
            .and_then(|b| b.strip_suffix(')'))
            .with_context(|| format!("'{text}': a list needs `in (A, B, ...)`"))?;
        let items = inner.split(',').map(literal).collect::<Result<Vec<_>>>()?;
        return Ok(Condition::In(items));
    }
    for (symbol, op) in [
        ("<>", Op::NotEq),
        ("!=", Op::NotEq),
        ("<=", Op::LtEq),
        (">=", Op::GtEq),
        ("==", Op::Eq),
        ("=", Op::Eq),
        ("<", Op::Lt),
        (">", Op::Gt),
    ] {
        if let Some(value) = rest.strip_prefix(symbol) {
            return Ok(Condition::Compare(op, literal(value)?));
        }
    }
    bail!("cannot read the condition '{text}': use `> 10`, `<= 5`, `= 5`, `<> 5`, `between 3 and 9`, `in (1, 2, 3)`, `is null` or `is not null`")
}

/// A literal: trimmed, quotes removed, not empty.
fn literal(text: &str) -> Result<String> {
    let t = text.trim();
    let t = t
        .strip_prefix('\'')
        .and_then(|t| t.strip_suffix('\''))
        .or_else(|| t.strip_prefix('"').and_then(|t| t.strip_suffix('"')))
        .unwrap_or(t);
    if t.is_empty() {
        bail!("a value is missing in the condition");
    }
    Ok(t.to_string())
}

/// The integer an `.lwc` file stores for `text` in a column of `data_type`: integers as they are, dates
/// as days (`1995-03-15` or a day number), decimals scaled (`3` is `3.00` in a scale-2 column), timestamps
/// and times in their unit (ISO text or a number), booleans as 0/1.
pub fn literal_value(text: &str, data_type: &DataType) -> Result<i128> {
    use DataType::*;
    let bad = || format!("'{text}' is not a {data_type} value");
    match data_type {
        Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64 => text.parse::<i128>().with_context(bad),
        Boolean => match text.to_ascii_lowercase().as_str() {
            "true" | "1" => Ok(1),
            "false" | "0" => Ok(0),
            _ => bail!(bad()),
        },
        Decimal32(_, s) | Decimal64(_, s) | Decimal128(_, s) => {
            let strict = CastOptions { safe: false, ..Default::default() };
            let parsed = arrow::compute::cast_with_options(&string_array(text), &Decimal128(38, *s), &strict)
                .ok()
                .filter(|a| a.is_valid(0))
                .with_context(bad)?;
            Ok(parsed.as_primitive::<arrow::datatypes::Decimal128Type>().value(0))
        }
        _ => {
            if let Ok(v) = text.parse::<i128>() {
                return Ok(v);
            }
            let strict = CastOptions { safe: false, ..Default::default() };
            let typed = arrow::compute::cast_with_options(&string_array(text), data_type, &strict)
                .ok()
                .filter(|a| a.is_valid(0))
                .with_context(bad)?;
            let raw = arrow::compute::cast(&typed, &Int64).with_context(bad)?;
            Ok(raw.as_primitive::<Int64Type>().value(0) as i128)
        }
    }
}

fn string_array(text: &str) -> ArrayRef {
    Arc::new(StringArray::from(vec![text]))
}

/// A stored integer shown in the column's type: `1995-03-15` for a date, `12.50` for a decimal.
pub fn format_value(value: i128, data_type: &DataType) -> String {
    use DataType::*;
    let array: ArrayRef = match data_type {
        Decimal32(_, s) | Decimal64(_, s) | Decimal128(_, s) => {
            match Decimal128Array::from(vec![value]).with_precision_and_scale(38, *s) {
                Ok(a) => Arc::new(a),
                Err(_) => return value.to_string(),
            }
        }
        Boolean => return (value != 0).to_string(),
        Date32 | Time32(_) => match i32::try_from(value) {
            Ok(v) => Arc::new(Int32Array::from(vec![v])),
            Err(_) => return value.to_string(),
        },
        Date64 | Timestamp(_, _) | Time64(_) | Duration(_) => match i64::try_from(value) {
            Ok(v) => Arc::new(Int64Array::from(vec![v])),
            Err(_) => return value.to_string(),
        },
        _ => return value.to_string(),
    };
    let typed = match data_type {
        Decimal32(..) | Decimal64(..) | Decimal128(..) => Ok(array),
        _ => arrow::compute::cast(&array, data_type),
    };
    typed.ok().and_then(|a| format_cell(&a, 0).ok()).unwrap_or_else(|| value.to_string())
}

/// One cell of an array as text (`NULL` for nulls).
pub fn format_cell(array: &ArrayRef, row: usize) -> Result<String> {
    let options = FormatOptions::default().with_null("NULL");
    let formatter = ArrayFormatter::try_new(array.as_ref(), &options)?;
    Ok(formatter.value(row).to_string())
}

/// The predicate a condition means on a column of `T` stored for `data_type`. Literals outside `T`'s
/// range are folded in (`> 300` on a `u8` column selects nothing, `< 300` every non-null row).
pub fn to_predicate<T: LwcInt + TryFrom<i128>>(condition: &Condition, data_type: &DataType) -> Result<Predicate<T>> {
    let (min, max) = (T::MIN.to_i128(), T::MAX.to_i128());
    let nothing = Predicate::Between(T::MAX, T::MIN);
    let exact = |v: i128| T::try_from(v).ok();
    let clamp = |v: i128| T::try_from(v.clamp(min, max)).ok().expect("clamped into range");
    Ok(match condition {
        Condition::IsNull => Predicate::IsNull,
        Condition::IsNotNull => Predicate::IsNotNull,
        Condition::Compare(op, text) => {
            let v = literal_value(text, data_type)?;
            match (op, exact(v)) {
                (Op::Eq, Some(c)) => Predicate::Eq(c),
                (Op::Eq, None) => nothing,
                (Op::NotEq, Some(c)) => Predicate::NotEq(c),
                (Op::NotEq, None) => Predicate::IsNotNull,
                (Op::Lt, _) if v > max => Predicate::IsNotNull,
                (Op::Lt, _) if v <= min => nothing,
                (Op::LtEq, _) if v >= max => Predicate::IsNotNull,
                (Op::LtEq, _) if v < min => nothing,
                (Op::Gt, _) if v >= max => nothing,
                (Op::Gt, _) if v < min => Predicate::IsNotNull,
                (Op::GtEq, _) if v > max => nothing,
                (Op::GtEq, _) if v <= min => Predicate::IsNotNull,
                (Op::Lt, _) => Predicate::Lt(clamp(v)),
                (Op::LtEq, _) => Predicate::LtEq(clamp(v)),
                (Op::Gt, _) => Predicate::Gt(clamp(v)),
                (Op::GtEq, _) => Predicate::GtEq(clamp(v)),
            }
        }
        Condition::Between(lo, hi) => {
            let (lo, hi) = (literal_value(lo, data_type)?, literal_value(hi, data_type)?);
            if lo > hi || lo > max || hi < min {
                nothing
            } else {
                Predicate::Between(clamp(lo), clamp(hi))
            }
        }
        Condition::In(items) => {
            let values = items.iter().map(|t| literal_value(t, data_type)).collect::<Result<Vec<_>>>()?;
            Predicate::In(values.into_iter().filter_map(exact).collect())
        }
    })
}

/// What a scan found.
#[derive(Debug, Clone, PartialEq)]
pub struct ScanResult {
    /// Rows selected (nulls included for `is null`; all rows without a condition).
    pub rows: u64,
    /// Non-null rows among them.
    pub count: u64,
    /// Sum of their values (stored integers).
    pub sum: i128,
    /// Smallest value.
    pub min: Option<i128>,
    /// Largest value.
    pub max: Option<i128>,
    /// Segments of the column.
    pub segments: usize,
    /// Segments with at least one selected row.
    pub segments_matched: usize,
    /// Time for filter and aggregate.
    pub elapsed: Duration,
}

/// Filters (when a predicate is given) and aggregates a column on its encoded segments.
pub fn scan<T: LwcInt>(column: &lwc::Column<'_, T>, predicate: Option<&Predicate<T>>) -> Result<ScanResult> {
    let start = Instant::now();
    let (aggregates, matched) = match predicate {
        Some(p) => {
            let selection = column.filter(p);
            (column.aggregate(Some(&selection))?, selection.parts.len())
        }
        None => (column.aggregate(None)?, column.segments().len()),
    };
    let elapsed = start.elapsed();
    Ok(ScanResult {
        rows: aggregates.count + aggregates.null_count,
        count: aggregates.count,
        sum: aggregates.sum,
        min: aggregates.min.map(LwcInt::to_i128),
        max: aggregates.max.map(LwcInt::to_i128),
        segments: column.segments().len(),
        segments_matched: matched,
        elapsed,
    })
}

/// Parses `--rows`: row ids and ranges separated by commas: `5,17,99`, `10..20` (20 excluded),
/// `10..=20`. Every row must be below `rows`.
pub fn parse_rows(text: &str, rows: u64) -> Result<Vec<u64>> {
    let mut out = Vec::new();
    let number = |t: &str| -> Result<u64> {
        t.trim().replace('_', "").parse::<u64>().with_context(|| format!("'{}' is not a row number", t.trim()))
    };
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let range = if let Some((a, b)) = part.split_once("..=") {
            let (a, b) = (number(a)?, number(b)?);
            a..b.checked_add(1).context("row range too large")?
        } else if let Some((a, b)) = part.split_once("..") {
            number(a)?..number(b)?
        } else {
            let a = number(part)?;
            a..a + 1
        };
        if range.start > range.end {
            bail!("the range '{part}' is empty or reversed");
        }
        if range.end > rows {
            bail!("row {} is out of range: the file has {} rows (0..{rows})", range.end - 1, rows);
        }
        if out.len() as u64 + (range.end - range.start) > MAX_LISTED_ROWS {
            bail!("more than {MAX_LISTED_ROWS} rows listed");
        }
        out.extend(range);
    }
    if out.is_empty() {
        bail!("no rows given");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lwc::{EncodeOptions, EncodedColumn};

    #[test]
    fn conditions_parse() {
        use Condition::*;
        assert_eq!(parse_condition("> 10", "x").unwrap(), Compare(Op::Gt, "10".into()));
        assert_eq!(parse_condition("x<=-3", "x").unwrap(), Compare(Op::LtEq, "-3".into()));
        assert_eq!(parse_condition("<> 4", "x").unwrap(), Compare(Op::NotEq, "4".into()));
        assert_eq!(parse_condition("= '1995-03-15'", "d").unwrap(), Compare(Op::Eq, "1995-03-15".into()));
        assert_eq!(parse_condition("between 3 and 9", "x").unwrap(), Between("3".into(), "9".into()));
        assert_eq!(parse_condition("x BETWEEN 3 AND 9", "x").unwrap(), Between("3".into(), "9".into()));
        assert_eq!(parse_condition("in (1, 2,3)", "x").unwrap(), In(vec!["1".into(), "2".into(), "3".into()]));
        assert_eq!(parse_condition("IS NULL", "x").unwrap(), IsNull);
        assert_eq!(parse_condition("is  not null", "x").unwrap(), IsNotNull);
        assert!(parse_condition("like 'a%'", "x").is_err());
        assert!(parse_condition("between 3", "x").is_err());
        assert!(parse_condition(">", "x").is_err());
    }

    #[test]
    fn literals_follow_the_column_type() {
        assert_eq!(literal_value("-7", &DataType::Int32).unwrap(), -7);
        assert_eq!(literal_value("1970-01-11", &DataType::Date32).unwrap(), 10);
        assert_eq!(literal_value("8035", &DataType::Date32).unwrap(), 8035);
        assert_eq!(literal_value("3", &DataType::Decimal128(15, 2)).unwrap(), 300);
        assert_eq!(literal_value("0.05", &DataType::Decimal128(15, 2)).unwrap(), 5);
        assert_eq!(literal_value("true", &DataType::Boolean).unwrap(), 1);
        assert!(literal_value("abc", &DataType::Int64).is_err());
        assert!(literal_value("1995-13-45", &DataType::Date32).is_err());
        assert_eq!(format_value(10, &DataType::Date32), "1970-01-11");
        assert_eq!(format_value(-1250, &DataType::Decimal128(15, 2)), "-12.50");
        assert_eq!(format_value(42, &DataType::Int16), "42");
    }

    #[test]
    fn out_of_range_literals_fold() {
        let p = |text: &str| to_predicate::<u8>(&parse_condition(text, "x").unwrap(), &DataType::UInt8).unwrap();
        let nothing = Predicate::Between(u8::MAX, u8::MIN);
        assert_eq!(p("> 300"), nothing);
        assert_eq!(p("< 300"), Predicate::IsNotNull);
        assert_eq!(p("= -1"), nothing);
        assert_eq!(p("<> -1"), Predicate::IsNotNull);
        assert_eq!(p(">= -5"), Predicate::IsNotNull);
        assert_eq!(p("between -5 and 3"), Predicate::Between(0, 3));
        assert_eq!(p("in (1, 256)"), Predicate::In(vec![1]));
        assert_eq!(p("< 7"), Predicate::Lt(7));
    }

    #[test]
    fn scans_agree_with_a_plain_loop() {
        let values: Vec<i32> = (0..100_000).map(|i| (i * 37) % 1000 - 500).collect();
        let encoded = EncodedColumn::encode(&values, None, EncodeOptions::default()).unwrap();
        let column = encoded.open::<i32>().unwrap();
        let p = to_predicate::<i32>(&parse_condition("between -10 and 20", "x").unwrap(), &DataType::Int32).unwrap();
        let r = scan(&column, Some(&p)).unwrap();
        let want: Vec<i32> = values.iter().copied().filter(|v| (-10..=20).contains(v)).collect();
        assert_eq!(r.count, want.len() as u64);
        assert_eq!(r.sum, want.iter().map(|&v| v as i128).sum::<i128>());
        assert_eq!(r.min, Some(-10));
        assert_eq!(r.max, Some(20));
        let all = scan(&column, None).unwrap();
        assert_eq!(all.rows, 100_000);
    }

    #[test]
    fn row_lists_parse_and_check_bounds() {
        assert_eq!(parse_rows("5,17, 99", 100).unwrap(), vec![5, 17, 99]);
        assert_eq!(parse_rows("10..13,2..=3", 100).unwrap(), vec![10, 11, 12, 2, 3]);
        assert!(parse_rows("100", 100).is_err());
        assert!(parse_rows("5..3", 100).is_err());
        assert!(parse_rows("x", 100).is_err());
        assert!(parse_rows("", 100).is_err());
    }
}
