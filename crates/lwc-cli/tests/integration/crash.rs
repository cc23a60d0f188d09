//! A writer killed in the middle: `lwc compress` is killed (SIGKILL, so nothing runs on its way out) at
//! points spread over a whole run. Whatever the point, the target name holds nothing or the file that was
//! there before, byte for byte; a run that finished before the kill left a complete file. Files are
//! written to a temporary name and renamed into place when complete, which is what this checks.
//! (A killed run leaves its temporary `.lwc-tmp*` file behind: nothing can remove it after SIGKILL.)

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::*;

/// Kill points per phase, spread evenly over a run's duration (plus one before it starts).
const KILLS: u32 = 8;

/// Runs `lwc compress input -o target`, killed after `after` (or left to finish when `None`); returns
/// whether it finished.
fn compress(input: &Path, target: &Path, after: Option<Duration>) -> bool {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lwc"))
        .args(["compress", p(input), "-o", p(target), "--quiet"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    if let Some(after) = after {
        std::thread::sleep(after);
        let _ = child.kill();
    }
    child.wait().unwrap().success()
}

#[test]
fn a_killed_writer_leaves_the_previous_file_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("flights.parquet");
    write_parquet(&input, &lwc_testdata::flights(150_000, 5));
    let target = dir.path().join("out.lwc");

    // How long a whole run takes here, so the kills land all over it.
    let start = Instant::now();
    assert!(compress(&input, &target, None));
    let full = start.elapsed();
    let complete = std::fs::read(&target).unwrap();
    std::fs::remove_file(&target).unwrap();

    // Nothing there before: after a kill, nothing there, or the complete file if the run won the race.
    for k in 0..=KILLS {
        let finished = compress(&input, &target, Some(full * k / KILLS));
        match std::fs::read(&target) {
            Err(_) => assert!(!finished, "a finished run left no file"),
            Ok(bytes) => {
                assert_eq!(bytes, complete, "kill at {k}/{KILLS} of a run left a partial file under the final name");
                std::fs::remove_file(&target).unwrap();
            }
        }
    }

    // Some kills landed while the file was being written: their temporary files are still there.
    let temporary = std::fs::read_dir(dir.path())
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with(".lwc-tmp"))
        .count();
    assert!(temporary > 0, "no kill landed while the file was being written (a run takes {full:?})");

    // A previous file there: after a kill, it is untouched, or replaced by the complete new file.
    let previous = dir.path().join("previous.parquet");
    write_parquet(&previous, &lwc_testdata::orders(500, 6));
    assert!(compress(&previous, &target, None));
    let before = std::fs::read(&target).unwrap();
    for k in 0..=KILLS {
        compress(&input, &target, Some(full * k / KILLS));
        let after = std::fs::read(&target).expect("the previous file is gone");
        if after != before {
            assert_eq!(after, complete, "kill at {k}/{KILLS} of a run damaged the previous file");
            std::fs::write(&target, &before).unwrap();
        }
        ok(&["inspect", p(&target), "--verify"]);
    }
}
