//! A progress bar for `layoutc check` over many files: on stderr, and only
//! when stderr is a terminal, so pipes, CI logs and redirected output never
//! see it.

use std::io::IsTerminal;

/// Fewer files than this check too fast for a bar to help.
const MIN_FILES: usize = 8;

/// Whether to draw a bar for `files` files.
fn wanted(stderr_is_terminal: bool, files: usize) -> bool {
    stderr_is_terminal && files >= MIN_FILES && std::env::var_os("LAYOUTC_NO_PROGRESS").is_none()
}

/// Counts files as they are checked; cleared when done.
pub struct FileProgress(Option<indicatif::ProgressBar>);

impl FileProgress {
    pub fn start(files: usize) -> FileProgress {
        if !wanted(std::io::stderr().is_terminal(), files) {
            return FileProgress(None);
        }
        let bar = indicatif::ProgressBar::new(files as u64);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "checking {bar:30} {pos}/{len} files {wide_msg}",
        ) {
            bar.set_style(style);
        }
        bar.tick();
        FileProgress(Some(bar))
    }

    /// One more file checked (called from the worker threads).
    pub fn checked(&self, path: &std::path::Path) {
        if let Some(bar) = &self.0 {
            bar.set_message(path.display().to_string());
            bar.inc(1);
        }
    }

    pub fn finish(self) {
        if let Some(bar) = self.0 {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::wanted;

    #[test]
    fn a_bar_only_on_a_terminal_and_for_many_files() {
        assert!(!wanted(false, 100));
        assert!(!wanted(true, 3));
        assert!(wanted(true, 8) || std::env::var_os("LAYOUTC_NO_PROGRESS").is_some());
    }
}
