//! DataFusion filter expressions as lwc-file filters, where lwc can evaluate them exactly.

use std::sync::Arc;

use datafusion::common::ScalarValue;
use datafusion::logical_expr::{Between, BinaryExpr, Expr, Like, Operator};
use datafusion::physical_expr::expressions::{
    BinaryExpr as BinaryExpr2, CaseExpr, Column as PhysicalColumn, InListExpr, IsNotNullExpr, IsNullExpr,
    Literal as PhysicalLiteral, NotExpr,
};
use datafusion::physical_expr::PhysicalExpr;
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

/// The longest `IN` list [`implied_filter`] keeps, and the most keys a hash join's build side may hold
/// for [`crate::session_context`] to have DataFusion push them as a list instead of a reference to its
/// hash table (its own default is 150). lwc tests each value against a bitmap of the keys' span where
/// that is dense, so TPC-H Q17's 204 part keys filter 6 M lineitem rows in both its scans and the other
/// columns are decoded only at the rows that pass: 255-357 → 44-58 ms (SF 1, `lwc sql`, a 2-core Intel
/// Xeon). Lists of up to 16,384 keys lost: each segment's scan lowers the list's literals again (Q8's
/// 1,450 keys 110 → 165 ms, Q9's 10,660 keys 290 → 385 ms), so longer lists are left to the join.
pub(crate) const IMPLIED_IN_LIST: usize = 256;

/// A filter every row that `expr` (a physical predicate, such as the dynamic filter a hash join pushes
/// into its probe side once its build side is known) keeps also passes, or `None` when it implies no
/// test lwc can run. Weaker is allowed: a conjunct lwc cannot run is dropped, and a `CASE` (a
/// partitioned join's filter: one branch per partition) becomes the `OR` of its branches, so the scan
/// may keep rows `expr` drops, never the other way round. The flag says whether the filter is exact.
pub fn implied_filter(expr: &Arc<dyn PhysicalExpr>) -> Option<(Filter, bool)> {
    if let Some(binary) = expr.downcast_ref::<BinaryExpr2>() {
        let (left, right) = (binary.left(), binary.right());
        return match binary.op() {
            Operator::And => match (implied_filter(left), implied_filter(right)) {
                (Some((a, x)), Some((b, y))) => Some((a.and(b), x && y)),
                (Some((a, _)), None) | (None, Some((a, _))) => Some((a, false)),
                (None, None) => None,
            },
            Operator::Or => {
                let ((a, x), (b, y)) = (implied_filter(left)?, implied_filter(right)?);
                Some((a.or(b), x && y))
            }
            op => {
                let op = compare_op(*op)?;
                match (physical_column(left), physical_literal(right), physical_column(right), physical_literal(left)) {
                    (Some(c), Some(v), _, _) => Some((Filter::compare(c, op, v), true)),
                    (_, _, Some(c), Some(v)) => Some((Filter::compare(c, flipped(op), v), true)),
                    _ => None,
                }
            }
        };
    }
    if let Some(list) = expr.downcast_ref::<InListExpr>() {
        // A join's build side lists each row's key: Q17's 204 part keys come as 6,090.
        let mut distinct = Vec::with_capacity(list.len());
        for item in list.list() {
            distinct.push(item.downcast_ref::<PhysicalLiteral>()?.value());
        }
        distinct.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        distinct.dedup();
        if distinct.len() > IMPLIED_IN_LIST {
            return None;
        }
        let values = distinct.into_iter().map(scalar_literal).collect::<Option<Vec<_>>>()?;
        let f = Filter::in_list(physical_column(list.expr())?, values);
        return Some(if list.negated() { (f.not(), true) } else { (f, true) });
    }
    if let Some(case) = expr.downcast_ref::<CaseExpr>() {
        // Each row takes one branch (or none: NULL, which drops it) and passes that branch's filter;
        // a branch of `false` or NULL keeps no row.
        let keeps_none = |e: &&Arc<dyn PhysicalExpr>| {
            e.downcast_ref::<PhysicalLiteral>()
                .is_some_and(|l| matches!(l.value(), ScalarValue::Boolean(None | Some(false)) | ScalarValue::Null))
        };
        let then = case.when_then_expr().iter().map(|(_, then)| then);
        let mut branches = then.chain(case.else_expr()).filter(|e| !keeps_none(e));
        let first = implied_filter(branches.next()?)?.0;
        let any = branches.try_fold(first, |acc, then| Some(acc.or(implied_filter(then)?.0)))?;
        return Some((any, false));
    }
    if let Some(e) = expr.downcast_ref::<IsNullExpr>() {
        return Some((Filter::is_null(physical_column(e.arg())?), true));
    }
    if let Some(e) = expr.downcast_ref::<IsNotNullExpr>() {
        return Some((Filter::is_not_null(physical_column(e.arg())?), true));
    }
    if let Some(e) = expr.downcast_ref::<NotExpr>() {
        // Only the negation of an exact filter is implied.
        return implied_filter(e.arg()).filter(|(_, exact)| *exact).map(|(f, _)| (f.not(), true));
    }
    None
}

