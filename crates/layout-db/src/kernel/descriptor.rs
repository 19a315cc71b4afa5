//! A TMA descriptor built on the device (`ttng.tensormap_create`, from
//! `tl.make_tensor_descriptor`): NVIDIA's lowering zeroes the descriptor's
//! 128 bytes in shared memory, a word per lane of the first warp, writes
//! its fields there one `tensormap.replace` at a time from thread 0, and
//! copies it to global memory with one `tensormap.cp_fenceproxy` of the
//! first warp.

use super::InstructionCount;
use super::mlir::{Function, Op};

/// A field of the descriptor, as `tensormap.replace.tile.<field>` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    GlobalAddress,
    Rank,
    BoxDim,
    GlobalDim,
    GlobalStride,
    ElementStride,
    ElemType,
    InterleaveLayout,
    SwizzleMode,
    FillMode,
}

impl Field {
    fn name(self) -> &'static str {
        match self {
            Field::GlobalAddress => "global_address",
            Field::Rank => "rank",
            Field::BoxDim => "box_dim",
            Field::GlobalDim => "global_dim",
            Field::GlobalStride => "global_stride",
            Field::ElementStride => "element_stride",
            Field::ElemType => "elemtype",
            Field::InterleaveLayout => "interleave_layout",
            Field::SwizzleMode => "swizzle_mode",
            Field::FillMode => "fill_mode",
        }
    }

    /// The address and the strides are 64-bit values; the rest 32-bit.
    fn bits(self) -> u32 {
        match self {
            Field::GlobalAddress | Field::GlobalStride => 64,
            _ => 32,
        }
    }

    fn mnemonic(self) -> String {
        format!(
            "tensormap.replace.tile.{}.shared::cta.b1024.b{}",
            self.name(),
            self.bits()
        )
    }
}

/// The copy of the finished descriptor to global memory.
const COPY_OUT: &str =
    "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned";

/// The fields `op` writes and how often: one address; a box and a global
/// extent and an element stride per dimension; a global stride per
/// dimension but the innermost; and the constant fields (rank minus one,
/// element type, interleave, swizzle, fill mode) only where they are not
/// zero, which the zeroed descriptor already holds.
/// Without a readable box (`None`), the fields the rank decides are left
/// out; the others are written whatever it is.
fn fields(op: &Op, rank: Option<u64>) -> Vec<(Field, u64)> {
    let constant = |key: &str| Function::int_attribute(op, key).unwrap_or(0);
    let mut out = vec![(Field::GlobalAddress, 1)];
    if let Some(rank) = rank {
        out.extend([
            (Field::Rank, u64::from(rank > 1)),
            (Field::BoxDim, rank),
            (Field::GlobalDim, rank),
            (Field::GlobalStride, rank - 1),
            (Field::ElementStride, rank),
        ]);
    }
    for (field, key) in [
        (Field::ElemType, "elem_type"),
        (Field::InterleaveLayout, "interleave_layout"),
        (Field::SwizzleMode, "swizzle_mode"),
        (Field::FillMode, "fill_mode"),
    ] {
        out.push((field, u64::from(constant(key) != 0)));
    }
    out.retain(|(_, n)| *n > 0);
    out
}

/// The descriptor's rank: the entries of the first bracketed list of the
/// op's operands (`[%c64_i32, %c128_i32]`, the box).
fn box_rank(line: &str) -> Option<u64> {
    let after = line.split_once("ttng.tensormap_create")?.1;
    let open = after.find('[')?;
    let close = open + after[open..].find(']')?;
    let inner = after[open + 1..close].trim();
    if inner.is_empty() {
        return None;
    }
    Some(inner.split(',').count() as u64)
}

/// What `op` (on `line`) issues in shared memory: the zeroing stores, each
/// field's `tensormap.replace` and the copy out. A replace is one thread's
/// access to the descriptor (ptxas turns one that writes part of a word
/// into a load and a store of it); the copy reads the 128 bytes, one
/// wavefront.
pub(super) fn instructions(op: &Op, line: &str) -> Vec<InstructionCount> {
    let one =
        |mnemonic: String, count: u64| InstructionCount::single_wavefront(mnemonic, count, true);
    let mut out = vec![one("st.shared::cta.b32".into(), 1)];
    out.extend(
        fields(op, box_rank(line))
            .into_iter()
            .map(|(f, n)| one(f.mnemonic(), n)),
    );
    out.push(one(COPY_OUT.into(), 1));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rank_is_the_box_s_length() {
        let line = "ttng.tensormap_create %d, %p, [%c2_i32, %c16_i32, %c64_i32], [%P, %M, %N], [%s0, %s1], [%c1_i32, %c1_i32, %c1_i32] {elem_type = 6 : i32}";
        assert_eq!(box_rank(line), Some(3));
        assert_eq!(box_rank("ttng.tensormap_create %d, %p, [], []"), None);
    }
}
