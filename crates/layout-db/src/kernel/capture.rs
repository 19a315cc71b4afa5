//! What a `ttg.warp_specialize` hands its partitions through shared
//! memory.
//!
//! Triton's allocator reserves room for every explicit capture
//! ([`capture_bytes`]). The lowering to LLVM then rematerialises in each
//! partition every capture it can rebuild from the function's arguments
//! with at most [`REMATERIALISED_OPS`] pure operations
//! (`elideTrivialCaptures`); the default warps store only the others,
//! packed in order from the op's offset, and each partition loads those it
//! uses. LLVM's load/store vectoriser then merges neighbouring fields; what
//! it does with the rest depends on the backend ([`Backend`]): NVPTX moves a
//! field the packing leaves misaligned in pieces as wide as its alignment
//! and lets loads cover gaps, AMDGPU moves it whole (LDS takes unaligned
//! accesses) and pairs what is left (`ds_load_2addr_b32`). Both were checked
//! against compiled kernels (sm90, sm100, gfx1250).

use super::mlir::{Function, OpId, split_top_level};
use super::scratch::{element_bits, parse_type};
use layout_algebra::bank::{Direction, Instruction};
use layout_algebra::machine::{Machine, Vendor};

/// The most operations `elideTrivialCaptures` copies into each partition
/// to rebuild one capture.
pub const REMATERIALISED_OPS: u32 = 16;

/// The alignment of `global_smem`, the base of every offset.
const SHARED_BASE_ALIGNMENT: u64 = 16;

/// The bytes `ttg.warp_specialize` packs its explicit captures into, from
/// its operands' types: a scalar its own bytes, a pointer or tensor
/// descriptor 8, a shared-memory descriptor 8 plus 4 per dimension (its
/// base and offsets), one in tensor memory 8. `None` for a type Triton has
/// no size for.
pub fn capture_bytes(operand_types: &str) -> Option<u64> {
    capture_types(operand_types)
        .into_iter()
        .map(|t| Some(elements(t)?.iter().sum::<u64>()))
        .sum()
}

/// The operand types of a `ttg.warp_specialize`, one per capture.
fn capture_types(operand_types: &str) -> Vec<&str> {
    let list = operand_types.trim();
    let list = list
        .strip_prefix('(')
        .and_then(|l| l.strip_suffix(')'))
        .unwrap_or(list);
    split_top_level(list, ',')
        .into_iter()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect()
}

/// The scalars one capture of type `ty` is at the LLVM level, by bytes: a
/// shared-memory descriptor is a struct of its base and one 32-bit offset
/// per dimension, stored and loaded field by field.
fn elements(ty: &str) -> Option<Vec<u64>> {
    if ty.starts_with("!ttg.memdesc<") {
        let memdesc = parse_type(ty)?;
        return Some(if memdesc.in_tensor_memory() {
            vec![8]
        } else {
            std::iter::once(8)
                .chain(std::iter::repeat_n(4, memdesc.shape.len()))
                .collect()
        });
    }
    if ty.starts_with("!tt.ptr<") || ty.starts_with("!tt.tensordesc<") {
        return Some(vec![8]);
    }
    if ty.starts_with(['i', 'f', 'b']) && !ty.contains('<') {
        return Some(vec![u64::from(element_bits(ty)?.div_ceil(8))]);
    }
    None
}

/// The LLVM backend that lowers the capture traffic: what it does with a
/// field the packing leaves misaligned, with gaps between the fields a
/// partition loads, and with scalars the vectoriser leaves alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// NVPTX: a misaligned field moves in pieces as wide as its alignment;
    /// loads merge across gaps.
    Ptx,
    /// AMDGPU: LDS takes unaligned accesses, so a misaligned field moves
    /// whole; loads merge only neighbours, and `SILoadStoreOptimizer` pairs
    /// two scalars of 4 or 8 bytes at offsets that are multiples of their
    /// size (`ds_load_2addr_b32`, `ds_store_2addr_b64`).
    Amdgpu,
}

impl Backend {
    pub fn of(vendor: Vendor) -> Backend {
        match vendor {
            Vendor::Nvidia => Backend::Ptx,
            Vendor::Amd => Backend::Amdgpu,
        }
    }
}

