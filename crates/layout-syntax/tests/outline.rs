//! The line-by-line outline agrees with the one cut from the whole token
//! stream, on the examples and on random text.

use layout_syntax::{outline, outline_by_tokens};
use proptest::prelude::*;

#[test]
fn outlines_agree_on_the_examples() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "lay") {
            let text = std::fs::read_to_string(&path).unwrap();
            assert_eq!(
                outline(&text),
                outline_by_tokens(&text),
                "{}",
                path.display()
            );
        }
    }
}

fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("layout".to_string()),
        Just("let".to_string()),
        Just("check".to_string()),
        Just("solve".to_string()),
        Just("target".to_string()),
        Just("module".to_string()),
        Just("#".to_string()),
        Just("=".to_string()),
        Just("\n".to_string()),
        Just(" ".to_string()),
        Just("// c\n".to_string()),
        Just("\"s".to_string()),
        Just("\"".to_string()),
        Just("99999999999999999999".to_string()),
        Just("@".to_string()),
        Just("é".to_string()),
        Just("(".to_string()),
        Just("==".to_string()),
        "[a-z]{1,3}",
        "[0-9]{1,3}",
    ]
}

proptest! {
    #[test]
    fn outlines_agree_on_random_text(pieces in prop::collection::vec(piece(), 0..40)) {
        let text: String = pieces.concat();
        prop_assert_eq!(outline(&text), outline_by_tokens(&text));
    }
}
