//! CuTe's MMA and copy atoms: the thread-value layouts of one instruction,
//! as CUTLASS 4.x's `MMA_Traits` and `Copy_Traits` define them
//! (`cute/atom/mma_traits_sm*.hpp`, `copy_traits_sm*.hpp`). The facts are
//! kept here as rules over the instruction's name (shape, element types,
//! operand sources), checked against the C++ headers by
//! `tests/vectors/cute/atoms.tsv`.

use super::{Int, Layout, Tuple};
use crate::error::{LayoutError, Result};

/// Bits of a CuTe value type (`half_t`, `float_e4m3_t`, `uint128_t`, ...).
pub fn value_type_bits(name: &str) -> Option<u32> {
    Some(match name {
        "uint1_t" | "uint1b_t" | "bin1_t" => 1,
        "int4_t" | "uint4_t" | "int4b_t" | "uint4b_t" | "float_e2m1_t" => 4,
        "float_e2m3_t" | "float_e3m2_t" => 6,
        "int8_t" | "uint8_t" | "float_e4m3_t" | "float_e5m2_t" | "float_ue8m0_t"
        | "float_ue4m3_t" => 8,
        "half_t" | "bfloat16_t" | "int16_t" | "uint16_t" => 16,
        "float" | "tfloat32_t" | "int32_t" | "uint32_t" => 32,
        "double" | "int64_t" | "uint64_t" => 64,
        "uint128_t" => 128,
        "uint256_t" => 256,
        _ => return None,
    })
}

fn layout(text: &str) -> Layout {
    Layout::parse(text).expect("a well-formed layout in the atom tables")
}

/// `Layout<Shape<_1, Int<bits>>>`: one thread moving `bits` contiguous bits.
fn one_thread(bits: i64) -> Layout {
    Layout::column_major(Tuple(vec![Int(1), Int(bits)])).expect("a positive width")
}

// ----- copy atoms ---------------------------------------------------------

/// What one copy instruction is, as far as shared memory is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CopyInstruction {
    /// `ldmatrix.sync.aligned.m8n8.x{matrices}[.trans].shared.b16` (and
    /// SM100's 8-bit transposing `ldmatrix ... .m16n16.b8`): shared -> registers.
    Ldmatrix { matrices: u32, transpose: bool },
    /// `stmatrix`: registers -> shared.
    Stmatrix { matrices: u32, transpose: bool },
    /// `cp.async.{ca,cg}.shared.global` of `bits` per thread: global -> shared.
    CpAsync { bits: u32, cache_global: bool },
    /// `UniversalCopy<S,D>`: a plain load or store of `bits` per thread.
    Universal { bits: u32 },
    /// `AutoVectorizingCopyWithAssumedAlignment<max_bits>` (`DefaultCopy`
    /// assumes 8): CuTe vectorises what the layouts allow.
    AutoVectorizing { max_bits: u32 },
}

/// `Copy_Atom<Op, ValueType>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CopyAtom {
    /// The operation as written (`SM75_U32x4_LDSM_N`, `UniversalCopy<uint128_t>`).
    pub op: String,
    pub value_type: String,
    pub value_bits: u32,
    pub instruction: CopyInstruction,
    pub thr_id: Layout,
    /// `(thread, value) -> bit` of the traits.
    pub bits_src: Layout,
    pub bits_dst: Layout,
    pub bits_ref: Layout,
    /// The same recast to the value type (`ValLayoutSrc/Dst/Ref`).
    pub val_src: Layout,
    pub val_dst: Layout,
    pub val_ref: Layout,
}

/// ldmatrix's source (and stmatrix's destination): 8 rows of 128 bits per
/// matrix, one row address per thread.
fn matrix_rows(matrices: u32) -> Layout {
    match matrices {
        1 => layout("((8,4),128):((128,0),1)"),
        2 => layout("((16,2),128):((128,0),1)"),
        _ => layout("(32,128):(128,1)"),
    }
}

