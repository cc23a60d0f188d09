//! `--where` conditions, `--rows` lists, and values shown in a column's type.

use std::sync::Arc;

use anyhow::{bail, Context, Result};
use arrow::array::{ArrayRef, Decimal128Array, Int32Array, Int64Array};
use arrow::datatypes::DataType;
use arrow::util::display::{ArrayFormatter, FormatOptions};
use lwc_file::{Filter, LwcFile, Sum};

/// Rows a `--rows` list may name at most.
pub const MAX_LISTED_ROWS: u64 = 10_000_000;

/// The filter of one or more `--where` conditions, all of which must hold. A condition is on `column`
/// unless it starts with the name of another column of the file (`l_shipdate <= '1998-09-02'`).
pub fn where_filter(file: &LwcFile, column: &str, conditions: &[String]) -> Result<Option<Filter>> {
    let mut names: Vec<&str> = file.columns().iter().map(|c| c.name.as_str()).collect();
    // The longest name first, so `price_total` is not read as `price` followed by `_total`.
    names.sort_by_key(|n| std::cmp::Reverse(n.len()));
    let mut filter: Option<Filter> = None;
    for text in conditions {
        let trimmed = text.trim();
        let named = names.iter().find(|n| {
            trimmed
                .strip_prefix(**n)
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_whitespace() || "<>=!".contains(c)))
        });
        let on = named.copied().unwrap_or(column);
        let condition = Filter::parse(on, trimmed)?;
        filter = Some(match filter {
            Some(f) => f.and(condition),
            None => condition,
        });
    }
    Ok(filter)
}

/// A sum in the column's terms: a decimal's scaled, a float's and an integer's as they are.
pub fn format_sum(sum: Sum, data_type: &DataType) -> String {
    match (sum, data_type) {
        (Sum::Int(v), DataType::Decimal32(..) | DataType::Decimal64(..) | DataType::Decimal128(..)) => {
            format_value(v, data_type)
        }
        (Sum::Int(v), _) => v.to_string(),
        (Sum::Float(v), _) => v.to_string(),
    }
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

    #[test]
    fn values_show_in_their_type() {
        assert_eq!(format_value(10, &DataType::Date32), "1970-01-11");
        assert_eq!(format_value(-1250, &DataType::Decimal128(15, 2)), "-12.50");
        assert_eq!(format_value(42, &DataType::Int16), "42");
        assert_eq!(format_sum(Sum::Int(1250), &DataType::Decimal64(10, 2)), "12.50");
        assert_eq!(format_sum(Sum::Float(2.5), &DataType::Float64), "2.5");
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
