//! Timing: warm-up, repetitions, medians, and ratios taken round by round.
//!
//! Candidates are timed in rotation: each round runs every candidate once (a batch long enough to
//! dwarf the timer), so when a shared machine slows down for a moment all candidates see it alike.
//! The ratio of a candidate to the baseline is the median of its per-round ratios, which holds on a
//! noisy machine where absolute medians drift.

use std::hint::black_box;
use std::time::{Duration, Instant};

use crate::peers::PeerEncoded;

/// How long and how often to measure.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Timed rounds per candidate (the median is reported).
    pub rounds: usize,
    /// The shortest a timed batch may be; short operations repeat until they fill it.
    pub min_batch: Duration,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { rounds: 15, min_batch: Duration::from_millis(2) }
    }
}

/// One candidate's timing.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Timing {
    /// Median time of one call, in nanoseconds.
    pub median_ns: f64,
    /// Fastest and slowest round, per call.
    pub min_ns: f64,
    pub max_ns: f64,
    /// Median over rounds of this candidate's time divided by the baseline's (the first candidate).
    pub ratio: f64,
}

/// An operation to time.
pub struct Candidate<'a> {
    run: Box<dyn FnMut() + 'a>,
}

impl<'a> Candidate<'a> {
    pub fn new(run: impl FnMut() + 'a) -> Self {
        Candidate { run: Box::new(run) }
    }
}

/// Times `candidates` in rotation; the first is the baseline of every ratio.
pub fn race(settings: Settings, candidates: &mut [Candidate<'_>]) -> Vec<Timing> {
    // Warm-up, which also sizes each batch.
    let iters: Vec<u64> = candidates.iter_mut().map(|c| batch_size(&mut c.run, settings.min_batch)).collect();
    let mut per_call: Vec<Vec<f64>> = vec![Vec::with_capacity(settings.rounds); candidates.len()];
    for _ in 0..settings.rounds.max(1) {
        for (k, c) in candidates.iter_mut().enumerate() {
            per_call[k].push(time_batch(&mut c.run, iters[k]));
        }
    }
    let baseline = per_call[0].clone();
    per_call
        .iter()
        .map(|times| {
            let ratios: Vec<f64> = times.iter().zip(&baseline).map(|(t, b)| t / b).collect();
            Timing {
                median_ns: median(times.clone()),
                min_ns: times.iter().copied().fold(f64::INFINITY, f64::min),
                max_ns: times.iter().copied().fold(0.0, f64::max),
                ratio: median(ratios),
            }
        })
        .collect()
}

/// Times a plain array against every encoded codec in rotation, decoding everything (`positions` is `None`)
/// or taking `positions`; the plain candidate copies or gathers. `None` for codecs that did not encode.
pub fn race_codecs<T: Copy + Default>(
    settings: Settings,
    values: &[T],
    positions: Option<&[u32]>,
    encoded: &[Option<Box<dyn PeerEncoded<T>>>],
) -> Vec<Option<Timing>> {
    race_codecs_where(settings, values, positions, encoded, |_| true)
}

/// [`race_codecs`] of the codecs `keep` names by their index in `encoded` (the others `None`): a cell to
/// measure again races its codec against plain alone.
pub fn race_codecs_where<T: Copy + Default>(
    settings: Settings,
    values: &[T],
    positions: Option<&[u32]>,
    encoded: &[Option<Box<dyn PeerEncoded<T>>>],
    keep: impl Fn(usize) -> bool,
) -> Vec<Option<Timing>> {
    let encoded: Vec<Option<&dyn PeerEncoded<T>>> =
        encoded.iter().enumerate().map(|(k, e)| e.as_deref().filter(|_| keep(k))).collect();
    let out_len = positions.map_or(values.len(), <[u32]>::len);
    let present: Vec<&dyn PeerEncoded<T>> = encoded.iter().flatten().copied().collect();
    let mut buffers: Vec<(Vec<T>, Vec<T>)> =
        (0..=present.len()).map(|_| (vec![T::default(); out_len], Vec::new())).collect();
    let (plain_buf, codec_bufs) = buffers.split_first_mut().expect("one buffer per candidate");
    let mut candidates = vec![Candidate::new(move || match positions {
        None => plain_buf.0.copy_from_slice(black_box(values)),
        Some(positions) => {
            for (o, &p) in plain_buf.0.iter_mut().zip(black_box(positions)) {
                *o = values[p as usize];
            }
        }
    })];
    for (e, (out, scratch)) in present.iter().zip(codec_bufs.iter_mut()) {
        candidates.push(Candidate::new(move || match positions {
            None => e.decode_into(black_box(out)),
            Some(positions) => e.take_into(black_box(positions), out, scratch),
        }));
    }
    let mut timings = race(settings, &mut candidates).into_iter();
    let plain = timings.next();
    std::iter::once(plain).chain(encoded.iter().map(|e| e.as_ref().and_then(|_| timings.next()))).collect()
}

/// Times one operation alone (for costs with nothing to race against, such as an encode).
pub fn time_one(settings: Settings, run: impl FnMut()) -> Timing {
    race(settings, &mut [Candidate::new(run)])[0]
}

/// Runs `run` until `min_batch` has passed at least twice over, and returns the calls one batch needs.
fn batch_size(run: &mut dyn FnMut(), min_batch: Duration) -> u64 {
    let mut iters = 1u64;
    loop {
        let t = Instant::now();
        for _ in 0..iters {
            run();
        }
        let spent = t.elapsed();
        if spent >= min_batch {
            // One more full batch warms caches and branch predictors at the final size.
            let per_call = spent.as_secs_f64() / iters as f64;
            let n = ((min_batch.as_secs_f64() / per_call).ceil() as u64).max(1);
            time_batch(run, n);
            return n;
        }
        iters = iters.saturating_mul(if spent < min_batch / 16 { 8 } else { 2 });
    }
}

/// Nanoseconds per call over a batch of `iters` calls.
fn time_batch(run: &mut dyn FnMut(), iters: u64) -> f64 {
    let t = Instant::now();
    for _ in 0..iters {
        run();
    }
    black_box(());
    t.elapsed().as_nanos() as f64 / iters as f64
}

/// Median (mean of the middle two for an even count); NaN when empty.
pub fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

/// Geometric mean of positive ratios (NaN when empty).
pub fn geomean(v: &[f64]) -> f64 {
    (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_means() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(vec![]).is_nan());
        assert!((geomean(&[2.0, 8.0]) - 4.0).abs() < 1e-12);
    }

    #[test]
    fn a_slower_candidate_has_a_larger_ratio() {
        let settings = Settings { rounds: 5, min_batch: Duration::from_micros(200) };
        let work = |n: u64| move || black_box((0..black_box(n)).fold(0u64, |a, b| a.wrapping_mul(31) ^ b));
        let mut candidates = [
            Candidate::new(|| {
                work(1_000)();
            }),
            Candidate::new(|| {
                work(20_000)();
            }),
        ];
        let t = race(settings, &mut candidates);
        assert_eq!(t[0].ratio, 1.0);
        assert!(t[1].ratio > 2.0, "{:?}", t[1]);
        assert!(t[1].median_ns > t[0].median_ns);
    }
}
