//! `lwc`: compress tables into `.lwc` files, inspect them, query them without decompressing, and a
//! TPC-H demo. Run `lwc --help` or `lwc COMMAND --help`.

mod commands;
mod demo;
mod input;
mod output;
mod query;
mod sql;
mod table;
mod units;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use lwc::Objective;

const EXAMPLES: &str = "\
Examples:
  lwc compress trips.csv -o trips.lwc                 # CSV with a header; schema inferred
  lwc compress events.parquet -o events.lwc --objective scan
  lwc inspect trips.lwc                               # sizes and encodings per column
  lwc get trips.lwc --column fare --rows 5,17,100..110
  lwc scan trips.lwc --column passengers --where '> 4' --sum --min --max
  lwc decompress trips.lwc -o trips.parquet           # exact round trip
  lwc sql trips.lwc -e \"SELECT avg(fare) FROM trips WHERE passengers > 4\"
  lwc demo                                            # TPC-H at scale 0.1: lwc vs Parquet vs Arrow";

/// lwc: lightweight columnar compression that stays queryable.
#[derive(Parser, Debug)]
#[command(name = "lwc", version, after_long_help = EXAMPLES)]
#[command(long_about = "lwc: lightweight columnar compression that stays queryable.\n\n\
Compresses tables (CSV, Parquet, Arrow IPC) into .lwc files whose columns (integers, dates, timestamps, \
decimals, booleans, floats, strings, binaries) are stored as lwc segments: bit packing, frame of reference, \
delta, dictionaries, run-length and their cascades, ALP for floats, FSST for text, chosen per segment. Point lookups, gathers, filters and \
aggregates run on the encoded segments without decompressing the file.")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Compress a CSV, Parquet or Arrow IPC file into an .lwc file.
    #[command(after_long_help = "\
Examples:
  lwc compress lineitem.csv -o lineitem.lwc
  lwc compress data.tsv -o data.lwc                      # tab-separated, from the extension
  lwc compress data.txt -o data.lwc --delimiter ';'
  lwc compress events.parquet -o events.lwc --objective scan=0.8,get=0.2
  lwc compress keys.arrow -o keys.lwc --encoding 'rle(delta(dict), delta)' --segment-rows 131072
  lwc compress big.parquet -o big.lwc --threads 2 --memory-budget 1GiB --quiet")]
    Compress(CompressArgs),
    /// Show an .lwc file's columns: types, sizes, ratios and the encodings chosen.
    #[command(after_long_help = "\
Examples:
  lwc inspect lineitem.lwc
  lwc inspect lineitem.lwc --json | jq '.columns[] | {name, ratio}'
  lwc inspect lineitem.lwc --verify                       # also check every segment's checksum")]
    Inspect(InspectArgs),
    /// Show how the encoding selector chose each segment's encoding: candidates, estimates, costs, reason.
    #[command(after_long_help = "\
The column's values are encoded again with the objective given (an .lwc file's columns are decoded first),
and the selector's record of every segment is printed: the candidates the statistics allowed, their
estimated sizes and modelled scan and lookup costs, why the winner won, and the time spent choosing.

Examples:
  lwc explain lineitem.lwc --column l_orderkey
  lwc explain orders.csv --column o_orderdate --objective random --json")]
    Explain(ExplainArgs),
    /// Write an .lwc file back out as CSV, Parquet (zstd) or Arrow IPC: an exact round trip.
    #[command(after_long_help = "\
Examples:
  lwc decompress lineitem.lwc -o lineitem.csv
  lwc decompress lineitem.lwc -o lineitem.parquet
  lwc decompress lineitem.lwc -o lineitem.arrow           # also .ipc, .feather")]
    Decompress(DecompressArgs),
    /// Print rows of an .lwc file by row number (point lookups on the encoded columns).
    #[command(after_long_help = "\
Examples:
  lwc get lineitem.lwc --column l_orderkey --rows 5,17,99
  lwc get lineitem.lwc --column l_shipdate,l_quantity --rows 10..20
  lwc get lineitem.lwc --rows 0..=3 --csv                 # every column, as CSV")]
    Get(GetArgs),
    /// Filter and aggregate a column on its encoded form; print the first rows selected.
    #[command(after_long_help = "\
Conditions (--where), optionally starting with the column's name, or with another column's name to test
that column instead; several --where must all hold:
  > 10   >= 10   < 10   <= 10   = 5   <> 5 (or !=)
  between 3 and 9   in (1, 2, 3)   is null   is not null   like 'PROMO%' (prefixes)