/// ldmatrix's destination (stmatrix's source) in registers: 32 bits per
/// thread and matrix.
fn matrix_registers(matrices: u32) -> Layout {
    match matrices {
        1 => layout("(32,32):(32,1)"),
        2 => layout("(32,(32,2)):(32,(1,1024))"),
        _ => layout("(32,(32,4)):(32,(1,1024))"),
    }
}

/// The transposed 16-bit register layouts (`U16x{2,4,8}`).
fn matrix_registers_16_trans(matrices: u32) -> Layout {
    match matrices {
        1 => layout("((4,8),(16,2)):((256,16),(1,128))"),
        2 => layout("((4,8),(16,2,2)):((256,16),(1,128,1024))"),
        _ => layout("((4,8),(16,2,4)):((256,16),(1,128,1024))"),
    }
}

/// SM100's transposed 8-bit forms: `U8x{4,8,16}`.
fn matrix_rows_8_trans(matrices: u32, load: bool) -> Layout {
    match (matrices, load) {
        (2, true) => layout("((2,2,4,2),128):((128,1024,256,0),1)"),
        (4, true) => layout("((2,2,4,2),128):((128,1024,256,2048),1)"),
        (m, _) => matrix_rows(m),
    }
}

fn matrix_registers_8_trans(matrices: u32) -> Layout {
    match matrices {
        1 => layout("((4,8),(8,2,2)):((256,8),(1,128,64))"),
        2 => layout("((4,8),(8,2,2,2)):((256,8),(1,128,64,1024))"),
        _ => layout("((4,8),(8,2,2,4)):((256,8),(1,128,64,1024))"),
    }
}

/// `uint32_t` -> 32 in a template argument list.
fn template_width(arg: &str) -> Option<u32> {
    value_type_bits(arg.trim())
}

/// `Name<A,B>` -> (`Name`, [`A`, `B`]).
fn split_template(text: &str) -> (&str, Vec<&str>) {
    match text.find('<') {
        Some(open) if text.ends_with('>') => {
            let inner = &text[open + 1..text.len() - 1];
            let args = if inner.trim().is_empty() {
                vec![]
            } else {
                inner.split(',').map(str::trim).collect()
            };
            (text[..open].trim(), args)
        }
        _ => (text.trim(), vec![]),
    }
}

impl CopyAtom {
    /// `Copy_Atom<op, value_type>`, with CuTe's checks that the value type
    /// divides the instruction's registers.
    pub fn new(op: &str, value_type: &str) -> Result<CopyAtom> {
        let op = op.replace(' ', "");
        let value_bits = value_type_bits(value_type).ok_or_else(|| {
            LayoutError::invalid(
                "copy_atom",
                format!("unknown value type `{value_type}` (half_t, bfloat16_t, float, tfloat32_t, int8_t, uint8_t, float_e4m3_t, double, ...)"),
            )
        })?;
        let (instruction, thr_id, src, dst, reference) = copy_traits(&op)?;
        let recast = |l: &Layout| {
            l.recast(1, value_bits).map_err(|e| {
                LayoutError::invalid(
                    "copy_atom",
                    format!("{op} cannot move {value_type} ({value_bits} bits): {e}"),
                )
            })
        };
        let (val_src, val_dst, val_ref) = (recast(&src)?, recast(&dst)?, recast(&reference)?);
        for (what, l) in [("Src", &val_src), ("Dst", &val_dst), ("Ref", &val_ref)] {
            if l.mode(0).size() != thr_id.size() {
                return Err(LayoutError::invalid(
                    "copy_atom",
                    format!(
                        "{op} is not valid for {what} of {value_type} (CuTe: \"CopyOperation is \
                         not valid for {what} of ValType\")"
                    ),
                ));
            }
        }
        Ok(CopyAtom {
            op,
            value_type: value_type.to_string(),
            value_bits,
            instruction,
            thr_id,
            bits_src: src,
            bits_dst: dst,
            bits_ref: reference,
            val_src,
            val_dst,
            val_ref,
        })
    }

    /// Values one thread moves per instruction.
    pub fn values_per_thread(&self) -> i64 {
        self.val_src.mode(1).size()
    }
}

