//! Byte sizes in and out: `--memory-budget 64MB` parsing, and human-readable sizes, counts and times.

use std::time::Duration;

use anyhow::{bail, Context, Result};

/// Parses a byte size: a number (fractions allowed) and an optional unit. `KB`, `MB`, `GB`, `TB` are
/// powers of 1000; `KiB`, `MiB`, `GiB`, `TiB` and the bare letters `K`, `M`, `G`, `T` powers of 1024;
/// `B` or nothing means bytes. Case and a space before the unit do not matter.
pub fn parse_bytes(text: &str) -> Result<u64> {
    let text = text.trim();
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_')).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number.replace('_', "").parse().with_context(|| format!("'{text}' is not a byte size"))?;
    let factor: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "t" | "tib" => 1 << 40,
        other => bail!("unknown unit '{other}' in '{text}' (use B, KB, MB, GB, TB, KiB, MiB, GiB or TiB)"),
    };
    let bytes = number * factor as f64;
    if !bytes.is_finite() || bytes >= u64::MAX as f64 {
        bail!("'{text}' is too large");
    }
    Ok(bytes.round() as u64)
}

/// `1234567` as `1.18 MiB` (bytes below 1 KiB as `999 B`).
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    let digits = if value < 10.0 {
        2
    } else if value < 100.0 {
        1
    } else {
        0
    };
    format!("{value:.digits$} {}", UNITS[unit])
}

/// `1234567` as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `plain / encoded` as `3.21x` (`-` when nothing was encoded).
pub fn ratio(plain: u64, encoded: u64) -> String {
    if encoded == 0 {
        "-".into()
    } else {
        format!("{:.2}x", plain as f64 / encoded as f64)
    }
}

/// A duration with a unit that keeps three significant digits: `41.2 ns`, `3.07 µs`, `12.5 ms`, `1.20 s`.
pub fn human_time(d: Duration) -> String {
    let ns = d.as_secs_f64() * 1e9;
    let (value, unit) = if ns < 1e3 {
        (ns, "ns")
    } else if ns < 1e6 {
        (ns / 1e3, "µs")
    } else if ns < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    let digits = if value < 10.0 {
        2
    } else if value < 100.0 {
        1
    } else {
        0
    };
    format!("{value:.digits$} {unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_decimal_and_binary_units() {
        assert_eq!(parse_bytes("1024").unwrap(), 1024);
        assert_eq!(parse_bytes("64MB").unwrap(), 64_000_000);
        assert_eq!(parse_bytes("64 MiB").unwrap(), 64 << 20);
        assert_eq!(parse_bytes("1GiB").unwrap(), 1 << 30);
        assert_eq!(parse_bytes("1.5k").unwrap(), 1536);
        assert_eq!(parse_bytes("2g").unwrap(), 2 << 30);
        assert!(parse_bytes("12 parsecs").is_err());
        assert!(parse_bytes("MB").is_err());
        assert!(parse_bytes("").is_err());
    }

    #[test]
    fn sizes_and_counts_print_readably() {
        assert_eq!(human_bytes(999), "999 B");
        assert_eq!(human_bytes(1536), "1.50 KiB");
        assert_eq!(human_bytes(200 << 20), "200 MiB");
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(100), "100");
        assert_eq!(ratio(300, 100), "3.00x");
        assert_eq!(ratio(300, 0), "-");
        assert_eq!(human_time(Duration::from_nanos(41)), "41.0 ns");
        assert_eq!(human_time(Duration::from_micros(3070)), "3.07 ms");
    }
}