Literals are read in the column's type: integers; floats (NaN sorts above every number, as in Arrow);
dates as YYYY-MM-DD (or a day number); decimals as written (3 means 3.00); timestamps as ISO text or a
number in the column's unit; booleans true/false; text in single quotes ('it''s').

Examples:
  lwc scan lineitem.lwc --column l_quantity --where '< 3'
  lwc scan lineitem.lwc --column l_shipdate --where \"between 1994-01-01 and 1994-12-31\" --count --min --max
  lwc scan lineitem.lwc --column l_extendedprice --where \"l_shipmode in ('MAIL', 'SHIP')\" --sum
  lwc scan part.lwc --column p_retailprice --where \"p_type like 'PROMO%'\" --sum --show 5")]
    Scan(ScanArgs),
    /// Generate TPC-H, compress every table, compare sizes and query times with Parquet and Arrow.
    #[command(after_long_help = "\
For each of the 8 TPC-H tables (generated in memory by tpchgen): rows, plain bytes (Arrow buffers),
Parquet with zstd (written in memory), lwc (objective --objective, balanced by default), and ratios; the encodings chosen for the
key columns; then times (median of several runs) of a point lookup, a selective scan and a sum on lineitem,
on lwc's encoded columns and on plain Arrow arrays with arrow's compute kernels. Build with --release for
meaningful times.

Examples:
  lwc demo
  lwc demo --scale 1 --out /tmp/tpch     # also writes every table as .lwc and .parquet")]
    Demo(DemoArgs),
    /// Measure what each encoding costs to read on this machine, for --costs.
    #[command(after_long_help = "\
Encodes synthetic data shaped for each encoding at bit widths 1 to 64 and times a full decode and
random lookups. The encoding selector weighs these costs under the
scan, random, balanced and weighted objectives; without --costs it uses a table measured on the
development machine (a 2-core Intel Xeon).

Examples:
  lwc calibrate -o costs.txt
  lwc compress lineitem.parquet -o lineitem.lwc --objective random --costs costs.txt")]
    Calibrate(CalibrateArgs),
    /// Run SQL over .lwc files (Apache DataFusion; filters run on the encoded segments).
    #[command(after_long_help = "\
Each PATH is an .lwc file, a table named by its stem, or a directory whose .lwc files are tables. Filters
that lwc can run (comparisons, BETWEEN, IN, IS NULL, LIKE 'prefix%', and AND/OR/NOT of them) are evaluated
on the encoded segments, and only the columns a query reads are decoded. Without -e or -f, statements come
from standard input, or from an interactive shell (.tables, .schema TABLE, .quit) on a terminal.

Examples:
  lwc sql lineitem.lwc -e \"SELECT count(*) FROM lineitem WHERE l_quantity < 3\"
  lwc sql tpch/ -f q1.sql --format csv > q1.csv
  lwc sql tpch/")]
    Sql(SqlArgs),
}

/// How `lwc sql` prints results.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SqlFormat {
    /// An aligned table, and the rows and time of each statement on stderr.
    Table,
    /// CSV with a header row.
    Csv,
    /// A JSON array of objects, one per row.
    Json,
}

/// Options of `lwc sql`.
#[derive(Args, Debug)]
pub struct SqlArgs {
    /// .lwc files (each a table named by its stem) and directories: every .lwc file inside, and every
    /// subdirectory of .lwc files with one schema, one table named by the subdirectory.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// The SQL to run (several statements separated by ';').
    #[arg(short = 'e', long, value_name = "QUERY")]
    pub execute: Option<String>,
    /// A file of SQL statements to run.
    #[arg(short, long, value_name = "FILE.sql", conflicts_with = "execute")]
    pub file: Option<PathBuf>,
    /// How results are printed.
    #[arg(long, value_enum, default_value_t = SqlFormat::Table)]
    pub format: SqlFormat,
}

/// Options of `lwc calibrate`.
#[derive(Args, Debug)]
pub struct CalibrateArgs {
    /// Write the cost table here (default: print it).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Measure this many times and keep each figure's fastest (about a second each): on a shared
    /// machine whose speed comes and goes, more passes catch more figures at its unloaded speed.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub passes: u32,
}

