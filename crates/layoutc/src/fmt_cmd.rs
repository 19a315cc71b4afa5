//! `layoutc fmt`: prints formatted files, checks them (`--check`) or
//! rewrites them atomically (`--write`).

use std::io::Write;
use std::path::Path;

use crate::Usage;
use crate::files;

pub fn fmt(paths: &[String], check: bool, write: bool) -> Result<u8, Usage> {
    let mut status = 0;
    for path in files::expand(paths)? {
        let files::Source { text, not_utf8 } = files::read(&path)?;
        if let Some(d) = not_utf8 {
            // Formatting would write the replacement characters back.
            eprintln!(
                "{}: {} {} (not formatted)",
                path.display(),
                d.code.as_str(),
                d.message
            );
            status = 1;
            continue;
        }
        let formatted = match layout_ide::syntax::format(&text) {
            Ok(f) => f,
            Err(errors) => {
                for e in errors {
                    eprintln!(
                        "{}:{}: {} (not formatted)",
                        path.display(),
                        e.span,
                        e.message
                    );
                }
                status = 1;
                continue;
            }
        };
        if check {
            if formatted != text {
                crate::outln!("{} is not formatted", path.display());
                status = 1;
            }
        } else if write {
            if formatted != text {
                write_atomically(&path, &formatted)
                    .map_err(|e| Usage(format!("cannot write {}: {e}", path.display())))?;
            }
        } else {
            crate::out!("{formatted}");
        }
    }
    Ok(status)
}

/// Writes a temporary file beside the target, then persists it over the
/// target (a rename): readers see the old or the new text, never a
/// half-written one, and the file keeps its permissions.
pub(crate) fn write_atomically(path: &Path, contents: impl AsRef<[u8]>) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(contents.as_ref())?;
    tmp.as_file().sync_all()?;
    if let Ok(meta) = std::fs::metadata(path) {
        tmp.as_file().set_permissions(meta.permissions())?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
