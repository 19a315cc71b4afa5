//! The shared-memory instructions of a warp: as the bank model counts them
//! ([`Instruction`]), as the assembly spells them ([`Mnemonic`]:
//! `st.shared.v4.b32`, `ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16`,
//! `ds_read2st64_b64`), as a user may name them ([`InstructionPattern`]:
//! `ldmatrix.x4`, `ds_read_b64`, `vector`), and the ones an access may use
//! on a machine ([`candidates`]): the one list that the analysis of a
//! dump, `wavefronts(...)` and the solver choose from.

use std::fmt;
use std::str::FromStr;

use super::Direction;
use crate::machine::{LdsSpelling, Machine, Vendor};

/// The shared-memory instruction a warp issues.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Instruction {
    /// `ld.shared` / `st.shared` of `bits` (8..128) per lane.
    LdSt { bits: u32 },
    /// `ldmatrix` / `stmatrix` of `count` (1, 2 or 4) 8x8 matrices of 16-bit
    /// elements; each group of 8 lanes addresses the 8 rows of one matrix.
    Matrix { count: u32, trans: bool },
    /// AMD's paired LDS access, `ds_read2_b32/b64` and `ds_write2_b32/b64`
    /// (`ds_read2st64_*` when `st64`): one instruction moves two vectors of
    /// `bits` (32 or 64) per lane, at the lane's base address plus two
    /// offsets, 8 bits each, in units of the width (of 64 widths with
    /// `st64`). The compiler forms them, not Triton: LLVM's
    /// SILoadStoreOptimizer pairs two accesses of one lane that share a base
    /// register and whose constant offsets fit the encoding ([`super::paired_instruction`]).
    /// The vectors it cannot pair stay single `bits`-wide accesses and are
    /// counted among the instructions. Each half is served as the
    /// single-address instruction of its width is (its phases and banks).
    Paired { bits: u32, st64: bool },
    /// A transposing read: each lane of a group reads contiguous bits and
    /// the group exchanges them, so a lane ends with elements along the
    /// other dimension. gfx950's `ds_read_b64_tr_b{element_bits}` (16, 8 or
    /// 4; 16 lanes, 64 bits each), gfx1250's `ds_load_tr16_b128` and
    /// `ds_load_tr8_b64` (8 lanes; [`TransposedRead`]). The access's
    /// distributed layout is the destination's; the addresses come from
    /// [`super::transposed_read_layout`] of it, and are served as a plain
    /// read of the same width (`ds_read_b64`'s or `ds_load_b128`'s phases).
    ReadTransposed {
        element_bits: u32,
        generation: TransposedRead,
    },
}

/// The generations of AMD's transposing LDS reads (Triton's
/// `queryLDSTransLoadParams`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum TransposedRead {
    /// CDNA4 (gfx950): `ds_read_b64_tr_bN`, 16 lanes exchange 64 bits each.
    #[default]
    Cdna4,
    /// gfx1250: 8 lanes exchange 128 bits of 16-bit elements
    /// (`ds_load_tr16_b128`) or 64 bits of bytes (`ds_load_tr8_b64`, whose
    /// tile holds each lane's bytes in two halves).
    Gfx1250,
}

impl TransposedRead {
    /// Bits one lane reads.
    pub fn bits(self, element_bits: u32) -> u32 {
        match (self, element_bits) {
            (TransposedRead::Gfx1250, 16) => 128,
            _ => 64,
        }
    }
}

/// The lanes of one instruction as Triton's swizzle search sees them
/// (`LocalMemOpTile`): lane bits whose elements are contiguous in one
/// 16-byte row, and lane bits that address different rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaneTile {
    pub contiguous: &'static [usize],
    pub addressing: &'static [usize],
}

impl Instruction {
    /// An `ld.shared`/`st.shared` of any width, where the width does not
    /// matter (the swizzle search, Triton's names without the width).
    pub const LD_ST: Instruction = Instruction::LdSt { bits: 128 };

    /// How its lanes address one 16-byte row tile.
    pub fn lane_tile(self) -> LaneTile {
        match self {
            Instruction::LdSt { .. }
            | Instruction::Paired { .. }
            | Instruction::ReadTransposed { .. } => LaneTile {
                contiguous: &[],
                addressing: &[0, 1, 2],
            },
            Instruction::Matrix { trans: false, .. } => LaneTile {
                contiguous: &[0, 1],
                addressing: &[2, 3, 4],
            },
            Instruction::Matrix { trans: true, .. } => LaneTile {
                contiguous: &[2, 3, 4],
                addressing: &[0, 1],
            },
        }
    }

    /// The instruction's name without width or count, as Triton's lowering
    /// names its choice: `st.shared`, `ldmatrix.trans`.
    pub fn kind_name(self, direction: Direction) -> &'static str {
        match (self, direction) {
            (Instruction::LdSt { .. }, Direction::Store) => "st.shared",
            (Instruction::LdSt { .. }, Direction::Load) => "ld.shared",
            (Instruction::Matrix { trans: false, .. }, Direction::Store) => "stmatrix",
            (Instruction::Matrix { trans: false, .. }, Direction::Load) => "ldmatrix",
            (Instruction::Matrix { trans: true, .. }, Direction::Store) => "stmatrix.trans",
            (Instruction::Matrix { trans: true, .. }, Direction::Load) => "ldmatrix.trans",
            (Instruction::Paired { .. }, Direction::Store) => "ds_write2",
            (Instruction::Paired { .. }, Direction::Load) => "ds_read2",
            (
                Instruction::ReadTransposed {
                    generation: TransposedRead::Cdna4,
                    ..
                },
                _,
            ) => "ds_read_tr",
            (
                Instruction::ReadTransposed {
                    generation: TransposedRead::Gfx1250,
                    ..
                },
                _,
            ) => "ds_load_tr",
        }
    }
}

