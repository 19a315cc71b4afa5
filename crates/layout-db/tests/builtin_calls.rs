//! Calls are bound and type-checked by the builtins table before a body
//! runs: each argument against its parameter's type, arity, names.

use expect_test::{Expect, expect};
use layout_db::{Database, SourceFile, check_file};

fn check(src: &str, expect: Expect) {
    let mut db = Database::default();
    let file = SourceFile::open(&mut db, "calls.lay".into(), src.into());
    let report = check_file(&db, file);
    let actual: Vec<String> = report
        .diagnostics
        .iter()
        .map(|d| {
            format!(
                "{} `{}`: {}",
                d.code.as_str(),
                &src[d.span.start..d.span.end],
                d.message
            )
        })
        .collect();
    expect.assert_eq(&actual.join("\n"));
}

#[test]
fn an_argument_of_the_wrong_type_is_named_at_its_span() {
    check(
        r#"layout a = compose(cute (4,8):(8,1), identity_1d(4, "i", "o"))
let k = kind(3)
layout s = slice(4, 0)
let n = idx2crd("x", (4, 8))
"#,
        expect![[r#"
            E0201 `cute (4,8):(8,1)`: expected a linear layout, but this is a CuTe layout; convert it with to_linear(...)
            E0201 `3`: expected a conversion (convert(src, dst)), but this is an integer
            E0201 `4`: expected a Triton encoding or a tensor type, but this is an integer
            E0201 `"x"`: expected an integer, but this is a string"#]],
    );
}

#[test]
fn arity_and_names_come_from_the_table() {
    check(
        r#"layout a = invert()
layout b = invert(identity_1d(4, "i", "o"), 2)
let c = in_size(identity_1d(4, "i", "o"), dimm = "i")
let d = size(x = 3, x = 4)
"#,
        expect![[r#"
            E0202 `invert()`: invert needs `a`: invert(a)
            E0202 `2`: invert takes at most 1 argument
            E0107 `dimm`: in_size has no argument `dimm`
            E0202 `4`: `x` is given twice"#]],
    );
}

#[test]
fn an_encoding_call_takes_the_keys_of_the_encodings_table() {
    check(
        r#"let b = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0], vecc = 2)
let c = swizzled_shared(1, 1, 1)
"#,
        expect![[r#"
            E0107 `vecc`: #ttg.blocked has no key `vecc`
            E0202 `1`: swizzled_shared(...) takes Triton's keys by name, e.g. swizzled_shared(order = [1, 0], ...)"#]],
    );
}
