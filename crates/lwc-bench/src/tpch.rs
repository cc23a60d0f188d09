//! TPC-H tables from the `tpchgen` crate turned into columns, for the keys, database and floats experiments.
//!
//! Column types follow a fixed-width layout: integers (keys, counts) as `i32` (TPC-H's fit below scale
//! factor 300), dates as `i32` days since 1970, decimals as `i64` hundredths, and strings as Arrow `StringArray`s
//! (their bytes back to back with a 4-byte offset each), written by a builder, so lwc-file takes them as they are.

use std::fmt::{Display, Write as _};

use arrow_array::builder::StringBuilder;
use arrow_array::{Array, StringArray};

use tpchgen::dates::TPCHDate;
use tpchgen::distribution::Distributions;
use tpchgen::generators::{
    Customer, CustomerGenerator, LineItem, LineItemGenerator, Nation, NationGenerator, Order, OrderGenerator, Part,
    PartGenerator, PartSupp, PartSuppGenerator, Region, RegionGenerator, Supplier, SupplierGenerator,
};
use tpchgen::text::TextPool;

/// The text pool of dbgen (and `tpchgen`'s default) at scale factor 1.
const FULL_TEXT_POOL: f64 = 300.0 * 1024.0 * 1024.0;

/// One column's values.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    /// Keys and counts.
    Int(Vec<i32>),
    /// Days since 1970-01-01.
    Date(Vec<i32>),
    /// Hundredths.
    Decimal(Vec<i64>),
    /// No nulls. Cloning shares the buffers.
    Text(StringArray),
}

impl Data {
    /// Bytes as fixed-width arrays: 4 or 8 a value, a string's bytes plus a 4-byte offset.
    pub fn plain_bytes(&self) -> usize {
        match self {
            Data::Int(v) | Data::Date(v) => size_of_val(v.as_slice()),
            Data::Decimal(v) => size_of_val(v.as_slice()),
            Data::Text(s) => s.values().len() + size_of::<i32>() * s.len(),
        }
    }

    /// The column type's name (`int`, `date`, `decimal`, `string`).
    pub fn kind(&self) -> &'static str {
        match self {
            Data::Int(_) => "int",
            Data::Date(_) => "date",
            Data::Decimal(_) => "decimal",
            Data::Text(_) => "string",
        }
    }
}

/// A named column.
#[derive(Clone, Debug)]
pub struct Column {
    pub name: &'static str,
    pub data: Data,
}

/// A table with all its columns.
#[derive(Clone, Debug)]
pub struct Table {
    pub name: &'static str,
    pub rows: usize,
    pub columns: Vec<Column>,
}

/// How one column is read from a generated row.
enum Field<R> {
    Int(fn(&R) -> i64),
    Date(fn(&R) -> TPCHDate),
    /// In hundredths.
    Decimal(fn(&R) -> i64),
    Text(fn(&R) -> &dyn Display),
}

/// A column while it is generated: strings go to an Arrow builder (whose buffers become the array's).
enum Growing {
    Values(Data),
    Text(StringBuilder),
}

impl Growing {
    fn finish(self) -> Data {
        match self {
            Growing::Values(data) => data,
            Growing::Text(mut builder) => Data::Text(builder.finish()),
        }
    }
}

impl<R> Field<R> {
    fn empty(&self) -> Growing {
        match self {
            Field::Int(_) => Growing::Values(Data::Int(Vec::new())),
            Field::Date(_) => Growing::Values(Data::Date(Vec::new())),
            Field::Decimal(_) => Growing::Values(Data::Decimal(Vec::new())),
            Field::Text(_) => Growing::Text(StringBuilder::new()),
        }
    }

    /// Appends `row`'s value to `column` (made by [`Field::empty`] of the same field).
    fn push(&self, row: &R, column: &mut Growing) {
        match (self, column) {
            (Field::Int(f), Growing::Values(Data::Int(v))) => {
                v.push(i32::try_from(f(row)).expect("TPC-H integers fit in i32"))
            }
            (Field::Date(f), Growing::Values(Data::Date(v))) => v.push(f(row).to_unix_epoch()),
            (Field::Decimal(f), Growing::Values(Data::Decimal(v))) => v.push(f(row)),
            (Field::Text(f), Growing::Text(s)) => {
                write!(s, "{}", f(row)).expect("writing to a builder");
                // Ends the row written above.
                s.append_value("");
            }
            _ => unreachable!("columns made by Field::empty"),
        }
    }
}