impl Instruction {
    /// Bits one lane moves per address.
    pub fn bits_per_lane(self) -> u32 {
        match self {
            Instruction::LdSt { bits } | Instruction::Paired { bits, .. } => bits,
            Instruction::ReadTransposed {
                element_bits,
                generation,
            } => generation.bits(element_bits),
            Instruction::Matrix { .. } => 128,
        }
    }

    /// The instruction as `vendor`'s assembly spells it, moving elements of
    /// `element_bits` in `direction`.
    pub fn mnemonic(self, direction: Direction, vendor: Vendor, element_bits: u32) -> Mnemonic {
        let operand_bits = match (vendor, self) {
            (Vendor::Nvidia, Instruction::LdSt { bits }) => ptx_operand_bits(bits, element_bits),
            _ => 0,
        };
        Mnemonic {
            instruction: self,
            direction,
            vendor,
            operand_bits,
            cluster: false,
            high_half: false,
            signed: false,
            spelling: LdsSpelling::Gcn,
        }
    }
}

/// The width of one operand of the PTX `ld.shared`/`st.shared` Triton 3.9
/// emits for a vector of `bits` (`storeDShared`/`loadDShared` of the NVIDIA
/// backend): the element's width (sub-byte elements move as bytes), except
/// that more than four elements narrower than 32 bits travel packed into
/// 32-bit words, since PTX vectors have at most four operands, and four
/// bytes travel as one 32-bit word (LLVM's NVPTX backend keeps `<4 x i8>`
/// in one register), as the PTX of compiled kernels shows.
fn ptx_operand_bits(bits: u32, element_bits: u32) -> u32 {
    let element = element_bits.clamp(8, 64).min(bits.max(8));
    if bits / element > 4 || (element == 8 && bits == 32) {
        32
    } else {
        element
    }
}

/// A shared-memory instruction as the machine's assembly spells its opcode:
/// what `ptxas` or the AMDGPU backend prints, so it can be compared with a
/// compiled kernel's PTX or AMDGCN as text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mnemonic {
    pub instruction: Instruction,
    pub direction: Direction,
    pub vendor: Vendor,
    /// NVIDIA's `ld/st.shared`: the width of one operand (the `.b16` of
    /// `st.shared.v2.b16`); 0 for every other instruction.
    operand_bits: u32,
    /// NVIDIA's `ld.shared::cluster`: the address is in another CTA of
    /// the cluster (from `mapa`).
    cluster: bool,
    /// AMD's `_d16_hi` form of an 8- or 16-bit access: the data is the high
    /// half of the 32-bit register (`ds_write_b16_d16_hi`).
    high_half: bool,
    /// A sign-extending load of one narrow element: NVIDIA's
    /// `ld.shared.s8`, AMD's `ds_read_i16`.
    signed: bool,
    /// How AMD's assembler spells it (`ds_read_b128` or `ds_load_b128`).
    spelling: LdsSpelling,
}

impl Mnemonic {
    /// The same instruction as an assembler of `spelling` writes it (AMD's
    /// LDS opcodes; NVIDIA's are spelled one way).
    pub fn spelled(self, spelling: LdsSpelling) -> Mnemonic {
        Mnemonic { spelling, ..self }
    }

    /// Another instruction of the same direction, vendor and spelling: what
    /// LLVM issues for the requests of a paired access it leaves single
    /// (`ds_write_b32` beside `ds_write2_b32`).
    pub fn as_instruction(self, instruction: Instruction) -> Mnemonic {
        Mnemonic {
            instruction,
            ..self
        }
    }

    /// The same `ld.shared` addressing the shared memory of another CTA
    /// of the cluster (`ld.shared::cluster`); other instructions cannot,
    /// and stay as they are.
    pub fn in_cluster(self) -> Mnemonic {
        Mnemonic {
            cluster: self.vendor == Vendor::Nvidia
                && matches!(self.instruction, Instruction::LdSt { .. }),
            ..self
        }
    }

    /// The same AMD 8- or 16-bit `ds_write`/`ds_read` moving the high half
    /// of its 32-bit register (`ds_write_b16_d16_hi`); other instructions
    /// have no such form, and stay as they are.
    pub fn on_high_half(self) -> Mnemonic {
        Mnemonic {
            high_half: self.vendor == Vendor::Amd
                && matches!(self.instruction, Instruction::LdSt { bits: 8 | 16 }),
            ..self
        }
    }

    /// The same NVIDIA `ld/st.shared` of 32-bit operands moving them as
    /// 64-bit pairs (`st.shared.v2.b64` for `st.shared.v4.b32`,
    /// `st.shared.b64` for `st.shared.v2.b32`): how LLVM emits f32 on a
    /// machine with paired f32 arithmetic (`Machine::paired_f32`) when the
    /// values live in 64-bit registers, and sm100's wide vectors of
    /// booleans (`Machine::booleans_in_64_bit_words`). The caller knows
    /// what the elements are (packed halves have 32-bit operands too).
    /// Other instructions stay as they are.
    pub fn in_pairs(self) -> Mnemonic {
        let pairs = self.vendor == Vendor::Nvidia
            && self.operand_bits == 32
            && matches!(self.instruction, Instruction::LdSt { bits } if bits >= 64);
        Mnemonic {
            operand_bits: if pairs { 64 } else { self.operand_bits },
            ..self
        }
    }

