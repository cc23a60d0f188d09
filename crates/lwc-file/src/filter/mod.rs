//! Filters on a file's columns: comparisons, ranges, lists, null tests and prefixes of one column each,
//! combined with and, or and not. Literals are Arrow scalars read in the column's type by one set of
//! rules ([`literal`]), so the `lwc` command, SQL and Python select the same rows for the same condition.
//!
//! ```
//! use lwc_file::{CompareOp, Filter};
//! let cheap = Filter::compare("price", CompareOp::Lt, 10.5);
//! let promo = Filter::starts_with("type", "PROMO");
//! let shipped = Filter::parse("shipdate", "between '1995-01-01' and '1995-12-31'")?;
//! let filter = cheap.and(promo.or(shipped.not()));
//! assert_eq!(
//!     filter.to_string(),
//!     "price < 10.5 AND (type LIKE 'PROMO%' OR NOT shipdate BETWEEN '1995-01-01' AND '1995-12-31')"
//! );
//! # Ok::<(), lwc_file::Error>(())
//! ```

pub(crate) mod literal;
pub(crate) mod plan;
mod text;

use std::fmt;
use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, BinaryArray, BooleanArray, Float32Array, Float64Array, Int32Array, Int64Array, StringArray,
    UInt64Array,
};

use crate::error::{Error, Result};

/// One value of an Arrow type: a one-row array, as SQL engines hand scalars over (DataFusion's
/// `ScalarValue::to_array`). Text literals (`Utf8`) are read in the column's type: `'1995-03-15'` is a
/// date in a date column, `'3.5'` a decimal in a decimal column.
#[derive(Debug, Clone)]
pub struct Literal(ArrayRef);

impl Literal {
    /// A literal from a one-row array.
    pub fn new(array: ArrayRef) -> Result<Literal> {
        if array.len() != 1 {
            return Err(Error::InvalidArgument(format!("a literal is one value, not {} rows", array.len())));
        }
        Ok(Literal(array))
    }

    /// Text, read in the type of the column it is compared with.
    pub fn text(text: impl Into<String>) -> Literal {
        Literal(Arc::new(StringArray::from(vec![text.into()])))
    }

    /// SQL's NULL: comparisons with it select no row.
    pub fn null() -> Literal {
        Literal(arrow_array::new_null_array(&arrow_schema::DataType::Null, 1))
    }

    /// The one-row array.
    pub fn array(&self) -> &ArrayRef {
        &self.0
    }

    /// Whether the value is NULL.
    pub fn is_null(&self) -> bool {
        // Logical nulls: a `Null`-typed array has no validity buffer, yet its one value is NULL.
        self.0.logical_nulls().is_some_and(|n| n.is_null(0))
    }
}

impl PartialEq for Literal {
    fn eq(&self, other: &Literal) -> bool {
        self.0.as_ref() == other.0.as_ref()
    }
}

macro_rules! literal_from {
    ($($t:ty => $array:ty),*) => {$(
        impl From<$t> for Literal {
            fn from(v: $t) -> Literal {
                Literal(Arc::new(<$array>::from(vec![v])))
            }
        }
    )*};
}
literal_from!(i32 => Int32Array, i64 => Int64Array, u64 => UInt64Array, f32 => Float32Array, f64 => Float64Array,
    bool => BooleanArray, &str => StringArray, String => StringArray);

impl From<&[u8]> for Literal {
    fn from(v: &[u8]) -> Literal {
        Literal(Arc::new(BinaryArray::from(vec![v])))
    }
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use arrow_schema::DataType::*;
        if self.is_null() {
            return f.write_str("NULL");
        }
        let text = arrow_cast::display::array_value_to_string(&self.0, 0).map_err(|_| fmt::Error)?;
        match self.0.data_type() {
            // Text that reads as a number shows bare, as it was most likely written (`qty > 3`).
            Utf8 | LargeUtf8 | Utf8View if text.parse::<f64>().is_ok_and(f64::is_finite) => f.write_str(&text),
            Utf8 | LargeUtf8 | Utf8View | Date32 | Date64 | Timestamp(..) | Time32(_) | Time64(_) => {
                write!(f, "'{}'", text.replace('\'', "''"))
            }
            Binary | LargeBinary | BinaryView | FixedSizeBinary(_) => write!(f, "X'{text}'"),
            _ => f.write_str(&text),
        }
    }
}