/// Options of `lwc compress`.
#[derive(Args, Debug)]
pub struct CompressArgs {
    /// Input table: CSV with a header line, Parquet, or Arrow IPC (file or stream format). The format
    /// comes from the extension (.csv .tsv .parquet .arrow .ipc .feather .arrows) and the file's magic bytes.
    pub input: PathBuf,
    /// The .lwc file to write (replaced only once it is complete).
    #[arg(short, long, value_name = "OUT.lwc")]
    pub output: PathBuf,
    /// What the encoding selector optimizes per segment: size (smallest), scan (fastest full decode),
    /// random (fastest point lookups), balanced (smallest unless a slightly larger one reads much faster),
    /// or weights of scans and lookups per row such as scan=0.8,get=0.2.
    #[arg(long, default_value = "balanced", value_name = "OBJECTIVE")]
    pub objective: Objective,
    /// Fit the table's columns into this many bytes (e.g. 64MB, 512KiB, 1GiB; KB/MB/GB are powers of 1000,
    /// KiB/MiB/GiB and K/M/G powers of 1024), choosing per column the encoding that reads fastest for the
    /// access mix of --objective (scan: full scans; random: lookups; balanced: a scan and a lookup per
    /// row; or weights) while the columns' encoded bytes stay within the budget. The table is read into
    /// memory and every column encoded under five objectives; the picks are written as encoded, and the plan printed.
    #[arg(long, value_name = "BYTES", value_parser = parse_size)]
    pub memory_budget: Option<u64>,
    #[arg(long, value_name = "NAME", help = encoding_help())]
    pub encoding: Option<lwc::Cascade>,
    /// Rows per segment (and per row group of the file).
    #[arg(long, default_value_t = lwc::column::DEFAULT_SEGMENT_ROWS, value_name = "N")]
    pub segment_rows: usize,
    /// Segments that keep the encoding chosen for the segment before them while their values look
    /// alike (within 10 % of its bytes a row; numbers: a range of as many bits; strings: its FSST table
    /// too), instead of choosing again; a column's later choices are kept twice and four times as long.
    /// 0 chooses for every segment.
    #[arg(long, default_value_t = lwc::DEFAULT_KEEP_CHOICE, value_name = "N")]
    pub keep_choice: usize,
    /// Threads encoding columns in parallel (default: one per core).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: Option<u32>,
    /// CSV field delimiter (one character; `tab` or \t for tabs). Default: `,` (tab for .tsv).
    #[arg(long, value_name = "CHAR", value_parser = parse_delimiter)]
    pub delimiter: Option<u8>,
    /// Read costs measured by `lwc calibrate` for the selector to weigh (default: the built-in table).
    #[arg(long, value_name = "FILE")]
    pub costs: Option<PathBuf>,
    /// No progress bar (it is also hidden when stderr is not a terminal).
    #[arg(short, long)]
    pub quiet: bool,
}

/// Options of `lwc inspect`.
#[derive(Args, Debug)]
pub struct InspectArgs {
    /// The .lwc file.
    pub file: PathBuf,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Also verify every segment's checksum (reads the whole file).
    #[arg(long)]
    pub verify: bool,
}

/// Options of `lwc explain`.
#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// An .lwc file, or a table (CSV, Parquet, Arrow IPC), whose columns are encoded anew.
    pub input: PathBuf,
    /// Only these columns, comma separated or repeated (default: every column whose encoding is chosen:
    /// integers, dates, decimals, floats, strings, binaries).
    #[arg(short, long, value_name = "NAME", value_delimiter = ',')]
    pub column: Vec<String>,
    /// The objective the selector is run with (see `lwc compress --help`).
    #[arg(long, default_value = "balanced", value_name = "OBJECTIVE")]
    pub objective: Objective,
    /// Rows per segment.
    #[arg(long, default_value_t = lwc::column::DEFAULT_SEGMENT_ROWS, value_name = "N")]
    pub segment_rows: usize,
    /// Segments that keep the encoding chosen before them, as `lwc compress --keep-choice` (their records
    /// say so); 0 shows every segment's own choice and candidates.
    #[arg(long, default_value_t = lwc::DEFAULT_KEEP_CHOICE, value_name = "N")]
    pub keep_choice: usize,
    /// CSV field delimiter, for a CSV input (see `lwc compress --help`).
    #[arg(long, value_name = "CHAR", value_parser = parse_delimiter)]
    pub delimiter: Option<u8>,
    /// Read costs measured by `lwc calibrate` (default: the built-in table).
    #[arg(long, value_name = "FILE")]
    pub costs: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Options of `lwc decompress`.
#[derive(Args, Debug)]
pub struct DecompressArgs {
    /// The .lwc file.
    pub file: PathBuf,
    /// Output file; its extension picks the format: .csv, .parquet (zstd), .arrow/.ipc/.feather (Arrow
    /// IPC file format).
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
}