    /// The same NVIDIA `ld/st.shared` moving bytes that live two to a
    /// 16-bit register (8-bit floats converted in pairs,
    /// `cvt.rn.satfinite.e4m3x2.f32`; two loaded bytes): as 16-bit words,
    /// `.b16`, `.v2.b16`, `.v4.b16` for two, four and eight bytes; sixteen
    /// stay `.v4.b32`. The caller knows the elements are bytes (four or
    /// eight of them already move as 32-bit operands). Other instructions
    /// stay as they are.
    pub fn in_byte_pairs(self) -> Mnemonic {
        let pairs = self.vendor == Vendor::Nvidia
            && matches!(self.instruction, Instruction::LdSt { bits: 16 | 32 | 64 });
        Mnemonic {
            operand_bits: if pairs { 16 } else { self.operand_bits },
            ..self
        }
    }

    /// The same NVIDIA `ld/st.shared` moving its narrow operands as words:
    /// two or four halves as 32-bit words (`st.shared.b32` for
    /// `st.shared.v2.b16`, `.v2.b32` for `.v4.b16`), two bytes as one
    /// 16-bit word (`ld.shared.b16` for `ld.shared.v2.b8`): how LLVM emits
    /// elements that live packed in one register, or that the instruction
    /// using them takes as a word. Other instructions stay as they are.
    pub fn in_words(self) -> Mnemonic {
        let word = match (self.operand_bits, self.instruction) {
            (16, Instruction::LdSt { bits: 32 | 64 }) => Some(32),
            (8, Instruction::LdSt { bits: 16 }) => Some(16),
            _ => None,
        };
        Mnemonic {
            operand_bits: word
                .filter(|_| self.vendor == Vendor::Nvidia)
                .unwrap_or(self.operand_bits),
            ..self
        }
    }

    /// The same load of one narrow element of `element_bits`,
    /// sign-extending it: how LLVM folds an element's sign extension into
    /// the load that reads it — NVIDIA's `ld.shared.s8` of a byte, AMD's
    /// `ds_read_i8` / `ds_read_i16` (`ds_load_i16` in GFX12's spelling).
    /// Other instructions (vectors, stores, several elements in one read)
    /// stay as they are.
    pub fn sign_extending(self, element_bits: u32) -> Mnemonic {
        let narrow = match (self.vendor, self.instruction) {
            (Vendor::Nvidia, Instruction::LdSt { bits }) => bits == 8 && element_bits == 8,
            (Vendor::Amd, Instruction::LdSt { bits }) => bits < 32 && bits == element_bits,
            _ => false,
        };
        Mnemonic {
            signed: narrow && self.direction == Direction::Load,
            ..self
        }
    }

    /// The opcode without width or count, as Triton's lowering names its
    /// choice: `st.shared`, `ldmatrix.trans`, `ld.shared::cluster`,
    /// `ds_write`, `ds_read2`.
    pub fn kind_name(&self) -> &'static str {
        match (self.vendor, self.instruction, self.direction) {
            (Vendor::Nvidia, Instruction::LdSt { .. }, Direction::Load) if self.cluster => {
                "ld.shared::cluster"
            }
            (Vendor::Amd, _, _) => self.family(),
            (_, instruction, direction) => instruction.kind_name(direction),
        }
    }

    /// Opcodes of one family (`ldmatrix`, `ds_read2`, `st.shared`): the
    /// opcode without widths, counts and modifiers, as a compiled kernel's
    /// instructions are counted by family.
    pub fn family(&self) -> &'static str {
        let load = self.direction == Direction::Load;
        match (self.vendor, self.instruction) {
            (_, Instruction::Matrix { .. }) => {
                if load {
                    "ldmatrix"
                } else {
                    "stmatrix"
                }
            }
            (_, Instruction::Paired { .. }) => match (self.spelling, load) {
                (LdsSpelling::Gcn, true) => "ds_read2",
                (LdsSpelling::Gcn, false) => "ds_write2",
                (LdsSpelling::Gfx12, true) => "ds_load_2addr",
                (LdsSpelling::Gfx12, false) => "ds_store_2addr",
            },
            (_, Instruction::ReadTransposed { generation, .. }) => match generation {
                TransposedRead::Cdna4 => "ds_read_tr",
                TransposedRead::Gfx1250 => "ds_load_tr",
            },
            (Vendor::Nvidia, Instruction::LdSt { .. }) => {
                if load {
                    "ld.shared"
                } else {
                    "st.shared"
                }
            }
            (Vendor::Amd, Instruction::LdSt { .. }) => match (self.spelling, load) {
                (LdsSpelling::Gcn, true) => "ds_read",
                (LdsSpelling::Gcn, false) => "ds_write",
                (LdsSpelling::Gfx12, true) => "ds_load",
                (LdsSpelling::Gfx12, false) => "ds_store",
            },
        }
    }
}

impl Mnemonic {
    /// AMD's verb for one vector per lane: `read`/`write`, `load`/`store`
    /// in GFX12's spelling.
    fn verb(&self) -> &'static str {
        match (self.spelling, self.direction) {
            (LdsSpelling::Gcn, Direction::Load) => "read",
            (LdsSpelling::Gcn, Direction::Store) => "write",
            (LdsSpelling::Gfx12, Direction::Load) => "load",
            (LdsSpelling::Gfx12, Direction::Store) => "store",
        }
    }
}