type CopyTraits = (CopyInstruction, Layout, Layout, Layout, Layout);

fn copy_traits(op: &str) -> Result<CopyTraits> {
    let unknown = || {
        LayoutError::invalid(
            "copy_atom",
            format!(
                "unknown copy operation `{op}` (known: SM75_U32x{{1,2,4}}_LDSM_N, \
                 SM75_U16x{{2,4,8}}_LDSM_T, SM90_U32x{{1,2,4}}_STSM_N, SM90_U16x{{2,4,8}}_STSM_T, \
                 SM100_U8x{{8,16}}_LDSM_T, SM100_U8x{{4,8,16}}_STSM_T, \
                 SM80_CP_ASYNC_CACHEALWAYS<uint32_t|uint64_t|uint128_t>, \
                 SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, UniversalCopy<T>, DefaultCopy, \
                 AutoVectorizingCopy)"
            ),
        )
    };
    let warp = layout("32:1");
    let (name, args) = split_template(op);
    // ldmatrix / stmatrix: SM75_U32x4_LDSM_N, SM90_U16x8_STSM_T, SM100_U8x16_LDSM_T.
    if let Some(rest) = name
        .strip_prefix("SM75_")
        .or_else(|| name.strip_prefix("SM90_"))
        .or_else(|| name.strip_prefix("SM100_"))
        && args.is_empty()
    {
        let arch = &name[..name.len() - rest.len()];
        let (unit, tail) = rest.split_once('x').ok_or_else(unknown)?;
        let (count, kind) = tail.split_once('_').ok_or_else(unknown)?;
        let count: u32 = count.parse().map_err(|_| unknown())?;
        let (load, transpose) = match kind {
            "LDSM_N" => (true, false),
            "LDSM_T" => (true, true),
            "STSM_N" => (false, false),
            "STSM_T" => (false, true),
            _ => return Err(unknown()),
        };
        let arch_ok = match (arch, load) {
            ("SM75_", true) => unit != "U8",
            ("SM90_", false) => unit != "U8",
            ("SM100_", _) => unit == "U8" && transpose,
            _ => false,
        };
        // U32xN: N matrices of 32-bit registers; U16xN: N 16-bit halves,
        // N/2 matrices; U8xN: N bytes, N/4 matrices.
        let matrices = match unit {
            "U32" if !transpose => count,
            "U16" if transpose => count / 2,
            "U8" if transpose => count / 4,
            _ => 0,
        };
        if !arch_ok || ![1, 2, 4].contains(&matrices) {
            return Err(unknown());
        }
        let (rows, registers) = match unit {
            "U32" => (matrix_rows(matrices), matrix_registers(matrices)),
            "U16" => (matrix_rows(matrices), matrix_registers_16_trans(matrices)),
            _ => (
                matrix_rows_8_trans(matrices, load),
                matrix_registers_8_trans(matrices),
            ),
        };
        return Ok(if load {
            (
                CopyInstruction::Ldmatrix {
                    matrices,
                    transpose,
                },
                warp,
                rows,
                registers.clone(),
                registers,
            )
        } else {
            (
                CopyInstruction::Stmatrix {
                    matrices,
                    transpose,
                },
                warp,
                registers.clone(),
                rows,
                registers,
            )
        });
    }
    let widths = |args: &[&str]| -> Result<(u32, u32)> {
        let src = args
            .first()
            .and_then(|a| template_width(a))
            .ok_or_else(unknown)?;
        let dst = match args.get(1) {
            Some(a) => template_width(a).ok_or_else(unknown)?,
            None => src,
        };
        if args.len() > 2 {
            return Err(unknown());
        }
        Ok((src, dst))
    };
    let single = layout("1:0");
    match name {
        "SM80_CP_ASYNC_CACHEALWAYS"
        | "SM80_CP_ASYNC_CACHEALWAYS_ZFILL"
        | "SM80_CP_ASYNC_CACHEGLOBAL"
        | "SM80_CP_ASYNC_CACHEGLOBAL_ZFILL" => {
            let (s, d) = widths(&args)?;
            let cache_global = name.contains("GLOBAL");
            // cp.async moves 4, 8 or 16 bytes; .cg only 16.
            if s != d
                || !(if cache_global {
                    s == 128
                } else {
                    [32, 64, 128].contains(&s)
                })
            {
                return Err(LayoutError::invalid(
                    "copy_atom",
                    format!(
                        "{op}: cp.async{} copies {} bytes per thread",
                        if cache_global { ".cg" } else { ".ca" },
                        if cache_global { "16" } else { "4, 8 or 16" }
                    ),
                ));
            }
            Ok((
                CopyInstruction::CpAsync {
                    bits: s,
                    cache_global,
                },
                single,
                one_thread(s as i64),
                one_thread(d as i64),
                one_thread(s as i64),
            ))
        }
        "UniversalCopy" => {
            let (s, d) = widths(&args)?;
            Ok((
                CopyInstruction::Universal { bits: s },
                single,
                one_thread(s as i64),
                one_thread(d as i64),
                one_thread(s as i64),
            ))
        }
        "DefaultCopy" | "AutoVectorizingCopy" | "AutoVectorizingCopyWithAssumedAlignment" => {
            let max_bits = match (name, args.as_slice()) {
                ("DefaultCopy", []) => 8,
                ("AutoVectorizingCopy", []) => 128,
                ("AutoVectorizingCopyWithAssumedAlignment", [n]) => {
                    n.parse().map_err(|_| unknown())?
                }
                _ => return Err(unknown()),
            };
            let unit = layout("(1,1):(0,0)");
            Ok((
                CopyInstruction::AutoVectorizing { max_bits },
                single,
                unit.clone(),
                unit.clone(),
                unit,
            ))
        }
        _ => Err(unknown()),
    }
}

