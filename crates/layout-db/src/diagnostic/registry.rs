//! The registry of diagnostic codes, in the manner of ruff's rules: each
//! code with its severity, a one-line title, and its explanation in
//! Markdown with the example that triggers it (a ```` ```lay ```` block).
//! docs/diagnostics.md is printed from here ([`documentation`]; a test keeps
//! the file equal to it), `layoutc explain` prints one entry, SARIF rules
//! take the titles, and a test checks that every example raises its code.

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

macro_rules! codes {
    ($($variant:ident = $code:literal, $title:literal, $doc:literal;)*) => {
        /// A stable diagnostic code.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code { $($variant,)* }

        impl Code {
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// `E0101`.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $code,)* }
            }

            /// A one-line title for documentation and SARIF rules.
            pub fn title(self) -> &'static str {
                match self { $(Code::$variant => $title,)* }
            }

            /// What the code means and how to fix it, in Markdown, with
            /// an example that triggers it.
            pub fn explanation(self) -> &'static str {
                match self { $(Code::$variant => $doc,)* }
            }
        }
    };
}

impl Code {
    /// `E` codes are errors, `W` codes warnings.
    pub fn severity(self) -> Severity {
        if self.as_str().starts_with('W') {
            Severity::Warning
        } else {
            Severity::Error
        }
    }

    /// The code named `E0101` (any case).
    pub fn from_name(name: &str) -> Option<Code> {
        Code::ALL
            .iter()
            .copied()
            .find(|c| c.as_str().eq_ignore_ascii_case(name.trim()))
    }

    /// The ```` ```lay ```` examples of the explanation.
    pub fn examples(self) -> Vec<&'static str> {
        let mut out = Vec::new();
        let mut rest = self.explanation();
        while let Some(start) = rest.find("```lay\n") {
            let body = &rest[start + "```lay\n".len()..];
            let end = body.find("```").unwrap_or(body.len());
            out.push(&body[..end]);
            rest = &body[end..];
        }
        out
    }
}

const PREAMBLE: &str = r##"# Diagnostics

Every problem layoutc reports has a stable code. A code keeps its meaning
forever; new problems get new codes. Each section below shows a file that
triggers the code (a test, `crates/layout-db/tests/diagnostics.rs`, checks
every example here, and that every code has one).

`layoutc check --format json|sarif|github` carries the code; SARIF rules link
to the sections of this page, and `layoutc explain CODE` prints one of them.

This page is printed from the registry of codes,
`crates/layout-db/src/diagnostic/registry.rs`: edit the registry, then run
`UPDATE_EXPECT=1 cargo test -p layout-db --test all diagnostics::`."##;

/// docs/diagnostics.md: the preamble, then one section per code.
pub fn documentation() -> String {
    let mut out = format!("{PREAMBLE}\n");
    for code in Code::ALL {
        out += &format!("\n## {}\n\n{}\n", code.as_str(), code.explanation());
    }
    out
}