impl fmt::Display for Mnemonic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let load = self.direction == Direction::Load;
        match (self.vendor, self.instruction) {
            (_, Instruction::Matrix { count, trans }) => write!(
                f,
                "{}matrix.sync.aligned.m8n8.x{count}{}.shared.b16",
                if load { "ld" } else { "st" },
                if trans { ".trans" } else { "" }
            ),
            (_, Instruction::Paired { bits, st64 }) => match self.spelling {
                LdsSpelling::Gcn => write!(
                    f,
                    "ds_{}2{}_b{bits}",
                    if load { "read" } else { "write" },
                    if st64 { "st64" } else { "" }
                ),
                LdsSpelling::Gfx12 => write!(
                    f,
                    "ds_{}_2addr{}_b{bits}",
                    if load { "load" } else { "store" },
                    if st64 { "_stride64" } else { "" }
                ),
            },
            (
                _,
                Instruction::ReadTransposed {
                    element_bits,
                    generation,
                },
            ) => match generation {
                TransposedRead::Cdna4 => write!(f, "ds_read_b64_tr_b{element_bits}"),
                TransposedRead::Gfx1250 => write!(
                    f,
                    "ds_load_tr{element_bits}_b{}",
                    generation.bits(element_bits)
                ),
            },
            (Vendor::Nvidia, Instruction::LdSt { bits }) => {
                let operand = self.operand_bits.max(8);
                let op = if load { "ld" } else { "st" };
                let space = if self.cluster {
                    "shared::cluster"
                } else {
                    "shared"
                };
                match bits / operand {
                    0 | 1 if self.signed => write!(f, "{op}.{space}.s{operand}"),
                    0 | 1 => write!(f, "{op}.{space}.b{operand}"),
                    n => write!(f, "{op}.{space}.v{n}.b{operand}"),
                }
            }
            // The AMDGPU backend zero-extends narrow loads (`ds_read_u16`)
            // unless a sign extension was folded into them (`ds_read_i16`).
            (Vendor::Amd, Instruction::LdSt { bits }) if load && bits < 32 => {
                let extension = if self.signed { 'i' } else { 'u' };
                write!(f, "ds_{}_{extension}{bits}", self.verb())?;
                if self.high_half {
                    write!(f, "_d16_hi")?;
                }
                Ok(())
            }
            (Vendor::Amd, Instruction::LdSt { bits }) => {
                write!(f, "ds_{}_b{bits}", self.verb())?;
                if self.high_half {
                    write!(f, "_d16_hi")?;
                }
                Ok(())
            }
        }
    }
}

/// Text that names no shared-memory instruction layoutc knows.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{text}` is not a shared-memory instruction: \"vector\", \"ld.shared\"/\"st.shared\" (with .vN.bM), \"ldmatrix\"/\"stmatrix\" (with .x1/.x2/.x4 and .trans), AMD's \"ds_read_bN\"/\"ds_write_bN\", \"ds_read2_bN\"/\"ds_write2st64_bN\", gfx950's \"ds_read_b64_tr_bN\", or in GFX12's spelling \"ds_load_bN\"/\"ds_store_bN\", \"ds_load_2addr_bN\", gfx1250's \"ds_load_tr16_b128\"/\"ds_load_tr8_b64\""
)]
pub struct UnknownInstruction {
    pub text: String,
}

impl FromStr for Mnemonic {
    type Err = UnknownInstruction;

    /// Every spelling of a compiled kernel: `ld.shared.v4.b32`,
    /// `st.shared::cta.b16`, `ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16`,
    /// `ds_read_b128`, `ds_read_u16_d16_hi`, `ds_write2st64_b64`,
    /// `ds_read_b64_tr_b16`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        parse_mnemonic(text).ok_or_else(|| UnknownInstruction {
            text: text.to_string(),
        })
    }
}

fn direction_of(op: &str) -> Option<Direction> {
    match op {
        "ld" | "read" => Some(Direction::Load),
        "st" | "write" => Some(Direction::Store),
        _ => None,
    }
}

fn width(text: &str, allowed: &[u32]) -> Option<u32> {
    text.parse().ok().filter(|w| allowed.contains(w))
}

