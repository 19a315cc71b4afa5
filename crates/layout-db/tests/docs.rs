//! docs/language.md's function list is the builtins table's own text:
//! between its markers it equals `layout_db::builtins::markdown()`.
//! `UPDATE_EXPECT=1` rewrites the section.

const START: &str = "<!-- builtins: generated from crates/layout-db/src/builtins by `UPDATE_EXPECT=1 cargo test -p layout-db --test all docs::` -->\n";
const END: &str = "<!-- builtins: end -->";

#[test]
fn the_function_list_of_the_language_reference_is_the_builtins_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/language.md");
    let doc = std::fs::read_to_string(path).expect("docs/language.md");
    let start = doc
        .find(START)
        .expect("docs/language.md has the start marker")
        + START.len();
    let end = doc[start..]
        .find(END)
        .expect("docs/language.md has the end marker")
        + start;
    let generated = layout_db::builtins::markdown();
    if doc[start..end] == generated {
        return;
    }
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        let updated = format!("{}{generated}{}", &doc[..start], &doc[end..]);
        std::fs::write(path, updated).expect("write docs/language.md");
        return;
    }
    panic!(
        "docs/language.md's function list differs from the builtins table; run UPDATE_EXPECT=1 cargo test -p layout-db --test all docs::\n--- generated ---\n{generated}"
    );
}

#[test]
fn every_function_and_parameter_has_a_one_line_doc() {
    let mut bad = Vec::new();
    for b in layout_db::builtins::all() {
        let docs = std::iter::once((String::new(), b.doc)).chain(
            b.params()
                .into_iter()
                .map(|p| (format!(".{}", p.name), p.doc)),
        );
        for (what, doc) in docs {
            if doc.trim().is_empty() || doc.contains('\n') {
                bad.push(format!("{}{what}", b.name));
            }
        }
    }
    assert_eq!(bad, Vec::<String>::new());
}