/// Generates `rows` into columns, one per field.
fn build<R>(name: &'static str, rows: impl Iterator<Item = R>, fields: &[(&'static str, Field<R>)]) -> Table {
    let mut growing: Vec<Growing> = fields.iter().map(|(_, f)| f.empty()).collect();
    let mut count = 0;
    for row in rows {
        for ((_, f), column) in fields.iter().zip(&mut growing) {
            f.push(&row, column);
        }
        count += 1;
    }
    let columns = fields.iter().zip(growing).map(|((name, _), g)| Column { name, data: g.finish() }).collect();
    Table { name, rows: count, columns }
}

/// The generator of one scale factor.
pub struct Tpch {
    scale_factor: f64,
    /// Comments are cut from this text. It shrinks with the scale factor (dbgen's 300 MiB at 1), so small scales
    /// stay fast; a comment's length does not depend on it.
    pool: TextPool,
}

impl Tpch {
    pub fn new(scale_factor: f64) -> Self {
        let size = (FULL_TEXT_POOL * scale_factor.min(1.0)).max(1024.0 * 1024.0) as i32;
        Tpch { scale_factor, pool: TextPool::new(size, Distributions::static_default()) }
    }

    fn lineitems(&self) -> impl Iterator<Item = LineItem<'_>> {
        LineItemGenerator::new_with_distributions_and_text_pool(self.scale_factor, 1, 1, dists(), &self.pool)
            .into_iter()
    }

    fn orders(&self) -> impl Iterator<Item = Order<'_>> {
        OrderGenerator::new_with_distributions_and_text_pool(self.scale_factor, 1, 1, dists(), &self.pool).into_iter()
    }

    fn partsupps(&self) -> impl Iterator<Item = PartSupp<'_>> {
        PartSuppGenerator::new_with_text_pool(self.scale_factor, 1, 1, &self.pool).into_iter()
    }

    /// Seed 001's key columns as `u32`: `l_orderkey`, `o_orderkey` and `ps_partkey`.
    pub fn keys(&self) -> Vec<(&'static str, Vec<u32>)> {
        let key = |k: i64| u32::try_from(k).expect("TPC-H keys fit in u32");
        vec![
            ("l_orderkey", self.lineitems().map(|r| key(r.l_orderkey)).collect()),
            ("o_orderkey", self.orders().map(|r| key(r.o_orderkey)).collect()),
            ("ps_partkey", self.partsupps().map(|r| key(r.ps_partkey)).collect()),
        ]
    }

    /// The decimals the floats experiment stores as floats, in hundredths: `l_extendedprice`, `l_discount` and
    /// `l_tax` (one pass over lineitem), then `o_totalprice`.
    pub fn prices(&self) -> Vec<(&'static str, Vec<i64>)> {
        let (mut price, mut discount, mut tax) = (Vec::new(), Vec::new(), Vec::new());
        for r in self.lineitems() {
            price.push(r.l_extendedprice.into_inner());
            discount.push(r.l_discount.into_inner());
            tax.push(r.l_tax.into_inner());
        }
        let total = self.orders().map(|r| r.o_totalprice.into_inner()).collect();
        vec![("l_extendedprice", price), ("l_discount", discount), ("l_tax", tax), ("o_totalprice", total)]
    }

    /// The free-text columns the strings experiment compresses: `l_comment`, `o_comment`, `ps_comment`, `p_name`
    /// and `c_address`, generated alone (no other column of their tables).
    pub fn texts(&self) -> Vec<(&'static str, StringArray)> {
        let (sf, pool) = (self.scale_factor, &self.pool);
        let text = |name: &'static str, column: Table| match column.columns.into_iter().next().map(|c| c.data) {
            Some(Data::Text(s)) => (name, s),
            _ => unreachable!("a text field builds a text column"),
        };
        let parts = PartGenerator::new_with_distributions_and_text_pool(sf, 1, 1, dists(), pool).into_iter();
        let customers = CustomerGenerator::new_with_distributions_and_text_pool(sf, 1, 1, dists(), pool).into_iter();
        vec![
            text("l_comment", build("lineitem", self.lineitems(), &[("l_comment", Field::Text(|r| &r.l_comment))])),
            text("o_comment", build("orders", self.orders(), &[("o_comment", Field::Text(|r| &r.o_comment))])),
            text("ps_comment", build("partsupp", self.partsupps(), &[("ps_comment", Field::Text(|r| &r.ps_comment))])),
            text("p_name", build("part", parts, &[("p_name", Field::Text(|r| &r.p_name))])),
            text("c_address", build("customer", customers, &[("c_address", Field::Text(|r| &r.c_address))])),
        ]
    }

    /// The lineitem table alone.
    pub fn lineitem(&self) -> Table {
        build("lineitem", self.lineitems(), &lineitem())
    }

    /// Every table, largest first.
    pub fn tables(&self) -> Vec<Table> {
        let (sf, pool) = (self.scale_factor, &self.pool);
        vec![
            self.lineitem(),
            build("orders", self.orders(), &orders()),
            build("partsupp", self.partsupps(), &partsupp()),
            build(
                "part",
                PartGenerator::new_with_distributions_and_text_pool(sf, 1, 1, dists(), pool).into_iter(),
                &part(),
            ),
            build(
                "customer",
                CustomerGenerator::new_with_distributions_and_text_pool(sf, 1, 1, dists(), pool).into_iter(),
                &customer(),
            ),
            build(
                "supplier",
                SupplierGenerator::new_with_distributions_and_text_pool(sf, 1, 1, dists(), pool).into_iter(),
                &supplier(),
            ),
            build(
                "nation",
                NationGenerator::new_with_distributions_and_text_pool(dists(), pool).into_iter(),
                &nation(),
            ),
            build(
                "region",
                RegionGenerator::new_with_distributions_and_text_pool(dists(), pool).into_iter(),
                &region(),
            ),
        ]
    }
}

