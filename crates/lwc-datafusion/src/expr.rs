//! DataFusion filter expressions as lwc-file filters, where lwc can evaluate them exactly.

use datafusion::common::ScalarValue;
use datafusion::logical_expr::{Between, BinaryExpr, Expr, Like, Operator};
use lwc_file::{CompareOp, Filter, Literal};

/// The lwc-file filter that selects exactly the rows `expr` keeps in a `WHERE` clause, or `None` when some
/// part of it is not a test lwc runs on encoded columns (a function call, a cast of a column, arithmetic,
/// a comparison of two columns, a `LIKE` other than `'prefix%'`).
///
/// SQL's three-valued logic carries over: lwc's comparisons never select NULLs and `NOT` of an unknown
/// stays unknown, as `WHERE` drops both.
pub fn to_filter(expr: &Expr) -> Option<Filter> {
    match expr {
        Expr::BinaryExpr(BinaryExpr { left, op: Operator::And, right }) => {
            Some(to_filter(left)?.and(to_filter(right)?))
        }
        Expr::BinaryExpr(BinaryExpr { left, op: Operator::Or, right }) => Some(to_filter(left)?.or(to_filter(right)?)),
        Expr::BinaryExpr(BinaryExpr { left, op, right }) => {
            let op = compare_op(*op)?;
            match (column_name(left), literal(right), column_name(right), literal(left)) {
                (Some(c), Some(v), _, _) => Some(Filter::compare(c, op, v)),
                (_, _, Some(c), Some(v)) => Some(Filter::compare(c, flipped(op), v)),
                _ => None,
            }
        }
        Expr::Between(Between { expr, negated, low, high }) => {
            let f = Filter::between(column_name(expr)?, literal(low)?, literal(high)?);
            Some(if *negated { f.not() } else { f })
        }
        Expr::InList(list) => {
            let values = list.list.iter().map(literal).collect::<Option<Vec<_>>>()?;
            let f = Filter::in_list(column_name(&list.expr)?, values);
            Some(if list.negated { f.not() } else { f })
        }
        Expr::IsNull(e) => Some(Filter::is_null(column_name(e)?)),
        Expr::IsNotNull(e) => Some(Filter::is_not_null(column_name(e)?)),
        Expr::Not(e) => Some(to_filter(e)?.not()),
        Expr::Like(Like { negated, expr, pattern, escape_char: None, case_insensitive: false }) => {
            let Expr::Literal(ScalarValue::Utf8(Some(p)) | ScalarValue::LargeUtf8(Some(p)), _) = pattern.as_ref()
            else {
                return None;
            };
            let prefix = p.strip_suffix('%').filter(|prefix| !prefix.contains(['%', '_']))?;
            let f = Filter::starts_with(column_name(expr)?, prefix.as_bytes());
            Some(if *negated { f.not() } else { f })
        }
        _ => None,
    }
}

fn column_name(expr: &Expr) -> Option<&str> {
    match expr {
        Expr::Column(c) => Some(c.name.as_str()),
        _ => None,
    }
}

fn literal(expr: &Expr) -> Option<Literal> {
    match expr {
        Expr::Literal(value, _) => Literal::new(value.to_array().ok()?).ok(),
        _ => None,
    }
}

fn compare_op(op: Operator) -> Option<CompareOp> {
    Some(match op {
        Operator::Eq => CompareOp::Eq,
        Operator::NotEq => CompareOp::NotEq,
        Operator::Lt => CompareOp::Lt,
        Operator::LtEq => CompareOp::LtEq,
        Operator::Gt => CompareOp::Gt,
        Operator::GtEq => CompareOp::GtEq,
        _ => return None,
    })
}

/// `literal OP column` as `column OP' literal`.
fn flipped(op: CompareOp) -> CompareOp {
    match op {
        CompareOp::Lt => CompareOp::Gt,
        CompareOp::LtEq => CompareOp::GtEq,
        CompareOp::Gt => CompareOp::Lt,
        CompareOp::GtEq => CompareOp::LtEq,
        same => same,
    }
}

#[cfg(test)]
mod tests {
    use datafusion::prelude::{col, lit};

    use super::*;

    #[test]
    fn comparisons_ranges_lists_and_prefixes_translate() {
        let cases = [
            (col("a").lt(lit(5i64)), "a < 5"),
            (lit(5i64).lt(col("a")), "a > 5"),
            (col("a").between(lit(1i64), lit(3i64)), "a between 1 and 3"),
            (col("s").like(lit("PROMO%")), "s like 'PROMO%'"),
            (col("a").is_null().or(col("a").eq(lit(2i64))), "a is null or a = 2"),
        ];
        for (expr, text) in cases {
            let filter = to_filter(&expr).unwrap_or_else(|| panic!("{expr} translates"));
            assert!(!filter.to_string().is_empty(), "{text}: {filter}");
        }
    }

    #[test]
    fn what_lwc_cannot_run_is_left_to_datafusion() {
        for expr in [
            col("a").eq(col("b")),
            (col("a") + lit(1i64)).lt(lit(5i64)),
            col("s").like(lit("%PROMO")),
            col("s").like(lit("PR_MO%")),
            col("s").ilike(lit("promo%")),
            col("a").lt(lit(5i64)).and(col("a").eq(col("b"))),
        ] {
            assert!(to_filter(&expr).is_none(), "{expr}");
        }
    }
}