codes! {
    Syntax = "E0001", "syntax error",
        r##"Syntax error: the parser could not read an item. The rest of the file is
still read and checked.

```lay
layout a = compose(identity_1d(4, "i", "o"), identity_1d(4, "o", "p")
```"##;
    NotUtf8 = "E0002", "file is not UTF-8",
        r##"The file is not UTF-8. The diagnostic points at the first byte that starts
no character; every such byte is read as U+001A (one byte, so positions stay
those of the file) and the rest of the file is checked as usual. `layoutc
fmt` leaves such a file alone. (Its example cannot be written in this UTF-8
page: a Latin-1 `café` in a comment, byte 0xE9, is one.)"##;
    TooDeep = "E0003", "nested too deeply",
        r##"An item nests more than 256 levels deep: brackets inside brackets, or a
chain of operators (`1 + 1 + ...`, `not not ...`) that folds into a tree as
deep as it is long. layoutc does not read that item (every pass over it would
recurse once per level, and a machine-made file could exhaust the stack); the
rest of the file is checked as usual. Name the parts with `let` instead. The
example is not printed here: it is 257 parentheses around a `1`."##;
    UndefinedName = "E0101", "undefined name",
        r##"Undefined name. When a declared name is close, the message suggests it.

```lay
layout blocked = identity_1d(4, "i", "o")
check invert(blokced) == blocked
```"##;
    DuplicateName = "E0102", "duplicate definition",
        r##"Duplicate definition: names are file-wide, so the second definition is an
error (the first one is used).

```lay
let n = 4
let n = 8
```"##;
    CyclicDefinition = "E0103", "cyclic definition",
        r##"Cyclic definition: a declaration uses itself, directly or through others.

```lay
layout a = compose(b, identity_1d(4, "o", "o"))
layout b = a
```"##;
    UndefinedAlias = "E0104", "undefined Triton alias",
        r##"Undefined Triton alias (`#name`).

```lay
layout x = tensor<64x64xf16, #blocekd>
```"##;
    UnknownFunction = "E0105", "unknown function",
        r##"Unknown function.

```lay
layout x = compse(identity_1d(4, "i", "o"), identity_1d(4, "o", "p"))
```"##;
    DependsOnError = "E0106", "uses a declaration that has errors",
        r##"A declaration uses another one that has errors, so it has no value either.
The first error is reported where it happens.

```lay
layout a = identity_1d(3, "i", "o")
layout b = invert(a)
```"##;
    UnknownKey = "E0107", "unknown key or argument name",
        r##"Unknown key or argument name: a Triton attribute key, a named argument, a
`target` or `solve` key.

```lay
#b = #ttg.blocked<{sizePerThread = [1, 4], threadPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
```"##;
    TypeMismatch = "E0201", "wrong kind of value",
        r##"Wrong kind of value for an operation.

```lay
layout a = invert(cute (4,8):(8,1))
```"##;
    ArgumentCount = "E0202", "missing or extra argument",
        r##"Missing or extra argument.

```lay
layout a = identity_1d(4, "i")
```"##;
    RankMismatch = "E0203", "encoding and tensor ranks differ",
        r##"The encoding's rank differs from the tensor's, or two accesses are to
different tensors.

```lay
#b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
layout x = tensor<64x64x2xf16, #b>
```"##;
    Arithmetic = "E0204", "integer overflow or division by zero",
        r##"Integer overflow or division by zero.

```lay
let n = 4 / (2 - 2)
```"##;
    UnknownElementType = "E0205", "unknown element type",
        r##"A tensor or memdesc type whose element type MLIR does not have, so its
width (and every count that depends on it: vectors, banks, bytes) is
unknown. The element types are `i1`, `i8` … `i64` (also `si`/`ui`), `f16`,
`bf16`, `tf32`, `f32`, `f64`, the 8-, 6- and 4-bit floats (`f8E4M3FN`,
`f8E5M2`, `f6E2M3FN`, `f4E2M1FN`, ...), `index` and pointers (`!tt.ptr<f16>`).

```lay
layout t = tensor<64x64xf13, #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
```"##;
    NotPowerOfTwo = "E0301", "not a power of two",
        r##"Not a power of two where the GF(2) algebra needs one. The note points to
CuTe notation, whose mixed-radix algebra has no such limit. In an editor,
the quick fix "Pad 6 to 8, the next power of two" rewrites the number the
message names wherever it is written in the diagnostic's span (a size
argument, a tensor dim).

```lay
layout a = identity_1d(6, "i", "o")
```"##;
    BasisOutOfRange = "E0302", "basis outside the out-dims",
        r##"A basis vector lies outside its out-dim, has the wrong number of
coordinates, or a coordinate is outside its dim.

```lay
layout a = linear { in: [[4]] } -> [out: 4]
```"##;
    NotSurjective = "E0303", "layout is not surjective",
        r##"A distributed layout does not cover the shape it is written for (not
surjective). (A `#ttg.linear` without a `shape`, as TTGIR prints it, is as
large as its bases reach and wraps over a larger tensor, as in Triton.)

```lay
layout a = tensor<64x64xf16, #ttg.linear<{register = [[0, 1]], lane = [[0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], warp = [], block = [], shape = [64, 64]}>>
```"##;
    NotInjective = "E0304", "layout is not injective",
        r##"An inverse was asked of a layout that is not injective.

```lay
layout a = invert(zeros_1d(4, "i", "o"))
```"##;
    TargetMismatch = "E0305", "layout disagrees with the target",
        r##"The layout disagrees with the target: threads per warp, warps per CTA or
CTAs per cluster differ from the module attributes or `target`. When a
`#ttg.blocked`'s `threadsPerWarp` does not multiply to the warp size, the
editor's quick fix (on the attribute or on a `#alias` of it) scales it: too
few threads, and the slowest-varying dim (the last of `order`) takes the
missing factor, as Triton's own blocked builder gives it the remaining
lanes; too many, and the dims give up the excess from the slowest to the
fastest, so the dim loads coalesce along keeps its threads longest
(`[2, 16]` on a 64-lane gfx942 becomes `[4, 16]`).