fn dists() -> &'static Distributions {
    Distributions::static_default()
}

fn lineitem<'a>() -> [(&'static str, Field<LineItem<'a>>); 16] {
    [
        ("l_orderkey", Field::Int(|r| r.l_orderkey)),
        ("l_partkey", Field::Int(|r| r.l_partkey)),
        ("l_suppkey", Field::Int(|r| r.l_suppkey)),
        ("l_linenumber", Field::Int(|r| r.l_linenumber.into())),
        // A decimal in the schema; the generator makes whole numbers.
        ("l_quantity", Field::Decimal(|r| r.l_quantity * 100)),
        ("l_extendedprice", Field::Decimal(|r| r.l_extendedprice.into_inner())),
        ("l_discount", Field::Decimal(|r| r.l_discount.into_inner())),
        ("l_tax", Field::Decimal(|r| r.l_tax.into_inner())),
        ("l_returnflag", Field::Text(|r| &r.l_returnflag)),
        ("l_linestatus", Field::Text(|r| &r.l_linestatus)),
        ("l_shipdate", Field::Date(|r| r.l_shipdate)),
        ("l_commitdate", Field::Date(|r| r.l_commitdate)),
        ("l_receiptdate", Field::Date(|r| r.l_receiptdate)),
        ("l_shipinstruct", Field::Text(|r| &r.l_shipinstruct)),
        ("l_shipmode", Field::Text(|r| &r.l_shipmode)),
        ("l_comment", Field::Text(|r| &r.l_comment)),
    ]
}

fn orders<'a>() -> [(&'static str, Field<Order<'a>>); 9] {
    [
        ("o_orderkey", Field::Int(|r| r.o_orderkey)),
        ("o_custkey", Field::Int(|r| r.o_custkey)),
        ("o_orderstatus", Field::Text(|r| &r.o_orderstatus)),
        ("o_totalprice", Field::Decimal(|r| r.o_totalprice.into_inner())),
        ("o_orderdate", Field::Date(|r| r.o_orderdate)),
        ("o_orderpriority", Field::Text(|r| &r.o_orderpriority)),
        ("o_clerk", Field::Text(|r| &r.o_clerk)),
        ("o_shippriority", Field::Int(|r| r.o_shippriority.into())),
        ("o_comment", Field::Text(|r| &r.o_comment)),
    ]
}

fn partsupp<'a>() -> [(&'static str, Field<PartSupp<'a>>); 5] {
    [
        ("ps_partkey", Field::Int(|r| r.ps_partkey)),
        ("ps_suppkey", Field::Int(|r| r.ps_suppkey)),
        ("ps_availqty", Field::Int(|r| r.ps_availqty.into())),
        ("ps_supplycost", Field::Decimal(|r| r.ps_supplycost.into_inner())),
        ("ps_comment", Field::Text(|r| &r.ps_comment)),
    ]
}

