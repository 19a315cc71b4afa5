//! Any text through the parser, the formatter and the checker: nothing may
//! panic. Run with `cargo +nightly fuzz run check` from the repository root.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let _ = layout_syntax::parse(text);
    if let Ok(formatted) = layout_syntax::format::format(text) {
        // Formatting is idempotent on whatever it accepts.
        assert_eq!(layout_syntax::format::format(&formatted).as_deref(), Ok(formatted.as_str()));
    }
    let mut db = layout_db::Database::default();
    let file = layout_db::SourceFile::open(&mut db, "fuzz.lay".into(), text.to_string());
    let _ = layout_db::check_file(&db, file);
});