/// Options of `lwc get`.
#[derive(Args, Debug)]
pub struct GetArgs {
    /// The .lwc file.
    pub file: PathBuf,
    /// Columns to print, comma separated or repeated (default: all).
    #[arg(short, long, value_name = "NAME", value_delimiter = ',')]
    pub column: Vec<String>,
    /// Row numbers (from 0) and ranges, comma separated: 5,17,99 or 10..20 (20 excluded) or 10..=20.
    #[arg(short, long, value_name = "ROWS", allow_hyphen_values = true)]
    pub rows: String,
    /// Print CSV (a header line, then one line per row) instead of a table.
    #[arg(long)]
    pub csv: bool,
}

/// Options of `lwc scan`.
#[derive(Args, Debug)]
pub struct ScanArgs {
    /// The .lwc file.
    pub file: PathBuf,
    /// The column to count and aggregate (any type: numbers, dates, decimals, floats, text).
    #[arg(short, long, value_name = "NAME")]
    pub column: String,
    /// Keep only rows matching this condition, e.g. '> 10', 'between 3 and 9', 'in (1,2,3)', 'is null',
    /// "= 'BUILDING'", "like 'PROMO%'". A condition on another column starts with its name
    /// ("l_shipdate <= '1998-09-02'"); repeated conditions must all hold.
    #[arg(short = 'w', long = "where", value_name = "CONDITION", allow_hyphen_values = true)]
    pub condition: Vec<String>,
    /// Print the number of rows selected (always printed; the flag is accepted for clarity).
    #[arg(long)]
    pub count: bool,
    /// Print the sum of the selected values.
    #[arg(long)]
    pub sum: bool,
    /// Print the smallest selected value.
    #[arg(long)]
    pub min: bool,
    /// Print the largest selected value.
    #[arg(long)]
    pub max: bool,
    /// Also print the first N selected rows, every column.
    #[arg(long, value_name = "N")]
    pub show: Option<u64>,
}

/// Options of `lwc demo`.
#[derive(Args, Debug)]
pub struct DemoArgs {
    /// TPC-H scale factor (1 is about 8.7 million rows in all; 0.1 runs in seconds).
    #[arg(long, default_value_t = 0.1, value_name = "SF")]
    pub scale: f64,
    /// Also write every table as DIR/TABLE.lwc and DIR/TABLE.parquet.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Timed runs per operation (the median is reported).
    #[arg(long, default_value_t = 7, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// What lwc's encoding selector optimizes (see `lwc compress --help`).
    #[arg(long, default_value = "balanced", value_name = "OBJECTIVE")]
    pub objective: Objective,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
}

/// The help of `--encoding`, naming every integer encoding of the registry.
fn encoding_help() -> String {
    let names: Vec<String> = lwc::EncodingId::ALL
        .iter()
        .filter(|id| id.family() == lwc::Family::Integers)
        .map(|id| match id.parameter() {
            Some(p) => format!("{id}:{}", p.name.to_uppercase()),
            None => id.to_string(),
        })
        .collect();
    format!(
        "Force one encoding or cascade for every integer segment instead of choosing per segment (then \
         --objective does not matter), by its stable name: {}, with child streams in parentheses: \
         \"rle(delta(dict), delta)\"",
        names.join(", ")
    )
}

fn parse_size(text: &str) -> Result<u64, String> {
    units::parse_bytes(text).map_err(|e| format!("{e:#}"))
}

fn parse_delimiter(text: &str) -> Result<u8, String> {
    match text {
        "tab" | "\\t" | "\t" => Ok(b'\t'),
        t if t.len() == 1 && t.is_ascii() => Ok(t.as_bytes()[0]),
        t => Err(format!("'{t}' is not one ASCII character")),
    }
}

/// Writes command output to stdout; a closed pipe (`lwc get ... | head`) ends the program quietly.
pub fn emit(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        other => Ok(other?),
    }
}

/// Whether progress bars may be drawn.
pub fn show_progress(quiet: bool) -> bool {
    !quiet && std::io::stderr().is_terminal()
}

/// Scans allocate an array per column and row group and free it a batch later: mimalloc keeps those
/// pages for the next one, where glibc's malloc returns them to the kernel and faults them in again.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Compress(args) => commands::compress(&args),
        Command::Inspect(args) => commands::inspect(&args),
        Command::Explain(args) => commands::explain(&args),
        Command::Decompress(args) => commands::decompress(&args),
        Command::Get(args) => commands::get(&args),
        Command::Scan(args) => commands::scan(&args),
        Command::Demo(args) => demo::run(&args),
        Command::Calibrate(args) => commands::calibrate(&args),
        Command::Sql(args) => sql::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        super::Cli::command().debug_assert();
    }
}
