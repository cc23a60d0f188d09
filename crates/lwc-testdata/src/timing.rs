//! Timing for the examples that race two ways of doing one thing.

use std::time::Instant;

/// Median seconds of `rounds` runs of `a` and of `b`, taken in turns so that both see the same machine.
pub fn race(rounds: usize, mut a: impl FnMut(), mut b: impl FnMut()) -> (f64, f64) {
    let rounds = rounds.max(1);
    let time = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        f();
        start.elapsed().as_secs_f64()
    };
    let (mut ta, mut tb): (Vec<f64>, Vec<f64>) = (0..rounds).map(|_| (time(&mut a), time(&mut b))).unzip();
    ta.sort_by(f64::total_cmp);
    tb.sort_by(f64::total_cmp);
    (ta[rounds / 2], tb[rounds / 2])
}
