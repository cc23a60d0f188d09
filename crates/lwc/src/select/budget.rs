//! A memory budget for a whole table: which encoding of each column keeps the total within the budget
//! and the expected read time least.
//!
//! Each column offers a few ways of being stored (say, what the `size`, `balanced`, `scan` and `random`
//! objectives chose for it), each with its exact bytes and its modeled time for the table's access mix.
//! Picking one per column is a multiple-choice knapsack; [`fit_to_budget`] solves it by dynamic
//! programming over the budget cut into [`BUDGET_STEPS`] steps. Sizes are rounded up to whole steps, so
//! the pick always fits; it may miss a slightly faster pick that fills the last fraction of a step.

use crate::error::{Error, Result};

/// The steps the budget is divided into: the dynamic program's resolution.
pub const BUDGET_STEPS: u64 = 8192;

/// One way of storing one column.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BudgetOption {
    /// Bytes the column takes stored this way.
    pub bytes: u64,
    /// Modeled time to read it under the table's access mix (any unit, the same for every option).
    pub cost: f64,
}

/// For each column (a list of its options), the index of the option to use: the least total cost with
/// total bytes at most `budget`. Ties go to the smaller total.
///
/// Fails with [`Error::InvalidArgument`] when even the smallest option of every column together exceed
/// the budget, or a column has no option.
pub fn fit_to_budget(columns: &[Vec<BudgetOption>], budget: u64) -> Result<Vec<usize>> {
    if let Some(k) = columns.iter().position(Vec::is_empty) {
        return Err(Error::InvalidArgument(format!("column {k} has no way to be stored")));
    }
    let smallest: Vec<usize> = columns.iter().map(|options| index_of_min(options, |o| o.bytes as f64)).collect();
    let least: u64 = columns.iter().zip(&smallest).map(|(options, &k)| options[k].bytes).sum();
    if least > budget {
        return Err(Error::InvalidArgument(format!(
            "the memory budget of {budget} bytes is below the smallest this table can be stored in ({least} bytes)"
        )));
    }
    let fastest: Vec<usize> = columns.iter().map(|options| index_of_min(options, |o| o.cost)).collect();
    if columns.iter().zip(&fastest).map(|(options, &k)| options[k].bytes).sum::<u64>() <= budget {
        return Ok(fastest);
    }
    let step = budget.div_ceil(BUDGET_STEPS).max(1);
    let capacity = (budget / step) as usize;
    let steps_of = |o: &BudgetOption| o.bytes.div_ceil(step) as usize;
    if columns.iter().zip(&smallest).map(|(options, &k)| steps_of(&options[k])).sum::<usize>() > capacity {
        // Rounding to steps lost the little room there was: the smallest options fit, take them.
        return Ok(smallest);
    }
    // best[c] = least cost of the columns so far within c steps; choice[column][c] = the option taken.
    let mut best = vec![0.0f64; capacity + 1];
    let mut choice: Vec<Vec<u8>> = Vec::with_capacity(columns.len());
    for options in columns {
        let mut next = vec![f64::INFINITY; capacity + 1];
        let mut taken = vec![u8::MAX; capacity + 1];
        for (k, option) in options.iter().enumerate().take(usize::from(u8::MAX)) {
            let w = steps_of(option);
            for c in w..=capacity {
                let cost = best[c - w] + option.cost;
                if cost < next[c] {
                    next[c] = cost;
                    taken[c] = k as u8;
                }
            }
        }
        best = next;
        choice.push(taken);
    }
    // The least cost over every capacity, at the smallest capacity reaching it.
    let mut c = (0..=capacity).min_by(|&a, &b| best[a].total_cmp(&best[b]).then(a.cmp(&b))).expect("capacity >= 0");
    let mut picks = vec![0; columns.len()];
    for (column, options) in columns.iter().enumerate().rev() {
        let k = choice[column][c] as usize;
        picks[column] = k;
        c -= steps_of(&options[k]);
    }
    Ok(picks)
}

/// The index of the option with the least `key`, the smaller on ties.
fn index_of_min(options: &[BudgetOption], key: impl Fn(&BudgetOption) -> f64) -> usize {
    (0..options.len())
        .min_by(|&a, &b| key(&options[a]).total_cmp(&key(&options[b])).then(options[a].bytes.cmp(&options[b].bytes)))
        .expect("at least one option")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn option(bytes: u64, cost: f64) -> BudgetOption {
        BudgetOption { bytes, cost }
    }

    fn totals(columns: &[Vec<BudgetOption>], picks: &[usize]) -> (u64, f64) {
        columns.iter().zip(picks).fold((0, 0.0), |(b, c), (o, &k)| (b + o[k].bytes, c + o[k].cost))
    }

    #[test]
    fn spends_the_budget_where_it_saves_the_most_time() {
        // Column 0 gains 90 time units for 100 extra bytes, column 1 only 10 for the same bytes.
        let columns = vec![vec![option(100, 100.0), option(200, 10.0)], vec![option(100, 100.0), option(200, 90.0)]];
        assert_eq!(fit_to_budget(&columns, 300).unwrap(), vec![1, 0]);
        assert_eq!(fit_to_budget(&columns, 400).unwrap(), vec![1, 1]);
        assert_eq!(fit_to_budget(&columns, 299).unwrap(), vec![0, 0]);
    }

    #[test]
    fn a_budget_below_the_smallest_is_an_error_that_says_so() {
        let columns = vec![vec![option(100, 1.0)], vec![option(50, 1.0), option(80, 0.5)]];
        let err = fit_to_budget(&columns, 149).unwrap_err().to_string();
        assert!(err.contains("149") && err.contains("150"), "{err}");
        assert!(fit_to_budget(&[vec![]], 10).is_err());
        assert_eq!(fit_to_budget(&[], 0).unwrap(), Vec::<usize>::new());
    }

    proptest! {
        /// Against every combination: the pick fits and no combination that fits with a step to spare
        /// (rounding may cost up to one step a column) is faster.
        #[test]
        fn matches_exhaustive_search(
            columns in prop::collection::vec(prop::collection::vec((1u64..5_000, 0.0f64..1_000.0), 1..4), 1..5),
            share in 0.0f64..1.2,
        ) {
            let columns: Vec<Vec<BudgetOption>> =
                columns.into_iter().map(|o| o.into_iter().map(|(b, c)| option(b, c)).collect()).collect();
            let min: u64 = columns.iter().map(|o| o.iter().map(|x| x.bytes).min().unwrap()).sum();
            let max: u64 = columns.iter().map(|o| o.iter().map(|x| x.bytes).max().unwrap()).sum();
            let budget = min + ((max - min) as f64 * share) as u64;
            let picks = fit_to_budget(&columns, budget).unwrap();
            let (bytes, cost) = totals(&columns, &picks);
            prop_assert!(bytes <= budget);
            let slack = columns.len() as u64 * budget.div_ceil(BUDGET_STEPS);
            let mut combo = vec![0usize; columns.len()];
            loop {
                let (b, c) = totals(&columns, &combo);
                if b + slack <= budget {
                    prop_assert!(cost <= c + 1e-9, "{combo:?} ({b} bytes) costs {c}, the pick {cost}");
                }
                let Some(k) = (0..combo.len()).find(|&k| combo[k] + 1 < columns[k].len()) else { break };
                combo[k] += 1;
                combo[..k].iter_mut().for_each(|x| *x = 0);
            }
        }
    }
}
