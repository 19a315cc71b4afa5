//! One file analysed as the command line analyses it: a database of its
//! own, the section of a dump to check, the solver's time limit; then its
//! report, its values and its kernels. The language server keeps a
//! database of every open file instead and asks the feature modules of
//! this crate directly; both read the same queries.

use layout_db::{Database, FileReport, KernelSummary, NamedValue, SourceFile};
use layout_syntax::dump::{SectionChoice, select, select_with};

/// A file and the database that analyses it.
pub struct Analysis {
    db: Database,
    file: SourceFile,
}

impl Analysis {
    /// `text` of `path`; of a dump of several passes, the last TritonGPU
    /// one (what `check` reads by default).
    pub fn new(path: String, text: String) -> Analysis {
        let mut db = Database::default();
        let file = SourceFile::open(&mut db, path, text);
        Analysis { db, file }
    }

    /// `text` of `path`, checking the section of a multi-pass dump that
    /// `section` chooses. `Err` says why the choice names no section.
    pub fn open(path: String, text: String, section: &SectionChoice) -> Result<Analysis, String> {
        let selection = match section {
            SectionChoice::LastTritonGpu => select(&text),
            chosen => select_with(&text, chosen)?,
        };
        let mut db = Database::default();
        let file = SourceFile::open_selecting(&mut db, path, text, selection);
        Ok(Analysis { db, file })
    }

    /// Every `solve` block's time limit replaced by `ms` (when given).
    pub fn with_solver_timeout(mut self, ms: Option<u64>) -> Analysis {
        if ms.is_some() {
            use layout_db::salsa::Setter;
            self.file.set_solver_timeout_ms(&mut self.db).to(ms);
        }
        self
    }

    /// Every diagnostic and check of the file (all of them: a front end
    /// caps what it shows with [`layout_db::capped_diagnostics`]).
    pub fn report(&self) -> FileReport {
        layout_db::check_file(&self.db, self.file).clone()
    }

    /// The values the file declares, in file order.
    pub fn named_values(&self) -> Vec<NamedValue> {
        layout_db::named_values(&self.db, self.file)
    }

    /// The shared-memory summary of each `tt.func` of a dump.
    pub fn kernels(&self) -> Vec<KernelSummary> {
        layout_db::kernel_summaries(&self.db, self.file).clone()
    }

    /// How `coalesced_blocked` chose the value `name`, step by step.
    pub fn coalesce_explanation(&self, name: &str) -> Option<String> {
        crate::coalesce::explain(&self.db, self.file, name)
    }

    /// The database and the file, for the feature modules of this crate.
    pub fn parts(&self) -> (&Database, SourceFile) {
        (&self.db, self.file)
    }
}
