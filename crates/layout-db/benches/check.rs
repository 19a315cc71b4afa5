//! The checker's speed on generated spec corpora (docs/performance.md):
//! a full check of 50,000 lines, and the re-check after a one-line edit in a
//! 5,000-line file (the language server's case).

use criterion::{Criterion, criterion_group, criterion_main};
use layout_db::{Database, SourceFile, check_file};

/// One unit of a realistic spec: Triton aliases and tensors, CuTe and XLA
/// values, integer constants and checks. Ten lines per unit.
fn unit(i: usize) -> String {
    let (spt, tpw) = [
        ([1, 4], [2, 16]),
        ([1, 8], [4, 8]),
        ([2, 2], [8, 4]),
        ([4, 1], [16, 2]),
    ][i % 4];
    format!(
        "#blocked{i} = #ttg.blocked<{{sizePerThread = [{}, {}], threadsPerWarp = [{}, {}], warpsPerCTA = [4, 1], order = [1, 0]}}>\n\
         layout t{i} = tensor<64x64xf16, #blocked{i}>\n\
         layout s{i} = tensor<64x64xf16, #ttg.swizzled_shared<{{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}}>>\n\
         let n{i} = {i} * 2 + 1\n\
         check n{i} == {}\n\
         check t{i}(register = 0, lane = 0) == (dim0 = 0, dim1 = 0)\n\
         layout c{i} = composition(cute (6,2):(8,2), cute (4,3):(3,1))\n\
         check c{i} == cute ((2,2),3):((24,2),8)\n\
         layout x{i} = xla f32[3,5]{{1,0:T(2,2)}}\n\
         check offset(x{i}, [2, 3]) == 17\n",
        spt[0],
        spt[1],
        tpw[0],
        tpw[1],
        i * 2 + 1
    )
}

fn corpus(lines: usize) -> String {
    let mut s = String::from("module attributes {\"ttg.num-warps\" = 4 : i32}\n");
    for i in 0..lines / 10 {
        s += &unit(i);
    }
    s
}

fn bench(c: &mut Criterion) {
    let big = corpus(50_000);
    let mut g = c.benchmark_group("check");
    g.sample_size(10);
    // The database is returned, so freeing it is not timed (criterion's
    // iter_with_large_drop); a language server keeps it, a CLI exits.
    g.bench_function("full check, 50,000 lines", |b| {
        b.iter_with_large_drop(|| {
            let mut db = Database::default();
            let file = SourceFile::open(&mut db, "corpus.lay".into(), big.clone());
            let report = check_file(&db, file);
            assert!(!report.has_errors());
            db
        })
    });
    g.finish();

    let small = corpus(5_000);
    let mut db = Database::default();
    let file = SourceFile::open(&mut db, "spec.lay".into(), small.clone());
    assert!(!check_file(&db, file).has_errors());
    // Alternate between two texts that differ in one line.
    let edited = small.replace(
        "let n250 = 250 * 2 + 1\n",
        "let n250 = 250 * 2 + 1 // edited\n",
    );
    assert_ne!(edited, small);
    let mut flip = false;
    c.bench_function("re-check after a one-line edit, 5,000 lines", |b| {
        b.iter(|| {
            flip = !flip;
            file.edit(&mut db, if flip { edited.clone() } else { small.clone() });
            check_file(&db, file).checks
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
