use layout_db::{Database, SourceFile, check_file};

fn run(src: &str) -> String {
    let db = Database::default();
    let f = SourceFile::new(&db, "t.lay".into(), src.into());
    let r = check_file(&db, f);
    let mut out = String::new();
    for v in &r.values {
        out += &format!(
            "{} = {}\n",
            v.name,
            v.value.as_ref().map_or("<none>".into(), |v| v.to_string())
        );
    }
    for d in &r.diagnostics {
        out += &format!(
            "{} {} {:?}: {} {:?} {:?}\n",
            d.code.as_str(),
            d.span,
            &src[d.span.start..d.span.end],
            d.message,
            d.notes,
            d.labels
        );
    }
    out
}

#[test]
fn smoke() {
    let src = r#"
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
layout blk = tensor<64x64xf32, #blocked>
layout acc = tensor<32x16xf32, #mma>
layout sm = tensor<64x64xf16, #shared>
let n = 3 * 4 + 1
check blk(register = 1, lane = 3) == (dim0 = 0, dim1 = 13)
check n == 12
layout t = cute ((4,2),4):((8,4),1)
check t(5) == 9
layout x = xla f32[3,5]{1,0:T(2,2)}
check offset(x, [2, 3]) == 17
layout c = composition(cute (6,2):(8,2), cute (4,3):(3,1))
layout L = linear { in1: [[1, 0], [0, 1]] } -> [out1: 8, out2: 4]
layout bad = compose(blk, undefinedthing)
layout cyc1 = cyc2
layout cyc2 = cyc1
check bank_conflicts(tensor<64x64xf16, #blocked>, tensor<64x64xf16, #shared>) == 0
"#;
    println!("{}", run(src));
}