fn physical_column(expr: &Arc<dyn PhysicalExpr>) -> Option<&str> {
    expr.downcast_ref::<PhysicalColumn>().map(|c| c.name())
}

fn physical_literal(expr: &Arc<dyn PhysicalExpr>) -> Option<Literal> {
    scalar_literal(expr.downcast_ref::<PhysicalLiteral>()?.value())
}

fn scalar_literal(value: &ScalarValue) -> Option<Literal> {
    Literal::new(value.to_array().ok()?).ok()
}

fn column_name(expr: &Expr) -> Option<&str> {
    match expr {
        Expr::Column(c) => Some(c.name.as_str()),
        _ => None,
    }
}

fn literal(expr: &Expr) -> Option<Literal> {
    match expr {
        Expr::Literal(value, _) => scalar_literal(value),
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

    /// The shapes of DataFusion's dynamic filters: a hash join's bounds and key list (`AND`ed with a hash
    /// lookup lwc cannot run), per partition in a `CASE`.
    #[test]
    fn dynamic_filters_imply_weaker_filters() {
        use datafusion::arrow::datatypes::{DataType, Field, Schema};
        use datafusion::physical_expr::expressions::{binary, col as column, in_list, lit as literal, not};
        let schema = Schema::new(vec![Field::new("k", DataType::Int64, true), Field::new("v", DataType::Int64, true)]);
        let k = column("k", &schema).unwrap();
        let cmp = |op, value: i64| binary(k.clone(), op, literal(value), &schema).unwrap();
        let and = |a, b| binary(a, Operator::And, b, &schema).unwrap();
        let bounds = and(cmp(Operator::GtEq, 10), cmp(Operator::LtEq, 20));
        let (filter, exact) = implied_filter(&bounds).unwrap();
        assert!(exact, "{filter}");
        // A test lwc cannot run (two columns compared) is dropped from an AND, and the rest is inexact.
        let opaque = binary(k.clone(), Operator::Lt, column("v", &schema).unwrap(), &schema).unwrap();
        let (filter, exact) = implied_filter(&and(bounds.clone(), opaque.clone())).unwrap();
        assert!(!exact && filter.to_string().contains("10"), "{filter}");
        assert!(implied_filter(&opaque).is_none());
        // ... so its negation is not implied, nor is an OR with it.
        assert!(implied_filter(&not(and(bounds.clone(), opaque.clone())).unwrap()).is_none());
        assert!(implied_filter(&binary(bounds.clone(), Operator::Or, opaque, &schema).unwrap()).is_none());
        // Short key lists are kept, long ones dropped.
        let keys = |n: i64| in_list(k.clone(), (0..n).map(literal).collect(), &false, &schema).unwrap();
        assert!(implied_filter(&keys(3)).is_some());
        assert!(implied_filter(&keys(IMPLIED_IN_LIST as i64 + 1)).is_none());
        // Counted once each: a join's build side repeats its keys.
        let repeated = (0..IMPLIED_IN_LIST as i64 * 4).map(|i| literal(i % 3)).collect();
        let (filter, exact) = implied_filter(&in_list(k.clone(), repeated, &false, &schema).unwrap()).unwrap();
        assert_eq!((filter.to_string(), exact), ("k IN (0, 1, 2)".to_string(), true));
        // A partitioned join's CASE: the OR of its branches, a branch of `false` keeping no row.
        let partition = binary(k.clone(), Operator::Modulo, literal(2i64), &schema).unwrap();
        let when = |p: i64, then| (literal(p), then);
        let case =
            CaseExpr::try_new(Some(partition), vec![when(0, bounds.clone()), when(1, keys(2))], Some(literal(false)))
                .unwrap();
        let (filter, exact) = implied_filter(&(Arc::new(case) as Arc<dyn PhysicalExpr>)).unwrap();
        assert!(!exact && filter.to_string().contains(" OR "), "{filter}");
        assert!(implied_filter(&literal(true)).is_none());
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
