//! limits: copy and sum bandwidth of an array larger than the caches, on one thread and on all, so
//! every decode speed can be read as a fraction of what memory allows.

use std::hint::black_box;

use rayon::prelude::*;

use super::Config;
use crate::measure::{race, Candidate};
use crate::report::{Progress, Record, Report, Table};

/// 2^25 `u64` (256 MiB) at scale 1; the default quarter still dwarfs any cache.
const FULL: usize = 1 << 25;

pub fn run(cfg: &Config) -> Report {
    let progress = Progress::new("limits");
    let n = cfg.scaled(FULL, 0.25, 1 << 10);
    let src: Vec<u64> = (0..n as u64).collect();
    let mut dst = vec![0u64; n];
    let bytes = (n * 8) as f64;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(cfg.threads).build().expect("thread pool");
    let chunk = n.div_ceil(cfg.threads * 4).max(1024);
    let mut report = Report::default();
    let mut table = Table::new(
        format!("limits: {} MiB of u64, median of {} rounds", bytes as usize >> 20, cfg.settings.rounds),
        &["operation", "threads", "GB/s", "u32 values per ns"],
    );
    for threads in [1, cfg.threads] {
        progress.say(format!("copy and sum on {threads} thread(s)"));
        let (copy_ns, sum_ns) = if threads == 1 {
            let mut c = [
                Candidate::new(|| dst.copy_from_slice(black_box(&src))),
                Candidate::new(|| {
                    black_box(src.iter().fold(0u64, |a, &b| a.wrapping_add(b)));
                }),
            ];
            let t = race(cfg.settings, &mut c);
            (t[0].median_ns, t[1].median_ns)
        } else {
            pool.install(|| {
                let mut c = [
                    Candidate::new(|| {
                        dst.par_chunks_mut(chunk).zip(src.par_chunks(chunk)).for_each(|(d, s)| d.copy_from_slice(s))
                    }),
                    Candidate::new(|| {
                        black_box(
                            src.par_chunks(chunk).map(|c| c.iter().fold(0u64, |a, &b| a.wrapping_add(b))).sum::<u64>(),
                        );
                    }),
                ];
                let t = race(cfg.settings, &mut c);
                (t[0].median_ns, t[1].median_ns)
            })
        };
        for (op, ns) in [("copy (read + write)", copy_ns), ("sum (read)", sum_ns)] {
            let gbs = bytes / ns;
            table.row(vec![op.into(), threads.to_string(), format!("{gbs:.1}"), format!("{:.1}", gbs / 4.0)]);
            report.records.push(Record {
                experiment: "limits",
                data: format!("{n} u64"),
                codec: "plain".into(),
                measure: format!("{op}, {threads} threads"),
                value: gbs,
                unit: "GB/s",
                ratio_to_plain: None,
            });
        }
        if cfg.threads == 1 {
            break;
        }
    }
    table.note("Bytes moved per second counts the source once (copy also writes as much). A decode that outputs u32 at the sum bandwidth delivers `GB/s / 4` values per ns.");
    progress.done();
    report.tables.push(table);
    report
}
