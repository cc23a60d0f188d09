//! `lwc-bench`: the source documents' experiments, lwc against plain arrays and peer libraries in one
//! run. See `lwc-bench --help` and `../shared/design/EXPERIMENTS.md`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;

mod codecs;
mod data;
mod experiments;
mod measure;
mod peers;
mod report;
mod tpch;

use experiments::{Config, ALL};
use measure::Settings;

/// Reproduces the experiments of the source documents: lwc's encodings against plain arrays and peer
/// libraries (bitpacking, fastlanes, fastpfor, stream-vbyte, pco, zstd, lz4_flex; vortex with the `vortex`
/// feature), measured in the same run on the same seeded data. Tables go to stdout as markdown, ratios to
/// plain first.
#[derive(Parser, Debug)]
#[command(version, after_help = experiments_help())]
struct Cli {
    /// The experiment to run, or `all`.
    experiment: String,
    /// Fraction of the papers' data sizes (1 reproduces them). Default: each experiment's own, chosen so
    /// it finishes in a few minutes on 2 cores.
    #[arg(long)]
    scale: Option<f64>,
    /// Timed rounds per figure; the median is reported. Default: 15 (end-to-end: 3 runs per query; costs:
    /// 3 passes, fewer where this asks for fewer).
    #[arg(long)]
    rounds: Option<usize>,
    /// Shortest timed batch in milliseconds (fast operations repeat until they fill it).
    #[arg(long, default_value_t = 2.0)]
    batch_ms: f64,
    /// Threads for the figures measured on all threads (default: every core).
    #[arg(long)]
    threads: Option<usize>,
    /// Seed of the generated data.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Also write every raw figure to this JSON file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Also write SVG figures (compression vs speed per experiment) into this folder.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// end-to-end's worker process: runs the queries of one configuration and prints its figures as JSON.
    #[arg(long, hide = true, requires = "worker_dir")]
    worker: Option<String>,
    /// The tables the worker reads.
    #[arg(long, hide = true)]
    worker_dir: Option<PathBuf>,
}

fn experiments_help() -> String {
    let mut s = String::from("Experiments:\n");
    for e in ALL {
        s += &format!("  {:<10} {}\n", e.name, e.about);
    }
    s + "  all        every experiment above, in this order"
}

/// The allocator `lwc sql` runs under (see lwc-cli), for every candidate alike.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lwc-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: &Cli) -> Result<(), String> {
    let threads = cli.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1);
    if let (Some(worker), Some(dir)) = (&cli.worker, &cli.worker_dir) {
        let rounds = cli.rounds.unwrap_or(1);
        println!("{}", experiments::end_to_end::worker(worker, dir, rounds, threads)?);
        return Ok(());
    }
    let chosen: Vec<_> = if cli.experiment == "all" {
        ALL.iter().collect()
    } else {
        let e = ALL.iter().find(|e| e.name == cli.experiment).ok_or_else(|| {
            let names: Vec<_> = ALL.iter().map(|e| e.name).collect();
            format!("unknown experiment '{}'; choose one of {} or all", cli.experiment, names.join(", "))
        })?;
        vec![e]
    };
    if let Some(s) = cli.scale.filter(|s| !(s.is_finite() && *s > 0.0)) {
        return Err(format!("--scale must be a positive number, got {s}"));
    }
    if cli.rounds == Some(0) || cli.batch_ms.is_nan() || cli.batch_ms <= 0.0 {
        return Err("--rounds and --batch-ms must be positive".into());
    }
    let cfg = Config {
        scale: cli.scale,
        settings: Settings {
            rounds: cli.rounds.unwrap_or(Settings::default().rounds),
            min_batch: Duration::from_secs_f64(cli.batch_ms / 1e3),
        },
        explicit_rounds: cli.rounds,
        threads,
        seed: cli.seed,
    };
    if let Some(dir) = &cli.svg {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    println!("# lwc-bench {}\n", chosen.iter().map(|e| e.name).collect::<Vec<_>>().join(", "));
    println!("{}\n", machine_line(&cfg));
    let mut records = Vec::new();
    for e in chosen {
        let started = Instant::now();
        let report = (e.run)(&cfg);
        for t in &report.tables {
            println!("{}", t.render());
        }
        println!("_{} took {:.1} s._\n", e.name, started.elapsed().as_secs_f64());
        if let Some(dir) = &cli.svg {
            for f in &report.figures {
                let path = dir.join(format!("{}.svg", f.name));
                std::fs::write(&path, f.to_svg()).map_err(|err| format!("cannot write {}: {err}", path.display()))?;
            }
        }
        records.extend(report.records);
    }
    if let Some(path) = &cli.json {
        let json = serde_json::to_string_pretty(&records).map_err(|e| e.to_string())?;
        std::fs::write(path, json).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

/// What the figures were measured on, for the top of the output.
fn machine_line(cfg: &Config) -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let scale = cfg.scale.map_or("each experiment's default".to_string(), |s| s.to_string());
    format!(
        "Machine: {cpu}, {} threads used for parallel figures. Scale: {scale}. Seed {}. Each figure: warm-up, then the median of {} rounds; candidates are timed in rotation (end-to-end: each query {} times in each configuration's process, see its table).",
        cfg.threads, cfg.seed, cfg.settings.rounds, cfg.explicit_rounds.unwrap_or(experiments::end_to_end::DEFAULT_ROUNDS)
    )
}