// ----- MMA atoms ----------------------------------------------------------

/// Where an MMA reads an operand from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OperandSource {
    Registers,
    /// A shared-memory descriptor (GMMA `SS`, UMMA `SS`).
    SharedMemory,
    /// Tensor memory (UMMA `TS`'s A).
    TensorMemory,
}

/// `MMA_Atom<Op>`: one MMA instruction's shape and thread-value layouts.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MmaAtom {
    /// The operation as written (`SM80_16x8x16_F32F16F16F32_TN`,
    /// `SM90_64x128x16_F32F16F16_SS<K,K>`).
    pub name: String,
    pub shape_mnk: [i64; 3],
    /// `ThrID`: logical thread -> thread index.
    pub thr_id: Layout,
    /// `(thread, value) -> (m, k)` of A, `(n, k)` of B, `(m, n)` of C,
    /// column-major in the atom's tile.
    pub a: Layout,
    pub b: Layout,
    pub c: Layout,
    /// Element bits of A, B and C.
    pub bits: [u32; 3],
    pub a_source: OperandSource,
    pub b_source: OperandSource,
}

/// Bits of the element tokens in MMA names (`F16`, `BF16`, `E4M3`, `S8`, ...).
fn token_bits(token: &str) -> Option<u32> {
    Some(match token {
        "U1" => 1,
        "S4" | "U4" => 4,
        "S8" | "U8" | "E4M3" | "E5M2" => 8,
        "F16" | "BF16" => 16,
        "F32" | "TF32" | "S32" => 32,
        "F64" => 64,
        "C64" | "GC64" => 128,
        _ => return None,
    })
}

/// `F32BF16BF16F32` -> [`F32`, `BF16`, `BF16`, `F32`].
fn split_types(text: &str) -> Option<Vec<&str>> {
    const TOKENS: [&str; 13] = [
        "GC64", "E4M3", "E5M2", "BF16", "TF32", "C64", "F16", "F32", "F64", "S32", "S8", "U8", "S4",
    ];
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let t = TOKENS
            .iter()
            .chain(["U4", "U1"].iter())
            .find(|t| rest.starts_with(**t))?;
        out.push(&rest[..t.len()]);
        rest = &rest[t.len()..];
    }
    Some(out)
}

