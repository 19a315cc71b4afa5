//! Turning command-line paths into files, and positions into lines.

use std::path::{Path, PathBuf};

use crate::Usage;

/// Expands files, directories (every `*.lay`, `*.ttgir` and `*.mlir` below,
/// sorted) and glob
/// patterns. A path that matches nothing is a usage error.
pub fn expand(paths: &[String]) -> Result<Vec<PathBuf>, Usage> {
    let mut out = Vec::new();
    for p in paths {
        let path = Path::new(p);
        if path.is_dir() {
            let mut found = Vec::new();
            walk(path, &mut found).map_err(|e| Usage(format!("cannot read {p}: {e}")))?;
            if found.is_empty() {
                return Err(Usage(format!("{p} holds no .lay, .ttgir or .mlir files")));
            }
            found.sort();
            out.extend(found);
        } else if path.is_file() {
            out.push(path.to_path_buf());
        } else if p.contains(['*', '?', '[']) {
            let matches = glob::glob(p).map_err(|e| Usage(format!("bad pattern {p}: {e}")))?;
            let mut found: Vec<PathBuf> = matches
                .filter_map(Result::ok)
                .filter(|m| m.is_file())
                .collect();
            if found.is_empty() {
                return Err(Usage(format!("no files match {p}")));
            }
            found.sort();
            out.extend(found);
        } else {
            return Err(Usage(format!("{p}: no such file or directory")));
        }
    }
    out.dedup();
    Ok(out)
}

/// The `.lay`, `.ttgir` and `.mlir` files under `dir`, as `.gitignore`
/// leaves them (hidden and ignored files skipped, links not followed, as
/// ruff and ripgrep walk).
fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in ignore::WalkBuilder::new(dir).build() {
        let entry = entry.map_err(std::io::Error::other)?;
        let path = entry.path();
        if entry.file_type().is_some_and(|t| t.is_file())
            && path
                .extension()
                .is_some_and(|e| e == "lay" || e == "ttgir" || e == "mlir")
        {
            out.push(path.to_path_buf());
        }
    }
    Ok(())
}

/// A file's text, with E0002 when it is not UTF-8 (then the text is
/// decoded lossily). A file that cannot be read is a usage error.
#[derive(Clone)]
pub struct Source {
    pub text: String,
    pub not_utf8: Option<layout_ide::checked::Diagnostic>,
}

pub fn read(path: &Path) -> Result<Source, Usage> {
    let bytes =
        std::fs::read(path).map_err(|e| Usage(format!("cannot read {}: {e}", path.display())))?;
    let (text, not_utf8) = layout_ide::decode_source(bytes);
    Ok(Source { text, not_utf8 })
}