/// One shared-memory access of the capture traffic: `lanes` scalars of
/// `bytes` each (a vector when `lanes > 1`), at one address or, `pair`, at
/// the two offsets of one AMD instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    pub lanes: u64,
    pub bytes: u64,
    pub pair: Option<PairOffsets>,
}

/// How a paired LDS instruction's two offsets count: in its access's own
/// width (`ds_load_2addr_b32`), or in 64 of them
/// (`ds_load_2addr_stride64_b32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairOffsets {
    Width,
    Stride64,
}

impl Access {
    pub fn scalar(bytes: u64) -> Access {
        Access {
            lanes: 1,
            bytes,
            pair: None,
        }
    }

    /// `lanes` words stored at one address (warp specialisation's state).
    pub fn words(lanes: u64) -> Access {
        Access {
            lanes,
            bytes: 4,
            pair: None,
        }
    }

    /// The opcode on `machine`: PTX keeps the scalars' width in the vector
    /// (`st.shared.v2.b64`, `ld.shared.b8`); AMDGCN names the bits moved
    /// (`ds_store_b128`, `ds_load_u8`, `ds_load_2addr_b32`).
    pub fn mnemonic(self, store: bool, machine: &Machine) -> String {
        let bits = (self.bytes * 8) as u32;
        match machine.vendor {
            Vendor::Nvidia => {
                let op = if store { "st" } else { "ld" };
                if self.lanes > 1 {
                    format!("{op}.shared.v{}.b{bits}", self.lanes)
                } else {
                    format!("{op}.shared.b{bits}")
                }
            }
            Vendor::Amd => {
                let direction = if store {
                    Direction::Store
                } else {
                    Direction::Load
                };
                let instruction = match self.pair {
                    Some(offsets) => Instruction::Paired {
                        bits: self.lanes as u32 * bits,
                        st64: offsets == PairOffsets::Stride64,
                    },
                    None => Instruction::LdSt {
                        bits: self.lanes as u32 * bits,
                    },
                };
                machine.mnemonic(instruction, direction, bits).to_string()
            }
        }
    }

    /// The bits one lane moves at one address (a pair's half).
    pub fn bits(self) -> u64 {
        self.lanes * self.bytes * 8
    }

    /// The addresses one instruction serves in turn: a pair's two.
    pub fn addresses(self) -> u64 {
        if self.pair.is_some() { 2 } else { 1 }
    }
}

/// The capture traffic of one `ttg.warp_specialize`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureTraffic {
    /// What the default warps store before the partitions start.
    pub stores: Vec<Access>,
    /// What each partition's warps load: (its warps, the loads).
    pub loads: Vec<(Option<u32>, Vec<Access>)>,
}

/// The capture traffic of the `ttg.warp_specialize` `ws` whose buffer
/// starts at byte `offset`, as `backend` lowers it; `None` when a capture's
/// type has no size.
pub fn traffic(f: &Function, ws: OpId, offset: u64, backend: Backend) -> Option<CaptureTraffic> {
    let op = &f.ops[ws];
    let types = capture_types(op.operand_types());
    if types.len() != op.operands.len() {
        return None;
    }
    // The captures that go through shared memory, packed in order: their
    // scalars' addresses.
    let mut stored: Vec<(usize, Vec<(u64, u64)>)> = Vec::new();
    let mut at = offset;
    for (i, (value, ty)) in op.operands.iter().zip(&types).enumerate() {
        let sizes = elements(ty)?;
        // A scalar of no whole power-of-two bytes (`i24`): how LLVM splits
        // it is not modelled.
        if sizes.iter().any(|s| !s.is_power_of_two()) {
            return None;
        }
        if rematerialisable(f, value, ty) {
            continue;
        }
        let mut scalars = Vec::new();
        for size in sizes {
            scalars.push((at, size));
            at += size;
        }
        stored.push((i, scalars));
    }
    let all: Vec<(u64, u64)> = stored.iter().flat_map(|(_, s)| s.clone()).collect();
    let mut loads = Vec::new();
    for &b in op.regions.iter().skip(1).flatten() {
        let block = &f.blocks[b];
        if block.arguments.len() != types.len() {
            continue;
        }
        let used: Vec<(u64, u64)> = stored
            .iter()
            .filter(|(i, _)| used_in(f, b, &block.arguments[*i]))
            .flat_map(|(_, s)| s.clone())
            .collect();
        if !used.is_empty() {
            loads.push((
                block.partition_warps(),
                vectorise(&used, Direction::Load, backend),
            ));
        }
    }
    Some(CaptureTraffic {
        stores: vectorise(&all, Direction::Store, backend),
        loads,
    })
}

