//! The kernels of a corpus dump, summarised as `show` summarises them.

use layout_db::{Database, KernelSummary, SourceFile, kernel_summaries};

/// The text of `tests/corpus/{corpus}/{file}`.
pub fn text(corpus: &str, file: &str) -> String {
    let path = format!(
        "{}/../../tests/corpus/{corpus}/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The summaries of every `tt.func` of `tests/corpus/{corpus}/{file}`:
/// kernels and the functions they call.
pub fn summaries(corpus: &str, file: &str) -> Vec<KernelSummary> {
    let mut db = Database::default();
    let source = SourceFile::open(&mut db, file.to_string(), text(corpus, file));
    kernel_summaries(&db, source).clone()
}

/// The summary of `tests/corpus/{corpus}/{file}`'s one `tt.func`, which
/// must run `num_warps` warps.
pub fn summary(corpus: &str, file: &str, num_warps: u64) -> KernelSummary {
    let summaries = summaries(corpus, file);
    assert_eq!(summaries.len(), 1, "{file}");
    let s = summaries[0].clone();
    assert_eq!(s.num_warps.map(u64::from), Some(num_warps), "{file}");
    s
}