```lay
module attributes {"ttg.num-warps" = 8 : i32}
#b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
layout x = tensor<64x64xf16, #b>
```"##;
    OrderNotPermutation = "E0306", "order is not a permutation",
        r##"`order` (or `CTAOrder`) is not a permutation of the dims.

```lay
#b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 1]}>
```"##;
    CtaDivisibility = "E0307", "CTA placement does not divide",
        r##"The CTA placement does not divide: `CTAsPerCGA` is not a multiple of
`CTASplitNum`, or the `CGALayout` bases are malformed.

```lay
#b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [4, 1], CTAOrder = [1, 0]}>
```"##;
    InvalidEncoding = "E0308", "invalid Triton encoding parameters",
        r##"Triton would reject the encoding's parameters: an instruction shape that
does not exist for the MMA version, a `kWidth` or `opIdx` the parent does not
allow, a swizzle width or element width out of range, and the like.

```lay
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 16]}>
```"##;
    DimMismatch = "E0309", "in/out dims do not match",
        r##"The in- or out-dims of two layouts do not fit the operation (a dim is
missing, named twice, or in another order), or one layout does not divide
another.

```lay
layout a = compose(identity_1d(4, "i", "o"), identity_1d(4, "x", "y"))
```"##;
    TooLarge = "E0310", "layout too large",
        r##"The layout would need more than 64 input or output bits.

```lay
layout a = identity_1d(4294967296, "i", "o") * identity_1d(4294967296, "j", "p")
```"##;
    InvalidXla = "E0311", "invalid XLA shape or tiling",
        r##"Invalid XLA shape or tiling text, or an index outside the array.

```lay
layout x = xla f32[3,5]{1,0:T(2,)}
```"##;
    CutePrecondition = "E0312", "CuTe precondition failed",
        r##"A CuTe precondition failed: the C++ headers would `static_assert` or return
a wrong function (composition's stride and shape divisibility, complement's
modes that start inside one another, left_inverse's divisibility,
tile_to_shape's divisibility, a coordinate outside the shape, malformed
notation). The message names the condition that fails.

```lay
layout a = composition(cute (4,3):(3,1), cute 5:2)
```"##;
    NotConvertible = "E0313", "no exact conversion between layout families",
        r##"No exact conversion between layout families. A linear layout has
power-of-two sizes and maps each bit of the input to a fixed XOR of output
bits, so a CuTe layout with a mode of size 6, an XLA shape with padding or
an affine offset has no linear form (keep it in its own notation: the CuTe
and XLA algebras handle any size); and a CuTe layout maps each index bit to
one stride, so a linear basis that sets two bits has no CuTe form.

```lay
layout a = to_cute(linear { i: [[3]] } -> [o: 4])
```"##;
    InvalidTarget = "E0314", "invalid target",
        r##"Invalid target: an unknown preset or a value that is not a power of two.

```lay
target = sm9O
```"##;
    InvalidSolve = "E0315", "invalid solve request",
        r##"Invalid `solve` request: a missing `kind`, an unknown family, no accesses,
or accesses with shared encodings.

```lay
#b = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
solve smem {
    kind = swizle
    write = tensor<128x64xf16, #b>
}
```"##;
    UnsupportedEncoding = "E0316", "Triton encoding layoutc does not model",
        r##"A tensor or buffer whose encoding Triton really prints but layoutc does not
model, such as Blackwell's tensor-memory encodings: its layout cannot be
computed. Naming such an encoding is only warning W0303, so a dump that
declares one still checks.

```lay
layout acc = tensor<128x128xf32, #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>>
```"##;
    InvalidMinorToMajor = "E0317", "XLA minor_to_major is not a permutation",
        r##"An XLA layout whose `minor_to_major` is not a permutation of the shape's
dimensions (a dimension missing, repeated or out of range).

```lay
layout x = xla f32[3,5]{1,1}
```"##;
    CheckFailed = "E0401", "check failed",
        r##"A `check` is false. For a comparison, the message shows both sides.

```lay
check identity_1d(8, "i", "o")(5) == 4
```"##;
    CheckNotBool = "E0402", "check is not a boolean",
        r##"A `check` whose expression is not a boolean.

```lay
check 3 + 4
```"##;
    Internal = "E0900", "internal error",
        r##"An internal error: layoutc caught a bug of its own while evaluating a
