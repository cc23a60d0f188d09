//! `lwc sql`: SQL over .lwc files through DataFusion, one statement after another, or a shell.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use arrow::record_batch::RecordBatch;
use datafusion::prelude::{SessionConfig, SessionContext};
use datafusion::sql::parser::DFParser;
use lwc_datafusion::{lwc_files_in, LwcTable};

use crate::{SqlArgs, SqlFormat};

/// Runs `lwc sql`.
pub fn run(args: &SqlArgs) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting threads")?;
    runtime.block_on(async {
        let ctx = lwc_datafusion::session_context(SessionConfig::new());
        for (name, path) in tables(&args.paths)? {
            let table = LwcTable::open(&path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            ctx.register_table(name.as_str(), Arc::new(table))?;
        }
        let script = match (&args.execute, &args.file) {
            (Some(q), None) => q.clone(),
            (None, Some(f)) => std::fs::read_to_string(f).with_context(|| format!("reading {}", f.display()))?,
            (None, None) if !std::io::stdin().is_terminal() => {
                std::io::read_to_string(std::io::stdin()).context("reading SQL from standard input")?
            }
            (None, None) => return shell(&ctx, args.format).await,
            (Some(_), Some(_)) => bail!("give a query with -e or a file with -f, not both"),
        };
        run_script(&ctx, &script, args.format, &mut std::io::stdout().lock()).await
    })
}

/// Table names and paths: each .lwc file is a table named by its stem; a directory gives every .lwc file
/// inside, and every subdirectory holding .lwc files, one table of all its files, named by the subdirectory.
fn tables(paths: &[PathBuf]) -> Result<BTreeMap<String, PathBuf>> {
    let mut tables = BTreeMap::new();
    for path in paths {
        let found: Vec<PathBuf> = if path.is_dir() {
            let read = |dir: &Path| lwc_files_in(dir).with_context(|| format!("reading {}", dir.display()));
            let mut found = read(path)?;
            // Subdirectories of .lwc files: one table each.
            for entry in std::fs::read_dir(path).with_context(|| format!("reading {}", path.display()))? {
                let sub = entry?.path();
                if sub.is_dir() && !read(&sub)?.is_empty() {
                    found.push(sub);
                }
            }
            found.sort();
            if found.is_empty() {
                bail!("{}: no .lwc files in this directory", path.display());
            }
            found
        } else {
            vec![path.clone()]
        };
        for table in found {
            let name = table_name(&table)?;
            if let Some(before) = tables.insert(name.clone(), table.clone()) {
                bail!("two tables named {name}: {} and {}", before.display(), table.display());
            }
        }
    }
    Ok(tables)
}

/// A file's stem, or a directory's name.
fn table_name(path: &Path) -> Result<String> {
    let stem = if path.is_dir() { path.file_name() } else { path.file_stem() }.and_then(|s| s.to_str());
    stem.map(str::to_string).with_context(|| format!("{}: no file name to name a table by", path.display()))
}

/// Runs every statement of `script` in order, printing each result.
async fn run_script(ctx: &SessionContext, script: &str, format: SqlFormat, out: &mut impl Write) -> Result<()> {
    let statements = DFParser::parse_sql(script)?;
    if statements.is_empty() {
        bail!("no SQL statement given");
    }
    for statement in statements {
        let start = Instant::now();
        let plan = ctx.state().statement_to_plan(statement).await?;
        let batches = ctx.execute_logical_plan(plan).await?.collect().await?;
        print(&batches, format, out)?;
        if format == SqlFormat::Table {
            let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
            eprintln!(
                "{rows} row{} in {:.1} ms",
                if rows == 1 { "" } else { "s" },
                start.elapsed().as_secs_f64() * 1e3
            );
        }
    }
    Ok(())
}

fn print(batches: &[RecordBatch], format: SqlFormat, out: &mut impl Write) -> Result<()> {
    match format {
        SqlFormat::Table => writeln!(out, "{}", arrow::util::pretty::pretty_format_batches(batches)?)?,
        SqlFormat::Csv => {
            let mut writer = arrow::csv::WriterBuilder::new().with_header(true).build(&mut *out);
            for batch in batches {
                writer.write(batch)?;
            }
        }
        SqlFormat::Json => {
            let mut writer = arrow::json::ArrayWriter::new(&mut *out);
            for batch in batches {
                writer.write(batch)?;
            }
            writer.finish()?;
            writeln!(out)?;
        }
    }
    Ok(())
}

/// The interactive shell: statements end with `;`, dot commands list tables and schemas.
async fn shell(ctx: &SessionContext, format: SqlFormat) -> Result<()> {
    use rustyline::error::ReadlineError;

    eprintln!(
        "lwc sql: statements end with ';'. .tables lists the tables, .schema TABLE its columns, .quit leaves; \
         Ctrl-C drops the statement being typed."
    );
    let mut editor = rustyline::DefaultEditor::new().context("starting the line editor")?;
    // History across sessions, where there is a home directory to keep it in.
    let history = std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".lwc_sql_history"));
    if let Some(path) = &history {
        let _ = editor.load_history(path);
    }
    let mut pending = String::new();
    loop {
        let line = match editor.readline(if pending.is_empty() { "lwc> " } else { "...> " }) {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => {
                pending.clear();
                continue;
            }
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(e).context("reading a line"),
        };
        let trimmed = line.trim();
        if pending.is_empty() && trimmed.starts_with('.') {
            let _ = editor.add_history_entry(trimmed);
            match dot_command(ctx, trimmed).await {
                Ok(true) => break,
                Ok(false) => {}
                Err(e) => eprintln!("error: {e:#}"),
            }
            continue;
        }
        if pending.is_empty() && trimmed.is_empty() {
            continue;
        }
        pending.push_str(&line);
        pending.push('\n');
        if trimmed.ends_with(';') {
            let script = std::mem::take(&mut pending);
            let _ = editor.add_history_entry(script.trim());
            if let Err(e) = run_script(ctx, &script, format, &mut std::io::stdout().lock()).await {
                eprintln!("error: {e:#}");
            }
        }
    }
    if let Some(path) = &history {
        let _ = editor.save_history(path);
    }
    Ok(())
}

/// Runs a shell's dot command; `true` to leave.
async fn dot_command(ctx: &SessionContext, command: &str) -> Result<bool> {
    let mut words = command.split_whitespace();
    match (words.next(), words.next()) {
        (Some(".quit" | ".exit"), None) => Ok(true),
        (Some(".tables"), None) => {
            let mut names: Vec<String> = ctx
                .catalog_names()
                .iter()
                .filter_map(|c| ctx.catalog(c))
                .flat_map(|c| {
                    c.schema_names().into_iter().filter_map(move |s| c.schema(&s)).flat_map(|s| s.table_names())
                })
                .collect();
            names.sort();
            println!("{}", names.join("\n"));
            Ok(false)
        }
        (Some(".schema"), Some(table)) => {
            let schema = ctx.table_provider(table).await?.schema();
            for field in schema.fields() {
                println!(
                    "{} {}{}",
                    field.name(),
                    field.data_type(),
                    if field.is_nullable() { "" } else { " NOT NULL" }
                );
            }
            Ok(false)
        }
        _ => bail!("unknown command {command:?} (.tables, .schema TABLE, .quit)"),
    }
}
