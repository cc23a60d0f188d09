//! TPC-H data from the `tpchgen` crate, for the keys experiment.

use tpchgen::distribution::Distributions;
use tpchgen::generators::{LineItem, LineItemGenerator, Order, OrderGenerator, PartSupp, PartSuppGenerator};
use tpchgen::text::TextPool;

/// The text pool of dbgen (and `tpchgen`'s default) at scale factor 1.
const FULL_TEXT_POOL: f64 = 300.0 * 1024.0 * 1024.0;

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
}

fn dists() -> &'static Distributions {
    Distributions::static_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_the_generated_sorted_keys() {
        let keys = Tpch::new(0.001).keys();
        let names: Vec<_> = keys.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, ["l_orderkey", "o_orderkey", "ps_partkey"]);
        assert_eq!(keys[1].1.len(), 1500);
        assert_eq!(keys[2].1.len(), 800);
        assert!(keys.iter().all(|(_, k)| k.windows(2).all(|w| w[0] <= w[1])), "keys are sorted");
    }
}