fn part<'a>() -> [(&'static str, Field<Part<'a>>); 9] {
    [
        ("p_partkey", Field::Int(|r| r.p_partkey)),
        ("p_name", Field::Text(|r| &r.p_name)),
        ("p_mfgr", Field::Text(|r| &r.p_mfgr)),
        ("p_brand", Field::Text(|r| &r.p_brand)),
        ("p_type", Field::Text(|r| &r.p_type)),
        ("p_size", Field::Int(|r| r.p_size.into())),
        ("p_container", Field::Text(|r| &r.p_container)),
        ("p_retailprice", Field::Decimal(|r| r.p_retailprice.into_inner())),
        ("p_comment", Field::Text(|r| &r.p_comment)),
    ]
}

fn customer<'a>() -> [(&'static str, Field<Customer<'a>>); 8] {
    [
        ("c_custkey", Field::Int(|r| r.c_custkey)),
        ("c_name", Field::Text(|r| &r.c_name)),
        ("c_address", Field::Text(|r| &r.c_address)),
        ("c_nationkey", Field::Int(|r| r.c_nationkey)),
        ("c_phone", Field::Text(|r| &r.c_phone)),
        ("c_acctbal", Field::Decimal(|r| r.c_acctbal.into_inner())),
        ("c_mktsegment", Field::Text(|r| &r.c_mktsegment)),
        ("c_comment", Field::Text(|r| &r.c_comment)),
    ]
}

fn supplier() -> [(&'static str, Field<Supplier>); 7] {
    [
        ("s_suppkey", Field::Int(|r| r.s_suppkey)),
        ("s_name", Field::Text(|r| &r.s_name)),
        ("s_address", Field::Text(|r| &r.s_address)),
        ("s_nationkey", Field::Int(|r| r.s_nationkey)),
        ("s_phone", Field::Text(|r| &r.s_phone)),
        ("s_acctbal", Field::Decimal(|r| r.s_acctbal.into_inner())),
        ("s_comment", Field::Text(|r| &r.s_comment)),
    ]
}

fn nation<'a>() -> [(&'static str, Field<Nation<'a>>); 4] {
    [
        ("n_nationkey", Field::Int(|r| r.n_nationkey)),
        ("n_name", Field::Text(|r| &r.n_name)),
        ("n_regionkey", Field::Int(|r| r.n_regionkey)),
        ("n_comment", Field::Text(|r| &r.n_comment)),
    ]
}

fn region<'a>() -> [(&'static str, Field<Region<'a>>); 3] {
    [
        ("r_regionkey", Field::Int(|r| r.r_regionkey)),
        ("r_name", Field::Text(|r| &r.r_name)),
        ("r_comment", Field::Text(|r| &r.r_comment)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_have_the_schema_and_the_generator_rows() {
        let tpch = Tpch::new(0.001);
        let tables = tpch.tables();
        let names: Vec<_> = tables.iter().map(|t| t.name).collect();
        assert_eq!(names, ["lineitem", "orders", "partsupp", "part", "customer", "supplier", "nation", "region"]);
        let columns: usize = tables.iter().map(|t| t.columns.len()).sum();
        assert_eq!(columns, 61);
        for t in &tables {
            for c in &t.columns {
                let len = match &c.data {
                    Data::Int(v) | Data::Date(v) => v.len(),
                    Data::Decimal(v) => v.len(),
                    Data::Text(s) => s.len(),
                };
                assert_eq!(len, t.rows, "{}.{}", t.name, c.name);
            }
        }
        assert_eq!(tables[1].rows, 1500);
        assert_eq!(tables[6].rows, 25);
        let orders = &tables[1].columns;
        assert_eq!(orders[0].data.plain_bytes(), 4 * 1500);
        assert_eq!(orders[3].data.kind(), "decimal");
        // Strings: one a row, no nulls, a byte and an offset each for the status flag.
        let Data::Text(status) = &orders[2].data else { panic!("o_orderstatus is a string") };
        assert_eq!(status.null_count(), 0);
        assert!(status.iter().all(|s| matches!(s, Some("F" | "O" | "P"))));
        assert_eq!(orders[2].data.plain_bytes(), 5 * 1500);
        // A date in the generated range (1992-01-01 is day 8035).
        let Data::Date(dates) = &orders[4].data else { panic!("o_orderdate is a date") };
        assert!(dates.iter().all(|&d| (8035..8035 + 2557).contains(&d)));
        let keys = tpch.keys();
        let Data::Int(orderkeys) = &orders[0].data else { panic!("o_orderkey is an int") };
        assert!(keys[1].1.iter().zip(orderkeys).all(|(&a, &b)| a as i32 == b));
        assert_eq!(keys[0].1.len(), tables[0].rows);
        assert!(keys.iter().all(|(_, k)| k.windows(2).all(|w| w[0] <= w[1])), "keys are sorted");
    }
}