/// `16x8x16` -> [16, 8, 16].
fn parse_mnk(text: &str) -> Option<[i64; 3]> {
    let v: Vec<i64> = text
        .split('x')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    (v.len() == 3).then(|| [v[0], v[1], v[2]])
}

const SM80_C16: &str = "((4,8),(2,2)):((32,1),(16,8))";
const SM80_C8: &str = "((4,8),2):((16,1),8)";

/// mma.sync's A and B layouts (SM75/SM80/SM89) by shape and A's width.
fn sync_ab(mnk: [i64; 3], a_bits: u32) -> Option<(&'static str, &'static str)> {
    Some(match (mnk, a_bits) {
        ([16, 8, 4], 32) => ("((4,8),2):((16,1),8)", "((4,8),1):((8,1),0)"),
        ([16, 8, 8], 16) => (SM80_C16, "((4,8),2):((16,1),8)"),
        ([16, 8, 8], 32) => ("((4,8),(2,2)):((16,1),(8,64))", "((4,8),2):((8,1),32)"),
        ([16, 8, 16], 16) => (
            "((4,8),(2,2,2)):((32,1),(16,8,128))",
            "((4,8),(2,2)):((16,1),(8,64))",
        ),
        ([16, 8, 16], 8) => ("((4,8),(4,2)):((64,1),(16,8))", "((4,8),4):((32,1),8)"),
        ([16, 8, 32], 8) => (
            "((4,8),(4,2,2)):((64,1),(16,8,256))",
            "((4,8),(4,2)):((32,1),(8,128))",
        ),
        ([16, 8, 32], 4) => ("((4,8),(8,2)):((128,1),(16,8))", "((4,8),(8)):((32,1),(8))"),
        ([16, 8, 64], 4) => (
            "((4,8),(8,2,2)):((128,1),(16,8,512))",
            "((4,8),(8,2)):((64,1),(8,256))",
        ),
        ([16, 8, 128], 1) => ("((4,8),(32,2)):((512,1),(16,8))", "((4,8),32):((256,1),8)"),
        ([16, 8, 256], 1) => (
            "((4,8),(32,2,2)):((512,1),(16,8,2048))",
            "((4,8),(32,2)):((256,1),(8,1024))",
        ),
        ([8, 8, 4], 64) | ([8, 8, 4], 128) => ("((4,8),1):((8,1),0)", "((4,8),1):((8,1),0)"),
        ([8, 8, 16], 8) => ("((4,8),4):((32,1),8)", "((4,8),4):((32,1),8)"),
        ([8, 8, 32], 4) => ("((4,8),(8)):((64,1),(8))", "((4,8),(8)):((64,1),(8))"),
        ([8, 8, 128], 1) => ("((4,8),32):((256,1),8)", "((4,8),32):((256,1),8)"),
        _ => return None,
    })
}

impl MmaAtom {
    /// `MMA_Atom<name>` for the SM70–SM100 instructions CuTe defines.
    pub fn new(name: &str) -> Result<MmaAtom> {
        let name = name.replace(' ', "");
        let unknown = |why: &str| {
            LayoutError::invalid(
                "mma_atom",
                format!(
                    "`{name}` is not a CuTe MMA operation{why} (for example SM80_16x8x16_F32F16F16F32_TN, \
                     SM90_64x128x16_F32F16F16_SS<K,K>, SM100_MMA_F16BF16_SS<half_t,half_t,float,128,256,K,K>)"
                ),
            )
        };
        let (base, args) = split_template(&name);
        let parts: Vec<&str> = base.split('_').collect();
        let arch = parts.first().copied().unwrap_or("");
        match arch {
            "SM70" | "SM75" | "SM80" | "SM89" => {
                if !args.is_empty() {
                    return Err(unknown(": mma.sync atoms take no template arguments"));
                }
                sync_atom(&name, arch, &parts).ok_or_else(|| unknown(""))
            }
            "SM90" => gmma_atom(&name, &parts, &args).map_err(|why| unknown(&why)),
            "SM100" => umma_atom(&name, &parts, &args).map_err(|why| unknown(&why)),
            _ => Err(unknown("")),
        }
    }
}

