//! Generated `.lay` files that benchmarks of the checker, the editor
//! queries and the language server share.

/// The editor benchmarks' file: a module line and `blocks` blocks of ten
/// lines (a blocked alias, a tensor layout, two integers, a CuTe layout, a
/// composition and three checks, all of which hold).
pub fn editor_file(blocks: usize) -> String {
    let mut s = String::from(
        "module attributes {\"ttg.num-warps\" = 4 : i32, \"ttg.threads-per-warp\" = 32 : i32}\n",
    );
    for i in 0..blocks {
        s += &format!(
            "#b{i} = #ttg.blocked<{{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}}>\n\
             layout t{i} = tensor<64x64xf16, #b{i}>\n\
             let n{i} = {i}\n\
             let m{i} = n{i} * 2\n\
             check m{i} == {}\n\
             layout c{i} = cute (4,8):(8,1)\n\
             check size(t{i}) == 4096\n\
             layout l{i} = compose(identity_1d(8, \"x\", \"y\"), identity_1d(8, \"y\", \"z\"))\n\
             check t{i}(register = 1) == (dim0 = 0, dim1 = 1)\n\
             // block {i}\n",
            2 * i
        );
    }
    s
}