fn parse_mnemonic(text: &str) -> Option<Mnemonic> {
    if let Some((op, rest)) = text.split_once("matrix.sync.aligned.m8n8.x") {
        let direction = direction_of(op)?;
        let (count, rest) = rest.split_once('.')?;
        let count = width(count, &[1, 2, 4])?;
        let (trans, rest) = match rest.strip_prefix("trans.") {
            Some(r) => (true, r),
            None => (false, rest),
        };
        if !matches!(rest, "shared.b16" | "shared::cta.b16") {
            return None;
        }
        return Some(Instruction::Matrix { count, trans }.mnemonic(direction, Vendor::Nvidia, 16));
    }
    if let Some((op, rest)) = text.split_once(".shared") {
        let direction = direction_of(op)?;
        let (cluster, rest) = match rest.strip_prefix("::cluster") {
            Some(r) => (true, r),
            None => (false, rest.strip_prefix("::cta").unwrap_or(rest)),
        };
        let (count, rest) = match rest.strip_prefix(".v") {
            Some(r) => {
                let (n, r) = r.split_once('.')?;
                (width(n, &[2, 4])?, r)
            }
            None => (1, rest.strip_prefix('.')?),
        };
        let operand = match rest.as_bytes().first()? {
            b'b' | b'u' | b's' | b'f' => width(&rest[1..], &[8, 16, 32, 64])?,
            _ => return None,
        };
        let bits = count * operand;
        if bits > 128 {
            return None;
        }
        return Some(Mnemonic {
            instruction: Instruction::LdSt { bits },
            direction,
            vendor: Vendor::Nvidia,
            operand_bits: operand,
            cluster,
            high_half: false,
            signed: rest.starts_with('s')
                && count == 1
                && operand == 8
                && direction == Direction::Load,
            spelling: LdsSpelling::Gcn,
        });
    }
    if let Some(m) = gfx1250_transposed_read(text) {
        return Some(m);
    }
    if let Some(gcn) = gfx12_as_gcn(text) {
        return parse_mnemonic(&gcn).map(|m| m.spelled(LdsSpelling::Gfx12));
    }
    let rest = text.strip_prefix("ds_")?;
    if let Some(e) = rest.strip_prefix("read_b64_tr_b") {
        let element_bits = width(e, &[4, 8, 16])?;
        return Some(
            Instruction::ReadTransposed {
                element_bits,
                generation: TransposedRead::Cdna4,
            }
            .mnemonic(Direction::Load, Vendor::Amd, element_bits),
        );
    }
    let (op, rest) = rest.split_once(['_', '2'])?;
    let direction = direction_of(op)?;
    // `ds_read2_b64`, `ds_write2st64_b32`: `split_once` consumed the `2`.
    if let Some(paired) = text.strip_prefix(if direction == Direction::Load {
        "ds_read2"
    } else {
        "ds_write2"
    }) {
        let (st64, w) = match paired.strip_prefix("st64") {
            Some(w) => (true, w),
            None => (false, paired),
        };
        let bits = width(w.strip_prefix("_b")?, &[32, 64])?;
        return Some(Instruction::Paired { bits, st64 }.mnemonic(direction, Vendor::Amd, bits));
    }
    // `ds_read_b128`, `ds_read_u16`, `ds_read_i8`, `ds_write_b16_d16_hi`.
    let high_half = rest.ends_with("_d16_hi");
    let rest = rest
        .strip_suffix("_d16_hi")
        .or_else(|| rest.strip_suffix("_d16"))
        .unwrap_or(rest);
    let signed_or_unsigned = matches!(rest.as_bytes().first()?, b'u' | b'i');
    if signed_or_unsigned && direction == Direction::Store
        || !matches!(rest.as_bytes()[0], b'b' | b'u' | b'i')
    {
        return None;
    }
    let bits = width(&rest[1..], &[8, 16, 32, 64, 128])?;
    if (signed_or_unsigned || high_half) && bits >= 32 {
        return None;
    }
    let m = Instruction::LdSt { bits }.mnemonic(direction, Vendor::Amd, bits);
    let m = if rest.starts_with('i') {
        m.sign_extending(bits)
    } else {
        m
    };
    Some(if high_half { m.on_high_half() } else { m })
}

/// gfx1250's transposing reads: `ds_load_tr16_b128`, `ds_load_tr8_b64`.
fn gfx1250_transposed_read(text: &str) -> Option<Mnemonic> {
    let (element, width_text) = text.strip_prefix("ds_load_tr")?.split_once("_b")?;
    let element_bits = width(element, &[8, 16])?;
    let generation = TransposedRead::Gfx1250;
    (width(width_text, &[64, 128])? == generation.bits(element_bits)).then(|| {
        Instruction::ReadTransposed {
            element_bits,
            generation,
        }
        .mnemonic(Direction::Load, Vendor::Amd, element_bits)
        .spelled(LdsSpelling::Gfx12)
    })
}

/// A GFX12 LDS opcode in GCN's spelling (`ds_load_2addr_stride64_b64` is
/// `ds_read2st64_b64`, `ds_store_b16_d16_hi` is `ds_write_b16_d16_hi`);
/// `None` for any other text, and for transposing reads, which have no
/// GCN spelling ([`gfx1250_transposed_read`]).
fn gfx12_as_gcn(text: &str) -> Option<String> {
    let (verb, rest) = if let Some(rest) = text.strip_prefix("ds_load_") {
        ("read", rest)
    } else {
        ("write", text.strip_prefix("ds_store_")?)
    };
    if let Some(paired) = rest.strip_prefix("2addr_") {
        return Some(match paired.strip_prefix("stride64_") {
            Some(width) => format!("ds_{verb}2st64_{width}"),
            None => format!("ds_{verb}2_{paired}"),
        });
    }
    if rest.starts_with("tr") {
        return None;
    }
    Some(format!("ds_{verb}_{rest}"))
}

/// What a user may name for an access (`wavefronts(..., "ldmatrix.x4")`):
/// the widest vector, a family of matrix instructions, or one exact
/// instruction by its mnemonic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InstructionPattern {
    /// The direction the name implies (`ld.shared` loads); `None` for
    /// `vector`.
    pub direction: Option<Direction>,
    /// The vendor whose assembly the name is spelled in.
    pub vendor: Option<Vendor>,
    pub shape: PatternShape,
}

/// The instructions an [`InstructionPattern`] accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PatternShape {
    /// `vector`, `ld.shared`, `st.shared`: the widest vector.
    Widest,
    /// `ldmatrix`, `ldmatrix.x2`, `stmatrix.trans`: the widest legal count
    /// when none is given.
    Matrix { count: Option<u32>, trans: bool },
    /// One instruction by its exact mnemonic.
    Exact(Instruction),
}

impl InstructionPattern {
    pub fn matches(&self, instruction: Instruction) -> bool {
        match (self.shape, instruction) {
            (PatternShape::Widest, Instruction::LdSt { .. }) => true,
            (PatternShape::Matrix { count, trans }, Instruction::Matrix { count: c, trans: t }) => {
                count.is_none_or(|n| n == c) && trans == t
            }
            (PatternShape::Exact(i), j) => i == j,
            _ => false,
        }
    }
}