fn sync_atom(name: &str, arch: &str, parts: &[&str]) -> Option<MmaAtom> {
    let mnk = parse_mnk(parts.get(1)?)?;
    let types = split_types(parts.get(2)?)?;
    let [d, a, b, c] = types.as_slice() else {
        return None;
    };
    let suffix = &parts[3..];
    let (a_bits, b_bits, c_bits) = (token_bits(a)?, token_bits(b)?, token_bits(c)?);
    if d != c || a_bits != b_bits {
        return None;
    }
    let integer = a.starts_with('S') || a.starts_with('U');
    let suffix_ok = match suffix {
        ["TN"] => a_bits != 1,
        ["TN", "SATURATE"] => integer && a_bits != 1,
        ["TN", "XORPOPC" | "ANDPOPC"] => a_bits == 1,
        [_] if arch == "SM70" => matches!(suffix[0], "TN" | "NT" | "NN" | "TT"),
        _ => false,
    };
    let accum_ok = match *a {
        "F16" => matches!(*c, "F16" | "F32"),
        "BF16" | "TF32" | "E4M3" | "E5M2" => matches!(*c, "F32") || (*c == "F16" && arch == "SM89"),
        "F64" => *c == "F64",
        "C64" => *c == "C64" && *d == "C64",
        _ => *c == "S32" && integer,
    } || (*a == "C64" && *d == "GC64");
    if !suffix_ok || !accum_ok {
        return None;
    }
    let warp = layout("32:1");
    let c_layout = |m: i64| if m == 16 { SM80_C16 } else { SM80_C8 };
    let (thr_id, la, lb, lc) = match arch {
        "SM70" => {
            if mnk != [8, 8, 4] || *a != "F16" {
                return None;
            }
            let row = "(8,4):(1,8)";
            let col = "((4,2),4):((8,4),1)";
            let (la, lb) = match suffix[0] {
                "TN" => (row, row),
                "NT" => (col, col),
                "NN" => (col, row),
                _ => (row, col),
            };
            let lc = if *c == "F16" {
                "(8,8):(1,8)"
            } else {
                "((2,2,2),(2,2,2)):((1,16,4),(8,2,32))"
            };
            (layout("(4,2):(1,16)"), la, lb, lc)
        }
        "SM75" => {
            let (la, lb, lc) = match (mnk, *a) {
                ([16, 8, 8], "F16") if *c == "F32" => (SM80_C16, "((4,8),2):((16,1),8)", SM80_C16),
                ([8, 8, 16], "S8") if *b == "S8" => {
                    ("((4,8),4):((32,1),8)", "((4,8),4):((32,1),8)", SM80_C8)
                }
                _ => return None,
            };
            (warp, la, lb, lc)
        }
        "SM89" => {
            if mnk != [16, 8, 32] || a_bits != 8 || integer {
                return None;
            }
            let (la, lb) = sync_ab(mnk, 8)?;
            (warp, la, lb, SM80_C16)
        }
        _ => {
            if matches!(*a, "E4M3" | "E5M2") {
                return None;
            }
            let (la, lb) = sync_ab(mnk, a_bits)?;
            (warp, la, lb, c_layout(mnk[0]))
        }
    };
    Some(MmaAtom {
        name: name.to_string(),
        shape_mnk: mnk,
        thr_id,
        a: layout(la),
        b: layout(lb),
        c: layout(lc),
        bits: [a_bits, b_bits, c_bits],
        a_source: OperandSource::Registers,
        b_source: OperandSource::Registers,
    })
}

/// `(threads,(rows,k)):(0,(1,rows))`: every thread of the group sees the
/// whole operand through its shared-memory descriptor.
fn descriptor_layout(threads: i64, thread_stride: i64, rows: i64, k: i64) -> Layout {
    split_layout(threads, thread_stride, rows, k, rows)
}

