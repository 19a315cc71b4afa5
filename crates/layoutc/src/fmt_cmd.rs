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
        let formatted = match layout_syntax::format::format(&text) {
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

/// Writes beside the file, then renames over it: readers see the old or
/// the new text, never a half-written one.
pub(crate) fn write_atomically(path: &Path, contents: impl AsRef<[u8]>) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map_or("file".into(), |n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(".{name}.layoutc-fmt.{}", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(contents.as_ref())?;
        f.sync_all()?;
        if let Ok(meta) = std::fs::metadata(path) {
            std::fs::set_permissions(&tmp, meta.permissions())?;
        }
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
