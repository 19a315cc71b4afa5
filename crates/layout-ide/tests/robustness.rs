//! No input crashes an editor feature: every example, every diagnostic
//! example of docs/diagnostics.md and mutated copies of them (characters
//! deleted, inserted, lines cut — the states a file passes through while
//! being typed), with every feature asked at many places, including
//! offsets inside multi-byte characters and past the end.

use layout_db::{Database, SourceFile};
use layout_ide::*;

fn corpus() -> Vec<(String, String)> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let mut out = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(format!("{root}/examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "lay"))
        .collect();
    paths.sort();
    for p in paths {
        out.push((
            p.display().to_string(),
            std::fs::read_to_string(&p).unwrap(),
        ));
    }
    // Dumps: operations, values, locations and regions (one of each target
    // family).
    for dump in [
        "ttgir/flash_attention_fwd_sm90",
        "kernels/batched_dot_gfx942.allocated",
    ] {
        let p = format!("{root}/tests/corpus/{dump}.ttgir");
        out.push((p.clone(), std::fs::read_to_string(&p).unwrap()));
    }
    let doc = std::fs::read_to_string(format!("{root}/docs/diagnostics.md")).unwrap();
    for (k, block) in doc.split("```lay\n").skip(1).enumerate() {
        let text = block.split("```").next().unwrap_or("");
        out.push((format!("docs/diagnostics.md example {k}"), text.to_string()));
    }
    out
}

/// A deterministic generator (xorshift), so failures reproduce.
struct Random(u64);

impl Random {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

fn mutate(text: &str, r: &mut Random) -> String {
    const PIECES: &[&str] = &[
        "(", ")", "<", ">", "{", "}", "[", "]", ",", "=", "#", "é𝔽", "\n", "check ", "#ttg.", "0",
        "\"",
    ];
    let mut t = text.to_string();
    for _ in 0..1 + r.below(3) {
        let mut at = r.below(t.len() + 1);
        while !t.is_char_boundary(at) {
            at -= 1;
        }
        match r.below(3) {
            0 => {
                let mut end = (at + 1 + r.below(8)).min(t.len());
                while !t.is_char_boundary(end) {
                    end += 1;
                }
                t.replace_range(at..end, "");
            }
            1 => t.insert_str(at, PIECES[r.below(PIECES.len())]),
            _ => t.truncate(at),
        }
    }
    t
}

fn every_feature(text: &str, r: &mut Random) {
    let mut db = Database::default();
    let file = SourceFile::open(&mut db, "f.lay".into(), text.to_string());
    let _ = diagnostics::diagnostics(&db, file);
    let _ = symbols::document_symbols(&db, file);
    let _ = symbols::folding_ranges(&db, file);
    let _ = semantic_tokens::semantic_tokens(&db, file);
    let _ = inlay_hints::inlay_hints(&db, file, None);
    let _ = formatting::format(&db, file);
    let index = LineIndex::new(text);
    for _ in 0..24 {
        let offset = r.below(text.len() + 4); // also inside characters and past the end
        let _ = hover::hover(&db, file, offset);
        let _ = navigation::definition(&db, file, offset);
        let _ = navigation::source_locations(&db, file, offset);
        let _ = navigation::references(&db, file, offset);
        let _ = navigation::prepare_rename(&db, file, offset);
        let _ = navigation::rename(&db, file, offset, "renamed");
        let _ = completion::completions(&db, file, offset);
        let _ = signature_help::signature_help(&db, file, offset);
        let _ = code_actions::code_actions(&db, file, layout_ide::Span::new(offset, offset));
        let lc = index.to_utf16(text, offset);
        assert!(index.from_utf16(text, lc) <= text.len());
    }
}

#[test]
fn no_text_crashes_any_feature() {
    // `ROBUSTNESS_SEED=n` explores other mutations.
    let seed = std::env::var("ROBUSTNESS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x2545_F491_4F6C_DD1D);
    let mut r = Random(seed);
    for (name, text) in corpus() {
        // Printed only when the test fails: the input that crashed.
        println!("{name}");
        every_feature(&text, &mut Random(r.below(1 << 30) as u64 + 1));
        for _ in 0..3 {
            let m = mutate(&text, &mut r);
            println!("{name}, mutated:\n{m}");
            every_feature(&m, &mut Random(r.below(1 << 30) as u64 + 1));
        }
    }
}
