//! Workspace symbols of the whole folder, not only of the open documents:
//! every `.lay`, `.ttgir` and `.mlir` file under the client's workspace
//! folders (as `.gitignore` leaves them), read from disk, outlined in a
//! database of its own and kept until the file changes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use layout_ide::Analysis;
use tower_lsp_server::ls_types::{Range, SymbolKind, Uri};

use crate::convert;

/// The most files a folder search reads, and the largest one: a workspace
/// symbol request must answer in interactive time.
const MAX_FILES: usize = 10_000;
const MAX_FILE_BYTES: u64 = 8 << 20;

/// One symbol of a file on disk.
#[derive(Clone, Debug)]
pub struct FileSymbol {
    pub name: String,
    pub kind: SymbolKind,
    pub range: Range,
    pub container: Option<String>,
}

/// A file's symbols as read at its modification time.
type Outline = (SystemTime, Arc<Vec<FileSymbol>>);

/// The folders and the symbols read from them, by file.
#[derive(Default)]
pub struct Workspace {
    pub roots: Vec<PathBuf>,
    cache: Mutex<HashMap<PathBuf, Outline>>,
}

impl Workspace {
    pub fn new(roots: Vec<PathBuf>) -> Workspace {
        Workspace {
            roots,
            ..Default::default()
        }
    }

    /// The files of the folders that layoutc reads, in path order.
    pub fn files(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for root in &self.roots {
            for entry in ignore::WalkBuilder::new(root).build().flatten() {
                let path = entry.path();
                if entry.file_type().is_some_and(|t| t.is_file()) && is_source(path) {
                    out.push(path.to_path_buf());
                    if out.len() >= MAX_FILES {
                        return out;
                    }
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// The symbols of the file at `path`, read again only when it changed.
    pub fn symbols(&self, path: &Path) -> Arc<Vec<FileSymbol>> {
        let meta = std::fs::metadata(path).ok();
        let modified = meta.as_ref().and_then(|m| m.modified().ok());
        if let Some(modified) = modified
            && let Ok(cache) = self.cache.lock()
            && let Some((at, symbols)) = cache.get(path)
            && *at == modified
        {
            return symbols.clone();
        }
        let symbols = Arc::new(match meta {
            Some(m) if m.len() <= MAX_FILE_BYTES => read_symbols(path),
            _ => Vec::new(),
        });
        if let (Some(modified), Ok(mut cache)) = (modified, self.cache.lock()) {
            cache.insert(path.to_path_buf(), (modified, symbols.clone()));
        }
        symbols
    }
}

fn is_source(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e == "lay" || e == "ttgir" || e == "mlir")
}

fn read_symbols(path: &Path) -> Vec<FileSymbol> {
    let Ok(bytes) = std::fs::read(path) else {
        return Vec::new();
    };
    let (text, _) = layout_ide::decode_source(bytes);
    let analysis = Analysis::new(path.display().to_string(), text);
    let (index, text) = (analysis.line_index(), analysis.text());
    analysis
        .flat_symbols()
        .into_iter()
        .map(|(sym, container)| FileSymbol {
            name: sym.name,
            kind: convert::symbol_kind(sym.kind),
            range: convert::range(index, text, sym.name_span),
            container,
        })
        .collect()
}

/// The folders of `initialize`: its workspace folders, else its root.
pub fn roots(params: &tower_lsp_server::ls_types::InitializeParams) -> Vec<PathBuf> {
    let mut uris: Vec<&Uri> = params
        .workspace_folders
        .iter()
        .flatten()
        .map(|f| &f.uri)
        .collect();
    #[allow(deprecated)] // the root is what older clients send
    if uris.is_empty()
        && let Some(root) = &params.root_uri
    {
        uris.push(root);
    }
    uris.iter()
        .filter_map(|u| u.to_file_path().map(|p| p.into_owned()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folders_files_are_outlined_and_reread_when_they_change() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/a.lay"), "let first = 1\n").unwrap();
        std::fs::write(dir.path().join("b.txt"), "let not_read = 1\n").unwrap();
        std::fs::write(dir.path().join(".gitignore"), "ignored.lay\n").unwrap();
        std::fs::write(dir.path().join("ignored.lay"), "let hidden = 1\n").unwrap();
        // `ignore` reads .gitignore files inside a git repository only.
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        let ws = Workspace::new(vec![dir.path().to_path_buf()]);
        let files = ws.files();
        assert_eq!(files, [dir.path().join("sub/a.lay")]);
        let names = |ws: &Workspace| -> Vec<String> {
            ws.symbols(&files[0])
                .iter()
                .map(|s| s.name.clone())
                .collect()
        };
        assert_eq!(names(&ws), ["first"]);
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&files[0], "let first = 1\nlet second = 2\n").unwrap();
        // Some file systems keep a second's resolution: set the time.
        let later = SystemTime::now() + std::time::Duration::from_secs(5);
        std::fs::File::options()
            .write(true)
            .open(&files[0])
            .unwrap()
            .set_modified(later)
            .unwrap();
        assert_eq!(names(&ws), ["first", "second"]);
    }
}