/// Whether `value` (a capture of type `ty`) is rebuilt in each partition:
/// it comes from the function's arguments through pure operations, at most
/// [`REMATERIALISED_OPS`] of them once lowered to LLVM.
fn rematerialisable(f: &Function, value: &str, ty: &str) -> bool {
    // A value whose type the lowering changes is cast back at the capture.
    let mut ops = u32::from(!ty.starts_with(['i', 'f', 'b']));
    let mut seen: Vec<OpId> = Vec::new();
    let mut work = vec![value.to_string()];
    while let Some(v) = work.pop() {
        if f.blocks[0].arguments.contains(&v) {
            continue;
        }
        let Some(id) = f.ops.iter().position(|o| o.results.contains(&v)) else {
            // Another block's argument (a loop's, a branch's): a value the
            // partitions cannot recompute.
            return false;
        };
        if seen.contains(&id) {
            continue;
        }
        seen.push(id);
        let Some(n) = llvm_ops(&f.ops[id]) else {
            return false;
        };
        ops += n;
        if ops > REMATERIALISED_OPS {
            return false;
        }
        work.extend(f.ops[id].operands.iter().cloned());
    }
    true
}

/// The pure LLVM operations `op` lowers to, `None` when it is not pure (a
/// load, a region, a call). A TMA descriptor's global scratch is pure but
/// takes more operations than any capture may.
fn llvm_ops(op: &super::mlir::Op) -> Option<u32> {
    let scalar = !op.types.contains("tensor<");
    let rank = || parse_type(op.result_types()).map_or(0, |t| t.shape.len() as u32);
    match op.name.as_str() {
        name if name.starts_with("arith.") && scalar && op.regions.is_empty() => Some(1),
        "tt.get_program_id" | "tt.get_num_programs" => Some(1),
        "tt.addptr" | "tt.int_to_ptr" | "tt.ptr_to_int" | "tt.bitcast" if scalar => Some(1),
        "ttng.reinterpret_tensor_descriptor" => Some(1),
        // The struct of base and offsets: `undef`, the base (`addressof`
        // and its offset), one `insertvalue` per field, a zero.
        "ttg.local_alloc" if op.operands.is_empty() => Some(rank() + 5),
        // The tensor-memory base, as an integer plus the column offset.
        "ttng.tmem_alloc" if op.operands.is_empty() => Some(5),
        // Three program ids, two grid sizes, their widening and the
        // product with the scratch size: more than any capture may take.
        "ttg.global_scratch_alloc" => Some(19),
        _ => None,
    }
}

/// Whether the block argument `arg` of partition block `b` is used by any
/// operation nested in that block.
fn used_in(f: &Function, b: usize, arg: &str) -> bool {
    f.ops
        .iter()
        .enumerate()
        .any(|(id, o)| o.operands.iter().any(|v| v == arg) && f.ancestor_in(b, id).is_some())
}