/// A comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompareOp {
    /// `=`
    Eq,
    /// `<>`
    NotEq,
    /// `<`
    Lt,
    /// `<=`
    LtEq,
    /// `>`
    Gt,
    /// `>=`
    GtEq,
}

impl CompareOp {
    /// The SQL symbol.
    pub fn symbol(self) -> &'static str {
        match self {
            CompareOp::Eq => "=",
            CompareOp::NotEq => "<>",
            CompareOp::Lt => "<",
            CompareOp::LtEq => "<=",
            CompareOp::Gt => ">",
            CompareOp::GtEq => ">=",
        }
    }
}

/// What a filter asks of one column's value. Comparisons never select NULLs; floats compare in IEEE's
/// total order (NaN above +inf, -0.0 below +0.0) as Arrow's kernels do; strings and binaries byte-wise.
#[derive(Debug, Clone, PartialEq)]
pub enum Test {
    /// `x OP literal`
    Compare(CompareOp, Literal),
    /// `lo <= x <= hi`
    Between(Literal, Literal),
    /// `x IN (...)`
    In(Vec<Literal>),
    /// `x IS NULL`
    IsNull,
    /// `x IS NOT NULL`
    IsNotNull,
    /// `x LIKE 'prefix%'`: strings and binaries that start with these bytes.
    StartsWith(Vec<u8>),
}

/// A condition on a file's rows.
#[derive(Debug, Clone, PartialEq)]
pub enum Filter {
    /// A test of one column.
    Column {
        /// The column's name.
        column: String,
        /// What its value must pass.
        test: Test,
    },
    /// Every filter holds.
    And(Vec<Filter>),
    /// At least one holds.
    Or(Vec<Filter>),
    /// The filter is false (not unknown: `NOT (x > 5)` does not select NULLs, as in SQL).
    Not(Box<Filter>),
}

impl Filter {
    /// `column test`.
    pub fn column(column: impl Into<String>, test: Test) -> Filter {
        Filter::Column { column: column.into(), test }
    }

    /// `column OP value`.
    pub fn compare(column: impl Into<String>, op: CompareOp, value: impl Into<Literal>) -> Filter {
        Filter::column(column, Test::Compare(op, value.into()))
    }

    /// `column BETWEEN lo AND hi` (inclusive).
    pub fn between(column: impl Into<String>, lo: impl Into<Literal>, hi: impl Into<Literal>) -> Filter {
        Filter::column(column, Test::Between(lo.into(), hi.into()))
    }

    /// `column IN (values)`.
    pub fn in_list<L: Into<Literal>>(column: impl Into<String>, values: impl IntoIterator<Item = L>) -> Filter {
        Filter::column(column, Test::In(values.into_iter().map(Into::into).collect()))
    }

    /// `column IS NULL`.
    pub fn is_null(column: impl Into<String>) -> Filter {
        Filter::column(column, Test::IsNull)
    }

    /// `column IS NOT NULL`.
    pub fn is_not_null(column: impl Into<String>) -> Filter {
        Filter::column(column, Test::IsNotNull)
    }

    /// `column LIKE 'prefix%'`.
    pub fn starts_with(column: impl Into<String>, prefix: impl AsRef<[u8]>) -> Filter {
        Filter::column(column, Test::StartsWith(prefix.as_ref().to_vec()))
    }