declaration. The declaration has no value; the rest of the file is still
checked. There is no example — please report the file that triggers it."##;
    AppliedPrint = "W0201", "a pasted CuTe print is applied to what follows it",
        r##"A CuTe print followed directly by parentheses: `cute (4,8):(1,4)(2)` applies
the layout to `(2)` (it is 2), which is rarely what a paste means. Put the
layout in parentheses to say that you mean the application, `(cute (4,8):(1,4))(2)`,
or remove what follows the print.

```lay
let x = cute (4,8):(1,4)(2)
```"##;
    CppComposition = "W0202", "C++'s composition result is not the composition",
        r##"`composition(a, b, "cpp")` asked for C++'s answer, and C++ returns a layout
that is not `a o b` here: its divisibility checks are static only, so it
evaluates `a` past its size along its last mode. The value is C++'s, as ported
code that compiles in CUTLASS gets it; the message says where it differs.

```lay
layout c = composition(cute (6,2):(1,10), cute 4:4, "cpp")
```"##;
    DefaultTarget = "W0301", "the answer depends on a target the file does not give",
        r##"A value that depends on the machine (a conversion's instructions, the bank
model of a shared-memory access) in a file that names no machine: layoutc
assumes sm90 (32 banks of 4 bytes, ldmatrix and stmatrix) and says so. Name
the machine with `target = sm80` (or sm90, sm100, gfx942, gfx950, gfx1250) or paste the
module line with its `ttg.target`.

```lay
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#rows = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
convert c = tensor<64x64xf16, #mma> -> tensor<64x64xf16, #rows>
```"##;
    UnknownMachine = "W0302", "no model of this target",
        r##"A module's `ttg.target` names a machine layoutc has no model of; the
defaults (32 banks of 4 bytes) apply.

```lay
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:70", "ttg.threads-per-warp" = 32 : i32} {
```"##;
    UnmodelledEncoding = "W0303", "an encoding layoutc does not model",
        r##"An encoding Triton prints that layoutc does not model (Blackwell's tensor
memory): the declaration is kept, and only a tensor that uses it is an error
(E0316). In a dump, an access to a `#ttg.partitioned_shared` tensor whose
partitions hold less than a row of banks each, or whose pieces are padded,
is this warning too: layoutc does not count it.

```lay
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
```"##;
    SharedConversion = "W0401", "convert_layout through shared memory",
        r##"In a Triton dump checked as it is (`layoutc check kernel.ttgir`, also `*.mlir`): a
`ttg.convert_layout` that goes through shared memory, with its scratch bytes, rounds,
the store and the load by exact opcode (`4 x st.shared.v4.b32 (16 wavefronts) / 4 x
ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 (16 wavefronts)`, as the kernel summary
lists them) and conflicts, at the dump's line and (from its `loc`) at the kernel's
Python line. In a `.lay` file the same numbers are values (`scratch_bytes(%16)`), not
warnings. (Its example is a dump, `tests/corpus/ttgir/transpose_sm80.ttgir`; a `.lay`
file cannot trigger it.)"##;
    BankConflicts = "W0402", "shared-memory access with bank conflicts",
        r##"In a Triton dump checked as it is: a `ttg.local_alloc`, `local_store` or `local_load`
with bank conflicts, with the instruction Triton uses, the wavefronts one warp takes and
the extra wavefronts per wavefront. (Its example is a dump:
`tests/corpus/ttgir/matmul_int8_sm90.ttgir`.)"##;
    SharedMemoryLimit = "W0403", "the kernel allocates more shared memory than the target has",
        r##"In a Triton dump: the shared memory a `tt.func` allocates — its buffers and scratch as
Triton's allocator places them, what the compiled kernel's `metadata.shared` reports — is
more than one CTA may have on the module's `ttg.target` (64 KB of LDS on gfx942, 227 KB on
sm90, 163 KB on sm80, 99 KB on sm86/sm89). The kernel would not launch; fewer pipeline
stages or smaller tiles shrink it. `layoutc show` lists every buffer with its offset.

```lay
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "hip:gfx942", "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @too_big() {
    %0 = ttg.local_alloc : () -> !ttg.memdesc<256x128xf32, #shared, #smem, mutable>
    tt.return
  }
}
```"##;
    AllocationDiffers = "W0404", "layoutc's allocation differs from Triton's in the dump",
        r##"In a dump printed after Triton's allocator ran (the module has `ttg.shared`, the ops