/// The accesses LLVM makes of `scalars` (address, bytes), sorted by
/// address. Neighbours of one size merge into a vector of 2 or 4 whose
/// address is aligned to its size (at most 16 bytes). On NVPTX loads also
/// merge across gaps within such a vector, rounding a run up to the next
/// power of two, and a scalar less aligned than its size is moved in pieces
/// as wide as its alignment; on AMDGPU that scalar moves whole, and the
/// scalars left over pair ([`pair`]).
pub fn vectorise(scalars: &[(u64, u64)], direction: Direction, backend: Backend) -> Vec<Access> {
    let fill_gaps = backend == Backend::Ptx && direction == Direction::Load;
    let mut scalars = scalars.to_vec();
    scalars.sort_unstable();
    let mut out: Vec<(u64, Access)> = Vec::new();
    let mut i = 0;
    while i < scalars.len() {
        let (address, bytes) = scalars[i];
        let alignment = alignment(address);
        if alignment < bytes {
            match backend {
                Backend::Ptx => out.extend(
                    (0..bytes / alignment)
                        .map(|k| (address + k * alignment, Access::scalar(alignment))),
                ),
                Backend::Amdgpu => out.push((address, Access::scalar(bytes))),
            }
            i += 1;
            continue;
        }
        let mut taken = 1;
        let mut lanes = 1;
        for width in [4, 2] {
            let span = width * bytes;
            if span > SHARED_BASE_ALIGNMENT || address % span != 0 {
                continue;
            }
            // Scalars of this size on this vector's lanes (sorted, so
            // `width` of them fill it without a gap).
            let inside = scalars[i..]
                .iter()
                .take_while(|&&(a, b)| {
                    b == bytes && a + b <= address + span && (a - address) % bytes == 0
                })
                .count();
            let last_end = scalars[i + inside - 1].0 + bytes;
            let fills = if fill_gaps {
                // The run rounded up to a power of two must be this vector.
                inside >= 2 && (last_end - address).next_power_of_two() == span
            } else {
                inside as u64 == width
            };
            if fills {
                taken = inside;
                lanes = width;
                break;
            }
        }
        out.push((
            address,
            Access {
                lanes,
                bytes,
                pair: None,
            },
        ));
        i += taken;
    }
    match backend {
        Backend::Ptx => out.into_iter().map(|(_, a)| a).collect(),
        Backend::Amdgpu => pair(&out),
    }
}

