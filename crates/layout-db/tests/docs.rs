//! docs/language.md lists every function with its parameters.

#[test]
fn every_function_is_documented() {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/language.md"
    ))
    .expect("docs/language.md");
    for sig in layout_db::builtins::SIGNATURES {
        let params: Vec<String> = sig
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                if i < sig.required {
                    p.to_string()
                } else {
                    format!("{p}?")
                }
            })
            .collect();
        let row = format!("| `{}({})` | {} |", sig.name, params.join(", "), sig.doc);
        assert!(
            doc.contains(&row),
            "docs/language.md lacks or misdescribes:\n{row}"
        );
    }
}