    /// A condition as the `lwc` command takes it, on `column`: `> 10`, `<= '1995-03-15'`, `<> 4`,
    /// `between 3 and 9`, `in (1, 2, 3)`, `is null`, `is not null`, `like 'PROMO%'`; it may start with the
    /// column's name (`price < 10`). Literals are text, read in the column's type when the filter runs.
    pub fn parse(column: &str, condition: &str) -> Result<Filter> {
        text::parse(column, condition)
    }

    /// A whole condition over any columns, as a SQL `WHERE` clause writes it:
    /// `l_quantity < 3 and (l_shipmode in ('MAIL', 'SHIP') or not l_comment like 'fur%')`. Each test is a
    /// column name (double-quoted if it is not a plain word) and a condition as [`Filter::parse`] takes it;
    /// tests combine with `and`, `or`, `not` and parentheses (`and` binds tighter than `or`).
    ///
    /// ```
    /// use lwc_file::{CompareOp, Filter};
    /// let filter = Filter::parse_expression("qty < 3 and (mode = 'MAIL' or \"ship date\" between 1 and 9)")?;
    /// assert_eq!(filter.columns(), ["qty", "mode", "ship date"]);
    /// assert!(Filter::parse_expression("qty < 3 and").is_err());
    /// # Ok::<(), lwc_file::Error>(())
    /// ```
    pub fn parse_expression(text: &str) -> Result<Filter> {
        text::parse_expression(text)
    }

    /// Both hold.
    pub fn and(self, other: Filter) -> Filter {
        match self {
            Filter::And(mut all) => {
                all.push(other);
                Filter::And(all)
            }
            first => Filter::And(vec![first, other]),
        }
    }

    /// Either holds.
    pub fn or(self, other: Filter) -> Filter {
        match self {
            Filter::Or(mut any) => {
                any.push(other);
                Filter::Or(any)
            }
            first => Filter::Or(vec![first, other]),
        }
    }

    /// The filter is false.
    #[allow(clippy::should_implement_trait)]
    pub fn not(self) -> Filter {
        Filter::Not(Box::new(self))
    }

    /// The columns the filter reads, each once, in order of first mention.
    pub fn columns(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.visit(&mut |c| {
            if !out.contains(&c) {
                out.push(c)
            }
        });
        out
    }

    fn visit<'a>(&'a self, f: &mut impl FnMut(&'a str)) {
        match self {
            Filter::Column { column, .. } => f(column),
            Filter::And(all) | Filter::Or(all) => all.iter().for_each(|x| x.visit(f)),
            Filter::Not(x) => x.visit(f),
        }
    }
}

impl fmt::Display for Test {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Test::Compare(op, v) => write!(f, "{} {v}", op.symbol()),
            Test::Between(lo, hi) => write!(f, "BETWEEN {lo} AND {hi}"),
            Test::In(values) => {
                let items: Vec<String> = values.iter().map(|v| v.to_string()).collect();
                write!(f, "IN ({})", items.join(", "))
            }
            Test::IsNull => f.write_str("IS NULL"),
            Test::IsNotNull => f.write_str("IS NOT NULL"),
            Test::StartsWith(p) => write!(f, "LIKE '{}%'", String::from_utf8_lossy(p).replace('\'', "''")),
        }
    }
}

impl fmt::Display for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let joined = |f: &mut fmt::Formatter<'_>, parts: &[Filter], word: &str| {
            for (i, part) in parts.iter().enumerate() {
                if i > 0 {
                    write!(f, " {word} ")?;
                }
                match part {
                    Filter::And(_) | Filter::Or(_) if parts.len() > 1 => write!(f, "({part})")?,
                    _ => write!(f, "{part}")?,
                }
            }
            Ok(())
        };
        match self {
            Filter::Column { column, test } => write!(f, "{column} {test}"),
            Filter::And(all) => joined(f, all, "AND"),
            Filter::Or(any) => joined(f, any, "OR"),
            Filter::Not(x) => match x.as_ref() {
                Filter::Column { .. } | Filter::Not(_) => write!(f, "NOT {x}"),
                _ => write!(f, "NOT ({x})"),
            },
        }
    }
}
