//! Quick timings of the checker outside criterion: `profile N` times the
//! outline, lexer, parser and a full check of N five-line units; `profile N
//! check` only the check; `profile N edit` the re-check after a one-line edit;
//! `profile N first-edit` the same when the edited item was never edited before.

use std::time::Instant;
fn main() {
    let unit = |i: usize| {
        format!(
            "#blocked{i} = #ttg.blocked<{{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}}>\nlayout t{i} = tensor<64x64xf16, #blocked{i}>\nlet n{i} = {i} * 2 + 1\ncheck n{i} == {}\nlayout c{i} = composition(cute (6,2):(8,2), cute (4,3):(3,1))\n",
            i * 2 + 1
        )
    };
    let n: usize = std::env::args()
        .nth(1)
        .map_or(10000, |a| a.parse().unwrap());
    let src: String = (0..n).map(unit).collect();
    if std::env::args().nth(2).as_deref() == Some("edit") {
        let mut db = layout_db::Database::default();
        let f = layout_db::SourceFile::open(&mut db, "x".into(), src.clone());
        let _ = layout_db::check_file(&db, f);
        let edited = src.replace("let n250 = 250 * 2 + 1\n", "let n250 = 250 * 2 + 1 // e\n");
        let t = Instant::now();
        for k in 0..100 {
            f.edit(
                &mut db,
                if k % 2 == 0 {
                    edited.clone()
                } else {
                    src.clone()
                },
            );
            let _ = layout_db::check_file(&db, f);
        }
        println!("edit: {:?} per re-check", t.elapsed() / 100);
        return;
    }
    if std::env::args().nth(2).as_deref() == Some("first-edit") {
        // Each re-check edits an item that was never edited before: the
        // case that revalidates the whole file once (the item leaves the
        // durable set).
        let mut db = layout_db::Database::default();
        let f = layout_db::SourceFile::open(&mut db, "x".into(), src.clone());
        let _ = layout_db::check_file(&db, f);
        let mut text = src.clone();
        let t = Instant::now();
        for k in 0..100 {
            text = text.replace(&format!("let n{k} = "), &format!("let n{k} =  "));
            f.edit(&mut db, text.clone());
            let _ = layout_db::check_file(&db, f);
        }
        println!("first edit: {:?} per re-check", t.elapsed() / 100);
        return;
    }
    if std::env::args().nth(2).is_some() {
        let t = Instant::now();
        let mut db = layout_db::Database::default();
        let f = layout_db::SourceFile::open(&mut db, "x".into(), src.clone());
        let r = layout_db::check_file(&db, f);
        println!("check only: {:?} ({} checks)", t.elapsed(), r.checks);
        let t = Instant::now();
        drop(db);
        println!("drop: {:?}", t.elapsed());
        return;
    }
    let t = Instant::now();
    let o = layout_syntax::outline(&src);
    println!("outline {} items: {:?}", o.len(), t.elapsed());
    let t = Instant::now();
    let (toks, _) = layout_syntax::lexer::lex(&src);
    println!("lex {} tokens: {:?}", toks.len(), t.elapsed());
    let t = Instant::now();
    for i in &o {
        let _ = layout_syntax::parse(&src[i.range.clone()]);
    }
    println!("parse items: {:?}", t.elapsed());
    let t = Instant::now();
    let mut db = layout_db::Database::default();
    let f = layout_db::SourceFile::open(&mut db, "x".into(), src.clone());
    let r = layout_db::check_file(&db, f);
    println!("check: {:?} ({} checks)", t.elapsed(), r.checks);
}