/// `(threads,(rows,cols)):(thread_stride,(1,col_stride))`: UMMA's 2-SM
/// layouts give each CTA half the rows of a column of `col_stride`.
fn split_layout(threads: i64, thread_stride: i64, rows: i64, cols: i64, col_stride: i64) -> Layout {
    Layout::new(
        Tuple(vec![Int(threads), Tuple(vec![Int(rows), Int(cols)])]),
        Tuple(vec![
            Int(thread_stride),
            Tuple(vec![Int(1), Int(col_stride)]),
        ]),
    )
    .expect("a descriptor layout is well formed")
}

fn gmma_atom(name: &str, parts: &[&str], args: &[&str]) -> std::result::Result<MmaAtom, String> {
    let mnk = parts.get(1).and_then(|p| parse_mnk(p)).ok_or("")?;
    let types = parts.get(2).and_then(|p| split_types(p)).ok_or("")?;
    let [d, a, b] = types.as_slice() else {
        return Err(String::new());
    };
    let source = *parts.get(3).ok_or("")?;
    let suffix = &parts[4.min(parts.len())..];
    let a_bits = token_bits(a).ok_or("")?;
    let b_bits = token_bits(b).ok_or("")?;
    let c_bits = token_bits(d).ok_or("")?;
    let sixteen = matches!(*a, "F16" | "BF16");
    let integer = matches!(*a, "S8" | "U8");
    let types_ok = match *a {
        "F16" => *b == "F16" && matches!(*d, "F16" | "F32"),
        "BF16" => *b == "BF16" && *d == "F32",
        "TF32" => *b == "TF32" && *d == "F32",
        "E4M3" | "E5M2" => matches!(*b, "E4M3" | "E5M2") && matches!(*d, "F16" | "F32"),
        _ => integer && matches!(*b, "S8" | "U8") && *d == "S32",
    };
    let suffix_ok = match suffix {
        [] => sixteen,
        ["TN"] => !sixteen,
        ["TN", "SATURATE"] => integer,
        _ => false,
    };
    if !types_ok || !suffix_ok || !matches!(source, "SS" | "RS") {
        return Err(String::new());
    }
    let [m, n, k] = mnk;
    if m != 64 || k * a_bits as i64 != 256 {
        return Err(format!(
            ": a GMMA with {a} operands is 64xNx{}",
            256 / a_bits
        ));
    }
    let n_ok = if integer {
        n == 8 || n == 16 || n == 24 || (n % 16 == 0 && (32..=256).contains(&n))
    } else {
        n % 8 == 0 && (8..=256).contains(&n)
    };
    if !n_ok {
        return Err(format!(": no GMMA has N = {n} for {a}"));
    }
    // 16-bit operands name their majors (K or MN); the others are K-major (TN).
    let majors_ok = if sixteen {
        (2..=4).contains(&args.len()) && args[..2].iter().all(|m| matches!(*m, "K" | "MN"))
    } else {
        args.len() <= 2
    };
    if !majors_ok {
        return Err(if sixteen {
            ": give the majors of A and B, e.g. <K,K> or <MN,K>".to_string()
        } else {
            ": an 8-bit or tf32 GMMA is K-major (TN) and takes no majors".to_string()
        });
    }
    let a_layout = if source == "SS" {
        descriptor_layout(128, 0, 64, k)
    } else {
        layout(match a_bits {
            32 => "((4,8,4),(2,2)):((64,1,16),(8,256))",
            16 => "((4,8,4),(2,2,2)):((128,1,16),(64,8,512))",
            _ => "((4,8,4),(4,2,2)):((256,1,16),(64,8,1024))",
        })
    };
    let c_layout = Layout::new(
        Tuple(vec![
            Tuple(vec![Int(4), Int(8), Int(4)]),
            Tuple(vec![Int(2), Int(2), Int(n / 8)]),
        ]),
        Tuple(vec![
            Tuple(vec![Int(128), Int(1), Int(16)]),
            Tuple(vec![Int(64), Int(8), Int(512)]),
        ]),
    )
    .expect("GMMA's accumulator layout is well formed");
    Ok(MmaAtom {
        name: name.to_string(),
        shape_mnk: mnk,
        thr_id: layout("128:1"),
        a: a_layout,
        b: descriptor_layout(128, 0, n, k),
        c: c_layout,
        bits: [a_bits, b_bits, c_bits],
        a_source: if source == "SS" {
            OperandSource::SharedMemory
        } else {
            OperandSource::Registers
        },
        b_source: OperandSource::SharedMemory,
    })
}