impl FromStr for InstructionPattern {
    type Err = UnknownInstruction;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let short = |direction, vendor, shape| InstructionPattern {
            direction,
            vendor,
            shape,
        };
        match text {
            "vector" => return Ok(short(None, None, PatternShape::Widest)),
            "ld.shared" => return Ok(short(Some(Direction::Load), None, PatternShape::Widest)),
            "st.shared" => return Ok(short(Some(Direction::Store), None, PatternShape::Widest)),
            _ => {}
        }
        // `ldmatrix`, `ldmatrix.x4`, `stmatrix.x2.trans`.
        for (op, direction) in [
            ("ldmatrix", Direction::Load),
            ("stmatrix", Direction::Store),
        ] {
            let Some(rest) = text.strip_prefix(op) else {
                continue;
            };
            let (count, trans) = match rest {
                "" => (None, false),
                ".trans" => (None, true),
                ".x1" | ".x2" | ".x4" => (rest[2..].parse().ok(), false),
                ".x1.trans" | ".x2.trans" | ".x4.trans" => (rest[2..3].parse().ok(), true),
                _ => break,
            };
            return Ok(short(
                Some(direction),
                Some(Vendor::Nvidia),
                PatternShape::Matrix { count, trans },
            ));
        }
        let m: Mnemonic = text.parse()?;
        let shape = match m.instruction {
            // An exact matrix mnemonic names its count.
            Instruction::Matrix { count, trans } => PatternShape::Matrix {
                count: Some(count),
                trans,
            },
            i => PatternShape::Exact(i),
        };
        Ok(short(Some(m.direction), Some(m.vendor), shape))
    }
}

/// Bytes of the shared-memory line NVIDIA's `cp.async.cg` (16 bytes, L1
/// bypassed) writes at a time. Timed on an H100
/// (`tests/vectors/cute/ldgsts_timing.json`), eight lanes writing eight
/// rows take as long when the rows are swizzled (no bank conflict) as when
/// they meet one bank group, about five times one row; `.ca` and
/// `st.shared` follow the banks. The hardware counters do not see these
/// writes.
pub const CP_ASYNC_CG_LINE_BYTES: u64 = 128;

/// Wavefronts of one phase of `cp.async.cg`: what its banks take, or the
/// lines it writes when those are more. `bytes`: the byte address of each
/// lane's request.
pub fn cp_async_cg_wavefronts(by_banks: u64, bytes: impl IntoIterator<Item = u64>) -> u64 {
    let lines: std::collections::BTreeSet<u64> = bytes
        .into_iter()
        .map(|b| b / CP_ASYNC_CG_LINE_BYTES)
        .collect();
    by_banks.max(lines.len() as u64)
}

/// Every instruction an access of `element_bits` elements may be served
/// with on `machine`, given the widest `ld/st` vector its layouts allow
/// (`widest_bits`) and the padding of its shared layout: the widest vector
/// first, narrower ones after it, then ldmatrix/stmatrix (8-, 16- or
/// 32-bit elements, `.trans` 16-bit only, unpadded layouts; 4 matrices
/// before 2 before 1), AMD's paired
/// accesses of 32- or 64-bit vectors (padded too: the pad of a constant
/// offset is a constant), and gfx950's transposing reads.
/// Whether the layouts allow one is the bank model's to say: counting it
/// fails when they do not.
pub fn candidates(
    machine: &Machine,
    direction: Direction,
    element_bits: u32,
    widest_bits: u32,
    padding: &[(u32, u32)],
) -> Vec<Instruction> {
    let mut out = Vec::new();
    let narrowest = element_bits.max(8);
    let mut bits = widest_bits.max(narrowest);
    while bits >= narrowest {
        out.push(Instruction::LdSt { bits });
        bits /= 2;
    }
    // Triton lowers a padded layout through plain vectors: ldmatrix and
    // stmatrix need a linear one.
    // Triton's `getSrcDstTiles`: the plain form for elements up to 32 bits,
    // the transposing one for 16-bit elements.
    if machine.matrix.matrix(direction) && [8, 16, 32].contains(&element_bits) && padding.is_empty()
    {
        for count in [4, 2, 1] {
            for trans in [false, true] {
                if !trans || element_bits == 16 {
                    out.push(Instruction::Matrix { count, trans });
                }
            }
        }
    }
    if machine.lds.paired {
        for bits in [64, 32]
            .into_iter()
            .filter(|&b| b <= widest_bits && b >= narrowest)
        {
            for st64 in [false, true] {
                out.push(Instruction::Paired { bits, st64 });
            }
        }
    }
    if direction == Direction::Load && machine.lds.transposed_read_bits.contains(&element_bits) {
        out.push(Instruction::ReadTransposed {
            element_bits,
            generation: machine.lds.transposed_read,
        });
    }
    out
}

