//! The `layoutc` command line: `check`, `show`, `solve`, `render`, `fmt`,
//! `import` and `explain` over `.lay` files and dumps, and `lsp`, the
//! language server. The binary (main.rs) and the Python package run it
//! through [`run`]; the Python API reads its output with [`run_captured`].
//!
//! Exit codes (CONTRACT §5): 0 success, 1 the input has errors or a `check`
//! failed, 2 bad usage (unknown flag, missing file).

mod files;
mod fmt_cmd;
mod import;
mod json_schema;
mod kernels;
mod layout_json;
mod picture;
mod progress;
mod report;
mod sarif;
mod show;
mod solve_cmd;

use std::io::IsTerminal;

use clap::{Parser, Subcommand, ValueEnum};

/// layoutc: check, show and solve GPU/TPU tensor layouts.
#[derive(Parser, Debug)]
#[command(name = "layoutc", version, about, long_about = None)]
struct Cli {
    /// When to colour the output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    color: ColorChoice,
    #[command(subcommand)]
    command: Command,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    /// Human-readable reports with source excerpts.
    Text,
    /// One JSON object per run: files, diagnostics and check counts.
    Json,
    /// SARIF 2.1.0 for code-scanning upload.
    Sarif,
    /// GitHub Actions workflow annotations.
    Github,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum ShowFormat {
    Text,
    Json,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Check .lay files and Triton dumps: syntax, names, types and every `check`.
    Check {
        /// Files, directories (searched for *.lay, *.ttgir, *.mlir) and glob patterns.
        #[arg(required = true)]
        paths: Vec<String>,
        #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
        format: CheckFormat,
        /// In an MLIR_ENABLE_DUMP log or a file of several dumps, the dump to
        /// analyse: a pass name (the last section printed before it) or a
        /// number from 1. By default, the last TritonGPU module.
        #[arg(long, value_name = "PASS|N")]
        section: Option<layout_ide::syntax::SectionChoice>,
    },
    /// Show the values a file declares: bases, ownership grids, tables.
    Show {
        file: String,
        /// Show only this declaration (or kernel, `@name`).
        name: Option<String>,
        #[arg(long, value_enum, default_value_t = ShowFormat::Text)]
        format: ShowFormat,
        /// The dump to analyse in a file of several (see `check --section`).
        #[arg(long, value_name = "PASS|N")]
        section: Option<layout_ide::syntax::SectionChoice>,
    },
    /// Answer every `solve` block: the layout, its cost per access, the
    /// lower bound and why it is (or is not) proved optimal.
    Solve {
        file: String,
        #[arg(long, value_enum, default_value_t = ShowFormat::Text)]
        format: ShowFormat,
        /// Record each answer in its block (`answer = ...`), atomically.
        #[arg(long)]
        write: bool,
        /// The solver's time limit for every block, in milliseconds, in
        /// place of the blocks' own `timeout` (default 2000).
        #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
        timeout: Option<u64>,
    },
    /// A Triton TTGIR dump as a .lay file: its aliases, tensor types,
    /// conversions and shared-memory accesses with their analysis.
    Import {
        dump: String,
        /// Write here (atomically) instead of printing.
        #[arg(short, long)]
        output: Option<String>,
    },
    /// Draw one value: a distributed layout's owners, a shared layout's
    /// offsets and banks, an access's bank heatmap, an XLA tiling, a CuTe
    /// layout, a solve answer. The format follows the output's extension.
    Render {
        file: String,
        /// The declaration to draw (`#alias` or `%12` for pasted dumps).
        name: String,
        /// OUT.svg, OUT.png or OUT.html (written atomically).
        #[arg(short, long, required = true)]
        output: String,
    },
    /// Explain a diagnostic code, with an example that triggers it.
    Explain {
        /// A code such as E0301.
        code: String,
    },
    /// Format .lay files (prints the result unless --write or --check).
    Fmt {
        #[arg(required = true)]
        paths: Vec<String>,
        /// Exit with 1 when a file is not formatted; write nothing.
        #[arg(long, conflicts_with = "write")]
        check: bool,
        /// Rewrite the files in place (atomically).
        #[arg(long)]
        write: bool,
    },
    /// The language server, over stdin and stdout (for editors).
    Lsp,
}

thread_local! {
    /// Where this thread's standard output goes instead, while
    /// [`run_captured`] runs a command on it.
    static CAPTURED: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Writes to stdout; a closed pipe (`layoutc show f.lay | head`) ends the
/// output quietly instead of panicking as `print!` would.
pub fn write_stdout(text: &str) {
    use std::io::Write;
    let captured = CAPTURED.with(|c| match c.borrow_mut().as_mut() {
        Some(out) => {
            out.push_str(text);
            true
        }
        None => false,
    });
    if captured {
        return;
    }
    let mut out = std::io::stdout().lock();
    if out
        .write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .is_err()
    {
        std::process::exit(0);
    }
}

#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => { $crate::write_stdout(&format!($($arg)*)) };
}

#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => { $crate::write_stdout(&format!("{}\n", format!($($arg)*))) };
}