fn umma_atom(name: &str, parts: &[&str], args: &[&str]) -> std::result::Result<MmaAtom, String> {
    if parts.get(1) != Some(&"MMA") {
        return Err(String::new());
    }
    let kind = *parts.get(2).ok_or("")?;
    let (two_sm, source) = match &parts[3.min(parts.len())..] {
        [s] => (false, *s),
        ["2x1SM", s] => (true, *s),
        _ => return Err(String::new()),
    };
    if !matches!(source, "SS" | "TS") {
        return Err(String::new());
    }
    let [ta, tb, tc, m, n, major_a, major_b, ..] = args else {
        return Err(": give <a_type,b_type,c_type,M,N,a_major,b_major>".to_string());
    };
    let bits = |t: &str| value_type_bits(t).ok_or(format!(": unknown value type `{t}`"));
    let (a_bits, b_bits, c_bits) = (bits(ta)?, bits(tb)?, bits(tc)?);
    let kind_ok = match kind {
        "TF32" => *ta == "tfloat32_t" && *tb == "tfloat32_t",
        "F16BF16" => a_bits == 16 && b_bits == 16,
        "S8" => matches!(*ta, "int8_t" | "uint8_t") && matches!(*tb, "int8_t" | "uint8_t"),
        "F8F6F4" => a_bits <= 8 && b_bits <= 8 && !matches!(*ta, "int8_t" | "uint8_t"),
        _ => return Err(String::new()),
    };
    if !kind_ok {
        return Err(format!(": SM100_MMA_{kind} does not take {ta} and {tb}"));
    }
    if ![major_a, major_b].iter().all(|m| matches!(**m, "K" | "MN")) {
        return Err(": the majors are K or MN".to_string());
    }
    let parse = |t: &str| {
        t.parse::<i64>()
            .map_err(|_| format!(": `{t}` is not an integer"))
    };
    let (m, n) = (parse(m)?, parse(n)?);
    // F8F6F4 reads 8-bit containers: K = 32 for every 4/6/8-bit type.
    let k = 256 / if kind == "F8F6F4" { 8 } else { a_bits as i64 };
    let shape_ok = if two_sm {
        matches!(m, 128 | 256) && n % 16 == 0 && (32..=256).contains(&n)
    } else {
        matches!(m, 64 | 128) && n % if m == 64 { 8 } else { 16 } == 0 && (8..=256).contains(&n)
    };
    if !shape_ok {
        return Err(format!(
            ": UMMA has no {m}x{n} {} shape",
            if two_sm { "2-SM" } else { "1-SM" }
        ));
    }
    let (thr_id, a, b, c) = if two_sm {
        (
            layout("2:1"),
            split_layout(2, m / 2, m / 2, k, m),
            split_layout(2, n / 2, n / 2, k, n),
            split_layout(2, m / 2, m / 2, n, m),
        )
    } else {
        (
            layout("1:0"),
            descriptor_layout(1, 0, m, k),
            descriptor_layout(1, 0, n, k),
            descriptor_layout(1, 0, m, n),
        )
    };
    Ok(MmaAtom {
        name: name.to_string(),
        shape_mnk: [m, n, k],
        thr_id,
        a,
        b,
        c,
        bits: [a_bits, b_bits, c_bits],
        a_source: if source == "SS" {
            OperandSource::SharedMemory
        } else {
            OperandSource::TensorMemory
        },
        b_source: OperandSource::SharedMemory,
    })
}