/// AMDGPU's `SILoadStoreOptimizer` on the accesses the vectoriser left:
/// two neighbours (in address order) of 4 or 8 bytes each, both aligned to
/// their width, become one `ds_*2addr*` instruction when the second lies at
/// most 255 widths past the first, or 255 times 64 widths with both
/// offsets multiples of 64 widths (the `stride64` form).
fn pair(accesses: &[(u64, Access)]) -> Vec<Access> {
    let width = |a: &Access| a.lanes * a.bytes;
    let pairable = |(address, access): &(u64, Access)| {
        matches!(width(access), 4 | 8) && address % width(access) == 0
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < accesses.len() {
        let (address, access) = accesses[i];
        let partner = accesses.get(i + 1).filter(|next| {
            pairable(&accesses[i]) && pairable(next) && width(&next.1) == width(&access)
        });
        let offsets = partner.and_then(|&(other, _)| {
            let w = width(&access);
            let apart = other.abs_diff(address);
            if apart / w <= 255 {
                Some(PairOffsets::Width)
            } else if address % (64 * w) == 0 && other % (64 * w) == 0 && apart / (64 * w) <= 255 {
                Some(PairOffsets::Stride64)
            } else {
                None
            }
        });
        match offsets {
            Some(offsets) => {
                out.push(Access {
                    pair: Some(offsets),
                    ..access
                });
                i += 2;
            }
            None => {
                out.push(access);
                i += 1;
            }
        }
    }
    out
}

/// The alignment of a byte offset from the base of shared memory.
fn alignment(address: u64) -> u64 {
    if address == 0 {
        SHARED_BASE_ALIGNMENT
    } else {
        (1 << address.trailing_zeros()).min(SHARED_BASE_ALIGNMENT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captures_pack_as_triton_sizes_them() {
        // The captures of a warp-specialised TMA matmul (sm100): 124 bytes
        // in Triton's dump (`allocation.size = 124`).
        let types = "(!ttg.memdesc<3x1xi64, #shared1, #smem, mutable>, !ttg.memdesc<3x128x64xf16, #shared, #smem, mutable>, !ttg.memdesc<3x128x64xf16, #shared, #smem, mutable>, !ttg.memdesc<1x128x128xf32, #tmem, #ttng.tensor_memory, mutable>, !ttg.memdesc<3x1xi64, #shared1, #smem, mutable>, i32, !ttg.memdesc<1x1xi64, #shared1, #smem, mutable>, !tt.tensordesc<128x64xf16, #shared>, i32, !tt.tensordesc<128x64xf16, #shared>, i32)";
        assert_eq!(capture_bytes(types), Some(124));
        assert_eq!(capture_bytes("(i1, !tt.ptr<f32>)"), Some(9));
        assert_eq!(capture_bytes("(tensor<4xf32, #blocked>)"), None);
    }

    fn machine(name: &str) -> Machine {
        Machine::from_preset(layout_algebra::machine::preset(name).unwrap())
    }

    fn mnemonics(accesses: &[Access], store: bool, machine: &Machine) -> Vec<String> {
        accesses
            .iter()
            .map(|a| a.mnemonic(store, machine))
            .collect()
    }

    #[test]
    fn packed_fields_merge_when_aligned_and_split_when_not() {
        let sm90 = machine("sm90");
        let ptx = |scalars: &[(u64, u64)], direction| {
            let store = direction == Direction::Store;
            mnemonics(&vectorise(scalars, direction, Backend::Ptx), store, &sm90)
        };
        // tests/corpus/kernels/ws_captures: an f32, an i1, a pointer and an
        // i32 packed from 0 (the PTX: one b32, then bytes only).
        let packed = [(0, 4), (4, 1), (5, 8), (13, 4)];
        let stores = ptx(&packed, Direction::Store);
        assert_eq!(stores.len(), 1 + 1 + 8 + 4);
        assert_eq!(stores[0], "st.shared.b32");
        assert!(stores[1..].iter().all(|m| m == "st.shared.b8"));
        // Two pointers, then four words (ws_captures_aligned): one vector
        // each.
        let aligned = [(0, 8), (8, 8), (16, 4), (20, 4), (24, 4), (28, 4)];
        assert_eq!(
            ptx(&aligned, Direction::Store),
            ["st.shared.v2.b64", "st.shared.v4.b32"]
        );
        // A partition that uses the first pointer and the first and third
        // words: the loads fill the gap and round up to four words.
        let gapped = [(0, 8), (16, 4), (24, 4)];
        assert_eq!(
            ptx(&gapped, Direction::Load),
            ["ld.shared.b64", "ld.shared.v4.b32"]
        );
        // Stores never cover a gap.
        assert_eq!(
            ptx(&[(16, 4), (24, 4)], Direction::Store),
            ["st.shared.b32", "st.shared.b32"]
        );
        // An i32, an i8 and an i32 packed at 0, 4 and 5, the i8 unused: the
        // second i32 is off the lanes of a vector at 0 and moves in bytes.
        let loads = ptx(&[(0, 4), (5, 4)], Direction::Load);
        assert_eq!(loads[0], "ld.shared.b32");
        assert_eq!(loads.len(), 5);
    }

    #[test]
    fn amdgpu_moves_misaligned_fields_whole_and_pairs_what_is_left() {
        // The same kernels compiled for gfx1250 (the AMDGCN's opcodes).
        let gfx1250 = machine("gfx1250");
        let amd = |scalars: &[(u64, u64)], direction| {
            let store = direction == Direction::Store;
            mnemonics(
                &vectorise(scalars, direction, Backend::Amdgpu),
                store,
                &gfx1250,
            )
        };
        assert_eq!(
            amd(&[(0, 4), (4, 1), (5, 8), (13, 4)], Direction::Store),
            [
                "ds_store_b32",
                "ds_store_b8",
                "ds_store_b64",
                "ds_store_b32"
            ]
        );
        assert_eq!(
            amd(&[(0, 4), (4, 1), (5, 8), (13, 4)], Direction::Load),
            ["ds_load_b32", "ds_load_u8", "ds_load_b64", "ds_load_b32"]
        );
        let aligned = [(0, 8), (8, 8), (16, 4), (20, 4), (24, 4), (28, 4)];
        assert_eq!(
            amd(&aligned, Direction::Store),
            ["ds_store_b128", "ds_store_b128"]
        );
        // No gap is covered; the two words left pair.
        assert_eq!(
            amd(&[(0, 8), (16, 4), (24, 4)], Direction::Load),
            ["ds_load_b64", "ds_load_2addr_b32"]
        );
        // Words 256 words apart pair in the stride-64 form; words that far
        // apart and off its grid do not pair.
        assert_eq!(
            amd(&[(0, 4), (1024, 4)], Direction::Store),
            ["ds_store_2addr_stride64_b32"]
        );
        assert_eq!(
            amd(&[(4, 4), (1028, 4)], Direction::Store),
            ["ds_store_b32", "ds_store_b32"]
        );
    }
}