fn explain(code: &str) -> Result<u8, Usage> {
    let Some(code) = layout_ide::checked::Code::from_name(code) else {
        let known: Vec<&str> = layout_ide::checked::Code::ALL
            .iter()
            .map(|c| c.as_str())
            .collect();
        return Err(Usage(format!(
            "no diagnostic {}; the codes are {}",
            code.trim().to_uppercase(),
            known.join(", ")
        )));
    };
    outln!(
        "{}: {}\n{}",
        code.as_str(),
        code.title(),
        code.explanation()
    );
    Ok(0)
}

/// Bad usage: exit code 2 with a message.
pub struct Usage(pub String);

/// Runs the command line `args` (the first is the program's name) and
/// returns its exit status; output goes to stdout and stderr.
pub fn run<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    let color = match cli.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
        }
    };
    on_large_stack(move || run_command(cli.command, color))
}

/// Runs `args` as [`run`] does, with what the command writes to stdout
/// returned instead of printed: the exit status and the output.
pub fn run_captured<I, T>(args: I) -> (u8, String)
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => return (2, e.to_string()),
    };
    on_large_stack_captured(move || run_command(cli.command, false))
}

/// Checking recurses once per level of an item's nesting (bounded by the
/// parser), so commands run on a thread with room for that bound.
fn on_large_stack(command: impl FnOnce() -> Result<u8, Usage> + Send + 'static) -> u8 {
    let result = std::thread::Builder::new()
        .name("layoutc".into())
        .stack_size(layout_ide::STACK_BYTES)
        .spawn(command)
        .map_err(|e| Usage(format!("cannot start a thread: {e}")))
        .and_then(|thread| {
            thread
                .join()
                .unwrap_or_else(|_| Err(Usage("internal error: a command panicked".into())))
        });
    match result {
        Ok(code) => code,
        Err(Usage(msg)) => {
            eprintln!("layoutc: {msg}");
            2
        }
    }
}

fn on_large_stack_captured(
    command: impl FnOnce() -> Result<u8, Usage> + Send + 'static,
) -> (u8, String) {
    let thread = std::thread::Builder::new()
        .name("layoutc".into())
        .stack_size(layout_ide::STACK_BYTES)
        .spawn(move || {
            CAPTURED.with(|c| *c.borrow_mut() = Some(String::new()));
            let result = command();
            let out = CAPTURED.with(|c| c.borrow_mut().take()).unwrap_or_default();
            (result, out)
        });
    match thread.map(|t| t.join()) {
        Ok(Ok((Ok(code), out))) => (code, out),
        Ok(Ok((Err(Usage(msg)), _))) => (2, format!("layoutc: {msg}")),
        Ok(Err(_)) => (2, "layoutc: internal error: a command panicked".into()),
        Err(e) => (2, format!("layoutc: cannot start a thread: {e}")),
    }
}

/// Runs one command; the exit status, or a usage error.
fn run_command(command: Command, color: bool) -> Result<u8, Usage> {
    match command {
        Command::Check {
            paths,
            format,
            section,
        } => report::check(&paths, format, color, &section.unwrap_or_default()),
        Command::Show {
            file,
            name,
            format,
            section,
        } => show::show(&file, name.as_deref(), format, &section.unwrap_or_default()),
        Command::Solve {
            file,
            format,
            write,
            timeout,
        } => solve_cmd::solve(&file, format, write, timeout),
        Command::Render { file, name, output } => picture::render(&file, &name, &output),
        Command::Explain { code } => explain(&code),
        Command::Import { dump, output } => import::import(&dump, output.as_deref()),
        Command::Fmt {
            paths,
            check,
            write,
        } => fmt_cmd::fmt(&paths, check, write),
        Command::Lsp => Ok(layout_lsp::run_stdio()),
    }
}
