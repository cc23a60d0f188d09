//! Every experiment runs at a tiny scale and prints its tables; the JSON and SVG outputs are written.
//! A smoke test only: CI never judges speed.

use std::process::Command;

fn bench() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lwc-bench"))
}

#[test]
fn every_experiment_produces_its_tables() {
    let dir = std::env::temp_dir().join(format!("lwc-bench-smoke-{}", std::process::id()));
    let json = dir.join("all.json");
    let out = bench()
        .args(["all", "--scale", "0.0001", "--rounds", "1", "--batch-ms", "0.05", "--threads", "2"])
        .arg("--json")
        .arg(&json)
        .arg("--svg")
        .arg(&dir)
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "failed: {}\n{stdout}", String::from_utf8_lossy(&out.stderr));
    for title in [
        "### limits",
        "### access: time as a ratio",
        "### cascades: compression rate",
        "### cascades: selection scans",
        "### keys: compression factor",
        "### keys: time as a ratio",
        "### adaptive: sorted integers",
        "### adaptive: low-cardinality strings",
        "### database: TPC-H SF",
        "### database: lwc's automatic choice per column",
        "### strings: TPC-H text",
        "### strings: the goals",
        "### end-to-end: TPC-H SF",
        "### end-to-end: the goals",
    ] {
        assert!(stdout.contains(title), "missing {title} in\n{stdout}");
    }
    // end-to-end's workers are child processes; each configuration gives the MemTable's answers.
    assert!(stdout.contains("| total |") && stdout.contains("| all same |"), "end-to-end answers:\n{stdout}");
    assert!(stdout.contains("| lwc for |"), "lwc rows missing:\n{stdout}");
    assert!(stdout.contains("| lwc-file string column, 1 thread |"), "lwc-file string rows missing:\n{stdout}");
    let records: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json written")).expect("valid json");
    assert!(records.iter().any(|r| r["experiment"] == "access" && r["ratio_to_plain"].is_number()));
    let svg = std::fs::read_to_string(dir.join("access-decode.svg")).expect("svg written");
    assert!(svg.starts_with("<svg"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_arguments_are_clear_errors() {
    let out = bench().arg("nope").output().expect("runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown experiment 'nope'"));
    let out = bench().args(["access", "--scale", "0"]).output().expect("runs");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--scale must be a positive number"));
    let out = bench().args(["end-to-end", "--worker", "nope", "--worker-dir", "."]).output().expect("runs");
    assert!(String::from_utf8_lossy(&out.stderr).contains("no configuration nope"));
}