`allocation.offset`): layoutc's own placement of the kernel's shared memory gives a
different total or a different offset. The message names both; Triton's numbers are what
the compiled kernel uses. A dump edited by hand after allocation can say so too.

```lay
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, ttg.shared = 4096 : i32, ttg.target = "cuda:80"} {
  tt.func public @edited() {
    %0 = ttg.local_alloc {allocation.offset = 0 : i32} : () -> !ttg.memdesc<32x16xf32, #shared, #smem, mutable>
    tt.return
  }
}
```"##;
    SeveralDumps = "W0405", "a file of several dumps: one is analysed",
        r##"The file holds more than one dump: an `MLIR_ENABLE_DUMP=1` log (one
`// -----// IR Dump Before PASS` section per pass) or several dumps pasted one after the
other. Each module has its own `#blocked` while layoutc's names are file-wide, so layoutc
analyses one: the last TritonGPU module (the one the lowering to LLVM starts from). The rest
of the file is left out; line numbers still point into the file.

```lay
#a = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func public @first() {
    tt.return
  }
}
#a = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func public @second() {
    tt.return
  }
}
```"##;
    CutDump = "W0406", "the dump ends inside a function",
        r##"The text ends before a `tt.func`'s body is closed: the dump was cut (a log truncated,
a copy that stopped short). What layoutc reports covers the part it saw; the kernel's shared
memory may be more than it says.

```lay
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func public @cut() {
    tt.return
```"##;
    NothingHere = "W0407", "the file holds nothing to check",
        r##"The file is empty, or holds only comments: no declaration, no dump. A CI lint that
checks it passes without having checked anything.

```lay
// nothing but a comment
```"##;
    TooManyDiagnostics = "W0408", "more diagnostics than are shown",
        r##"A file with more than 100 diagnostics reports the first 100 and this one, which
counts the rest by code: past that many, the file is usually not what it seems (a binary,
a log in another format) or one early mistake repeats. The command line and the language
server cap alike.

```lay
let a = (
let b = (
let c = (
let d = (
let e = (
let f = (
let g = (
let h = (
let i = (
let j = (
let k = (
let l = (
let m = (
let n = (
let o = (
let p = (
let q = (
let r = (
let s = (
let t = (
let u = (
let v = (
let w = (
let x = (
let y = (
let z = (
let a1 = (
let b1 = (
let c1 = (
let d1 = (
let e1 = (
let f1 = (
let g1 = (
let h1 = (
let i1 = (
let j1 = (
let k1 = (
let l1 = (
let m1 = (
let n1 = (
let o1 = (
let p1 = (
let q1 = (
let r1 = (
let s1 = (
let t1 = (
let u1 = (
let v1 = (
let w1 = (
let x1 = (
let y1 = (
let z1 = (
let a2 = (
let b2 = (
let c2 = (
let d2 = (
let e2 = (
let f2 = (
let g2 = (
let h2 = (
let i2 = (
let j2 = (
let k2 = (
let l2 = (
let m2 = (
let n2 = (
let o2 = (
let p2 = (
let q2 = (
let r2 = (
let s2 = (
let t2 = (
let u2 = (
let v2 = (
let w2 = (
let x2 = (
let y2 = (
let z2 = (
let a3 = (
let b3 = (
let c3 = (
let d3 = (
let e3 = (
let f3 = (
let g3 = (
let h3 = (
let i3 = (
let j3 = (
let k3 = (
let l3 = (
let m3 = (
let n3 = (
let o3 = (
let p3 = (
let q3 = (
let r3 = (
let s3 = (
let t3 = (
let u3 = (
let v3 = (
let w3 = (
```"##;
    StaleAnswer = "W0501", "the recorded answer is not the solver's",
        r##"A `solve` block's `answer = ...` (as `layoutc solve --write` recorded it) is not the
answer the solver finds now: the accesses, the family or the machine changed since it
was written. The message gives the new answer; `layoutc solve --write` records it.

```lay
target = sm90
#b = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
solve smem {
    kind = swizzle
    write = tensor<64x64xf16, #b>
    family = triton
    answer = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
}
```"##;
    NoAnswer = "W0502", "no layout meets the solve request",
        r##"No layout of the family meets the request's limits (a `budget` smaller than the tensor,
a `min_vector` the accesses cannot share): the block has no answer, and the message
says why. Names that use it are errors.

```lay
target = sm90
#b = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
solve smem {
    kind = swizzle
    write = tensor<64x64xf16, #b>
    budget = 1024
}
```"##;
}