/// The instruction Triton 3.9 and the compiler below it use for `access`
/// (whose `instruction` is the widest vector its layouts allow) on
/// `machine`: on gfx950 a transposing `ds_read_b64_tr_bN` where Triton's
/// AMD backend picks one ([`super::transposed_read_applies`]); ldmatrix to
/// load and stmatrix to store 16-bit elements where the layouts allow them
/// and the machine has them; else the widest vector, which on AMD LLVM
/// turns into `ds_read2`/`ds_write2` where it pairs two requests of a lane
/// ([`super::paired_instruction`]).
pub fn triton_choice(
    machine: &Machine,
    access: &super::Access,
    padding: &[(u32, u32)],
) -> Instruction {
    let widest = access.instruction;
    let legal = |instruction: Instruction| {
        super::wavefronts_by_rank(
            &super::Access {
                instruction,
                ..*access
            },
            &machine.banks,
        )
        .is_ok()
    };
    let max_vector = padding.iter().map(|&(interval, _)| interval as u64).min();
    let options = candidates(
        machine,
        access.direction,
        access.element_bits,
        widest.bits_per_lane(),
        padding,
    );
    for &option in &options {
        let chosen = match option {
            Instruction::ReadTransposed {
                element_bits,
                generation,
            } => super::transposed_read_applies(
                access.distributed,
                access.shared,
                element_bits,
                generation,
                max_vector,
            ),
            Instruction::Matrix { .. } => true,
            Instruction::LdSt { .. } | Instruction::Paired { .. } => false,
        };
        if chosen && legal(option) {
            return option;
        }
    }
    if options
        .iter()
        .any(|i| matches!(i, Instruction::Paired { .. }))
        && let Ok(Some(paired)) = super::paired_instruction(access, padding)
    {
        return paired;
    }
    widest
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every mnemonic prints as it parses, and parses back to itself.
    #[test]
    fn mnemonics_print_as_they_parse() {
        for text in [
            "st.shared.v4.b32",
            "ld.shared.v2.b16",
            "ld.shared.b8",
            "st.shared.v2.b64",
            "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
            "stmatrix.sync.aligned.m8n8.x2.shared.b16",
            "ds_read_b128",
            "ds_read_u16",
            "ds_write_b16",
            "ds_read2st64_b64",
            "ds_write2_b32",
            "ds_read_b64_tr_b8",
        ] {
            let m: Mnemonic = text.parse().unwrap();
            assert_eq!(m.to_string(), text);
        }
    }

    #[test]
    fn triton_packs_more_than_four_narrow_elements_into_words() {
        let m = |bits, e| Instruction::LdSt { bits }.mnemonic(Direction::Store, Vendor::Nvidia, e);
        assert_eq!(m(128, 16).to_string(), "st.shared.v4.b32");
        assert_eq!(m(64, 16).to_string(), "st.shared.v4.b16");
        assert_eq!(m(32, 16).to_string(), "st.shared.v2.b16");
        assert_eq!(m(64, 8).to_string(), "st.shared.v2.b32");
        assert_eq!(m(128, 64).to_string(), "st.shared.v2.b64");
        assert_eq!(m(8, 4).to_string(), "st.shared.b8");
    }

    #[test]
    fn narrow_elements_in_words_move_as_word_operands() {
        let m = |bits, e| Instruction::LdSt { bits }.mnemonic(Direction::Load, Vendor::Nvidia, e);
        assert_eq!(m(32, 16).in_words().to_string(), "ld.shared.b32");
        assert_eq!(m(64, 16).in_words().to_string(), "ld.shared.v2.b32");
        // Already words, or a single half: as they were.
        assert_eq!(m(128, 16).in_words().to_string(), "ld.shared.v4.b32");
        assert_eq!(m(16, 16).in_words().to_string(), "ld.shared.b16");
        assert_eq!(m(32, 8).in_words().to_string(), "ld.shared.b32");
        assert_eq!(m(16, 8).in_words().to_string(), "ld.shared.b16");
        assert_eq!(m(8, 8).in_words().to_string(), "ld.shared.b8");
        let amd = Instruction::LdSt { bits: 64 }.mnemonic(Direction::Load, Vendor::Amd, 16);
        assert_eq!(amd.in_words(), amd);
    }

    #[test]
    fn bytes_in_pairs_move_as_16_bit_words() {
        let m = |bits| Instruction::LdSt { bits }.mnemonic(Direction::Store, Vendor::Nvidia, 8);
        assert_eq!(m(16).in_byte_pairs().to_string(), "st.shared.b16");
        assert_eq!(m(32).in_byte_pairs().to_string(), "st.shared.v2.b16");
        assert_eq!(m(64).in_byte_pairs().to_string(), "st.shared.v4.b16");
        assert_eq!(m(128).in_byte_pairs().to_string(), "st.shared.v4.b32");
        assert_eq!(m(8).in_byte_pairs().to_string(), "st.shared.b8");
    }

    /// A byte only sign-extended is read with `ld.shared.s8`, which parses
    /// back to itself; a vector, a store or a half stay as they are.
    #[test]
    fn a_sign_extended_byte_is_read_signed() {
        let m = |bits, e, d| Instruction::LdSt { bits }.mnemonic(d, Vendor::Nvidia, e);
        let signed = m(8, 8, Direction::Load).sign_extending(8);
        assert_eq!(signed.to_string(), "ld.shared.s8");
        assert_eq!("ld.shared.s8".parse::<Mnemonic>().unwrap(), signed);
        assert_eq!(
            "ld.shared.b8".parse::<Mnemonic>().unwrap(),
            m(8, 8, Direction::Load)
        );
        for same in [
            m(16, 8, Direction::Load),
            m(8, 8, Direction::Store),
            m(16, 16, Direction::Load),
        ] {
            assert_eq!(same.sign_extending(8), same);
        }
    }

    /// AMD reads one narrow element sign-extended with `ds_read_i16` /
    /// `ds_read_i8` (`ds_load_i16` in GFX12's spelling), which parse back to
    /// themselves; two bytes in one read, a dword and a store stay as they
    /// are.
    #[test]
    fn amd_reads_a_sign_extended_element_signed() {
        let m = |bits, d| Instruction::LdSt { bits }.mnemonic(d, Vendor::Amd, bits);
        for (bits, text, gfx12) in [
            (16, "ds_read_i16", "ds_load_i16"),
            (8, "ds_read_i8", "ds_load_i8"),
        ] {
            let signed = m(bits, Direction::Load).sign_extending(bits);
            assert_eq!(signed.to_string(), text);
            assert_eq!(text.parse::<Mnemonic>().unwrap(), signed);
            let spelled = signed.spelled(LdsSpelling::Gfx12);
            assert_eq!(spelled.to_string(), gfx12);
            assert_eq!(gfx12.parse::<Mnemonic>().unwrap(), spelled);
        }
        assert_eq!(
            "ds_read_u16".parse::<Mnemonic>().unwrap(),
            m(16, Direction::Load)
        );
        for (same, element) in [
            (m(16, Direction::Load), 8),
            (m(32, Direction::Load), 32),
            (m(16, Direction::Store), 16),
        ] {
            assert_eq!(same.sign_extending(element), same);
        }
    }

    #[test]
    fn other_spellings_of_the_compiler_parse() {
        let m: Mnemonic = "ds_write_b16_d16_hi".parse().unwrap();
        assert_eq!(m.instruction, Instruction::LdSt { bits: 16 });
        assert_eq!(m.to_string(), "ds_write_b16_d16_hi");
        let low = Instruction::LdSt { bits: 16 }.mnemonic(Direction::Store, Vendor::Amd, 16);
        assert_eq!(low.on_high_half(), m);
        let m: Mnemonic = "ds_write_b8_d16_hi".parse().unwrap();
        assert_eq!(m.to_string(), "ds_write_b8_d16_hi");
        // Only 8- and 16-bit accesses have the form.
        let word = Instruction::LdSt { bits: 32 }.mnemonic(Direction::Store, Vendor::Amd, 32);
        assert_eq!(word.on_high_half(), word);
        assert!("ds_write_b32_d16_hi".parse::<Mnemonic>().is_err());
        let m: Mnemonic = "st.shared::cta.v2.u32".parse().unwrap();
        assert_eq!(m.instruction, Instruction::LdSt { bits: 64 });
        // A load from another CTA of the cluster (after `mapa`).
        let m: Mnemonic = "ld.shared::cluster.v4.b32".parse().unwrap();
        assert_eq!(m.instruction, Instruction::LdSt { bits: 128 });
        assert_eq!(m.to_string(), "ld.shared::cluster.v4.b32");
        assert_eq!(m.kind_name(), "ld.shared::cluster");
        let local = Instruction::LdSt { bits: 128 }.mnemonic(Direction::Load, Vendor::Nvidia, 32);
        assert_eq!(local.in_cluster(), m);
        // Only ld/st.shared can address another CTA.
        let ldmatrix = Instruction::Matrix {
            count: 4,
            trans: false,
        }
        .mnemonic(Direction::Load, Vendor::Nvidia, 16);
        assert_eq!(ldmatrix.in_cluster(), ldmatrix);
        for bad in [
            "ds_write_u16",
            "ld.shared.v8.b32",
            "ldmatrix.x3",
            "ds_read2_b128",
            "mov",
        ] {
            assert!(bad.parse::<Mnemonic>().is_err(), "{bad}");
        }
    }

    #[test]
    fn gfx12_spells_the_same_instructions_its_own_way() {
        // Opcodes of kernels compiled for gfx1250 by the Triton 3.9 wheel
        // (tests/corpus/kernels/*_gfx1250.ttgir), each the instruction its
        // GCN spelling names.
        for (gfx12, gcn) in [
            ("ds_load_b128", "ds_read_b128"),
            ("ds_load_b64", "ds_read_b64"),
            ("ds_store_b64", "ds_write_b64"),
            ("ds_load_u16", "ds_read_u16"),
            ("ds_store_b16_d16_hi", "ds_write_b16_d16_hi"),
            ("ds_load_2addr_b32", "ds_read2_b32"),
            ("ds_store_2addr_stride64_b32", "ds_write2st64_b32"),
            ("ds_load_2addr_stride64_b64", "ds_read2st64_b64"),
        ] {
            let m: Mnemonic = gfx12.parse().unwrap();
            let g: Mnemonic = gcn.parse().unwrap();
            assert_eq!(m.to_string(), gfx12);
            assert_eq!((m.instruction, m.direction), (g.instruction, g.direction));
            assert_eq!(g.spelled(LdsSpelling::Gfx12), m);
            assert_eq!(m.spelled(LdsSpelling::Gcn).to_string(), gcn);
        }
        assert_eq!(
            "ds_load_2addr_b64".parse::<Mnemonic>().unwrap().family(),
            "ds_load_2addr"
        );
        // gfx1250's transposing reads: 128 bits of halves, 64 of bytes.
        for (text, element_bits) in [("ds_load_tr16_b128", 16), ("ds_load_tr8_b64", 8)] {
            let m: Mnemonic = text.parse().unwrap();
            assert_eq!(
                m.instruction,
                Instruction::ReadTransposed {
                    element_bits,
                    generation: TransposedRead::Gfx1250
                }
            );
            assert_eq!(m.to_string(), text);
            assert_eq!(m.family(), "ds_load_tr");
        }
        for bad in ["ds_load_tr16_b64", "ds_load_tr4_b64", "ds_store_tr16_b128"] {
            assert!(bad.parse::<Mnemonic>().is_err(), "{bad}");
        }
        assert!("ds_store_u16".parse::<Mnemonic>().is_err());
    }

    #[test]
    fn short_names_are_patterns() {
        let p: InstructionPattern = "ldmatrix.x2.trans".parse().unwrap();
        assert!(p.matches(Instruction::Matrix {
            count: 2,
            trans: true
        }));
        assert!(!p.matches(Instruction::Matrix {
            count: 4,
            trans: true
        }));
        let p: InstructionPattern = "ds_read_b64".parse().unwrap();
        assert_eq!(p.vendor, Some(Vendor::Amd));
        assert!(p.matches(Instruction::LdSt { bits: 64 }));
        let p: InstructionPattern = "vector".parse().unwrap();
        assert_eq!(p.direction, None);
        assert!("ldmatrix.x8".parse::<InstructionPattern>().is_err());
    }
}
