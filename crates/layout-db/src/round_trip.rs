//! The instructions of a round trip through shared memory, as the compiled
//! kernel issues them: the store of one distributed layout into a swizzled
//! buffer and the load of another out of it, each vectorised on its own and,
//! on AMD, paired by LLVM into `ds_read2`/`ds_write2` where the offsets
//! allow (as any access is). A conversion's analysis
//! (`convert(...)`, W0401) and the kernel summary (conversions, and the
//! conversion that closes a reduction) both count them here.

use layout_algebra::LinearLayout;
use layout_algebra::bank::{Access, Direction, Instruction, Mnemonic};
use layout_algebra::machine::{Machine, Vendor};

/// One side of the round trip.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RoundTripSide {
    /// As the PTX or AMDGCN spells the opcode.
    pub mnemonic: Mnemonic,
    /// Static count per thread.
    pub count: u64,
    /// Wavefronts one warp needs for all of them.
    pub wavefronts: u64,
    /// Extra wavefronts per wavefront (0: conflict-free).
    pub conflicts: u64,
    /// How many of `count` move the high half of their register (AMD's
    /// `_d16_hi` form of an 8- or 16-bit store).
    pub high_half: u64,
    /// NVIDIA: a load of booleans LLVM splits into its bytes (see
    /// [`RoundTripSide::booleans_apart`]).
    pub bytes_apart: bool,
    /// AMD: a paired side's pairs by encoding and the requests left single,
    /// which `count` counts together.
    pub pairs: Option<layout_algebra::bank::PairCounts>,
}

impl RoundTripSide {
    /// The store of a value whose 8- or 16-bit registers were loaded from
    /// memory in vectors along `contiguous_dim` (of `layout`, the stored
    /// layout): on AMD, those at bit 16 of their register go with the
    /// `_d16_hi` form (pairs of bytes too on a machine with
    /// `LdsInstructions::byte_pairs_from_high_half`).
    pub fn with_packed_registers(
        mut self,
        layout: &LinearLayout,
        element_bits: u32,
        contiguous_dim: usize,
        lds: &layout_algebra::machine::LdsInstructions,
    ) -> RoundTripSide {
        if self.mnemonic.vendor == Vendor::Amd && self.mnemonic.direction == Direction::Store {
            self.high_half = layout_algebra::bank::high_half_share(
                layout,
                element_bits,
                self.mnemonic.instruction,
                contiguous_dim,
                lds.byte_pairs_from_high_half,
            )
            .map_or(0, |n| self.count / n);
        }
        self
    }

    /// The store of a value whose 8- or 16-bit elements sit packed in
    /// 32-bit registers in register order (`kernel::packed_narrow_values`):
    /// on AMD, the stores of what sits at bit 16 of a register take the
    /// `_d16_hi` form (pairs of bytes too on a machine with
    /// `LdsInstructions::byte_pairs_from_high_half`).
    pub fn with_packed_register_order(
        mut self,
        layout: &LinearLayout,
        element_bits: u32,
        lds: &layout_algebra::machine::LdsInstructions,
    ) -> RoundTripSide {
        if self.mnemonic.vendor == Vendor::Amd && self.mnemonic.direction == Direction::Store {
            self.high_half = layout_algebra::bank::high_half_share_of_packed_registers(
                layout,
                element_bits,
                self.mnemonic.instruction,
                lds.byte_pairs_from_high_half,
            )
            .map_or(0, |n| self.count / n);
        }
        self
    }

    /// The store of a value each of whose 16-bit elements sits in the high
    /// half of its own register (`kernel::high_half_values`): on AMD every
    /// scalar store takes the `_d16_hi` form.
    pub fn from_high_halves(mut self) -> RoundTripSide {
        if self.mnemonic.vendor == Vendor::Amd
            && self.mnemonic.direction == Direction::Store
            && self.mnemonic.instruction == (Instruction::LdSt { bits: 16 })
        {
            self.high_half = self.count;
        }
        self
    }

    /// The load of `i1` that LLVM reads as booleans (a condition, a mask,
    /// a combine's operands): each two- or four-byte vector as `<2 x i1>` /
    /// `<4 x i1>`, which NVPTX splits into its bytes — two `ld.shared.b8`,
    /// or `ld.shared.b16` and two `ld.shared.b8` — as the PTX of compiled
    /// kernels shows. Wider vectors stay whole, in 64-bit words on a
    /// machine with `booleans_in_64_bit_words`.
    pub fn booleans_apart(mut self, in_64_bit_words: bool) -> RoundTripSide {
        let nvidia_load =
            self.mnemonic.vendor == Vendor::Nvidia && self.mnemonic.direction == Direction::Load;
        self.bytes_apart = nvidia_load
            && matches!(
                self.mnemonic.instruction,
                Instruction::LdSt { bits: 16 | 32 }
            );
        if nvidia_load && in_64_bit_words {
            self.mnemonic = self.mnemonic.in_pairs();
        }
        self
    }

    /// The load of 32-bit values (the caller knows) LLVM's vectoriser takes
    /// two at a time on a machine without 64-bit pairs of them: each
    /// 128-bit vector is read
    /// as two 64-bit halves (`ld.shared.v4.b32` as two `ld.shared.v2.b32`),
    /// which move the same bytes in as many wavefronts. Other loads stay as
    /// they are.
    pub fn split_in_halves(mut self) -> RoundTripSide {
        if self.mnemonic.vendor == Vendor::Nvidia
            && self.mnemonic.direction == Direction::Load
            && self.mnemonic.instruction == (Instruction::LdSt { bits: 128 })
        {
            self.mnemonic.instruction = Instruction::LdSt { bits: 64 };
            self.count *= 2;
        }
        self
    }

    /// The side's instructions by exact opcode: the `_d16_hi` ones apart,
    /// each with its share of the wavefronts (their addresses are the
    /// others' moved by one register's offset, which leaves the banks'
    /// load as it is).
    pub fn by_opcode(&self) -> Vec<RoundTripSide> {
        if let (Some(pairs), Instruction::Paired { bits, .. }) =
            (self.pairs, self.mnemonic.instruction)
        {
            return pairs
                .split(bits, self.wavefronts)
                .into_iter()
                .map(|(instruction, count, wavefronts)| RoundTripSide {
                    mnemonic: self.mnemonic.as_instruction(instruction),
                    count,
                    wavefronts,
                    high_half: 0,
                    bytes_apart: false,
                    pairs: None,
                    ..self.clone()
                })
                .collect();
        }
        if self.bytes_apart {
            // Each piece reads some of the vector's bytes, in the same
            // words: as many wavefronts as the vector took.
            let piece = |bits: u32, per_vector: u64| RoundTripSide {
                mnemonic: Instruction::LdSt { bits }.mnemonic(
                    Direction::Load,
                    Vendor::Nvidia,
                    bits,
                ),
                count: self.count * per_vector,
                wavefronts: self.wavefronts * per_vector,
                high_half: 0,
                bytes_apart: false,
                pairs: None,
                ..self.clone()
            };
            return match self.mnemonic.instruction {
                Instruction::LdSt { bits: 32 } => vec![piece(16, 1), piece(8, 2)],
                _ => vec![piece(8, 2)],
            };
        }
        if self.high_half == 0 {
            return vec![self.clone()];
        }
        if self.high_half >= self.count {
            return vec![RoundTripSide {
                mnemonic: self.mnemonic.on_high_half(),
                high_half: 0,
                ..self.clone()
            }];
        }
        let high_wavefronts = self.wavefronts * self.high_half / self.count;
        vec![
            RoundTripSide {
                count: self.count - self.high_half,
                wavefronts: self.wavefronts - high_wavefronts,
                high_half: 0,
                bytes_apart: false,
                pairs: None,
                ..self.clone()
            },
            RoundTripSide {
                mnemonic: self.mnemonic.on_high_half(),
                count: self.high_half,
                wavefronts: high_wavefronts,
                high_half: 0,
                bytes_apart: false,
                pairs: None,
                ..self.clone()
            },
        ]
    }
}

/// Whether each 32-bit word of the vector that moves `layout` through the
/// buffer `swizzle` holds consecutive registers (the layout's first
/// register bits, in order): only then is the word one register LLVM
/// packed or will pack, which it moves whole.
pub fn words_hold_consecutive_registers(
    layout: &LinearLayout,
    swizzle: &LinearLayout,
    element_bits: u32,
) -> bool {
    let per_word = (32 / element_bits.clamp(1, 32)).trailing_zeros() as usize;
    layout_algebra::triton::convert_layout::as_offset_layout(swizzle)
        .ok()
        .and_then(|buffer| {
            layout_algebra::bank::compiled_vector_registers(layout, &buffer, element_bits).ok()
        })
        .is_some_and(|r| r.iter().take(per_word).enumerate().all(|(i, &b)| i == b))
}

/// What a round trip is counted on.
pub struct RoundTrip<'a> {
    /// The layouts stored and loaded (`register, lane, warp, block -> dims`).
    pub sides: [&'a LinearLayout; 2],
    pub element_bits: u32,
    /// The swizzled buffer (`vector, bank, segment, block, reps -> dims`).
    pub swizzle: &'a LinearLayout,
    /// The kinds Triton's swizzle search paired, of any width.
    pub kinds: [Instruction; 2],
    /// The loads read other CTAs of the cluster.
    pub remote_load: bool,
    /// Triton's measure of each side's conflicts, used where the warp's
    /// requests cannot be enumerated.
    pub conflicts: [u64; 2],
}

impl RoundTrip<'_> {
    /// The store and the load. Each side is vectorised on its own: as wide
    /// as its registers run along the buffer (LLVM merges accesses whose
    /// registers only reorder a vector). `None` when the swizzle is not an
    /// offset layout.
    pub fn sides(
        &self,
        machine: &Machine,
        vendor: Vendor,
        threads_per_warp: u32,
    ) -> Option<[RoundTripSide; 2]> {
        let buffer = layout_algebra::triton::convert_layout::as_offset_layout(self.swizzle).ok()?;
        let bits = self.element_bits;
        // The rounds the data goes through the buffer in: a matrix
        // instruction only reads or writes what one round holds.
        let rounds = self.swizzle.in_dim_size("reps");
        let side = |i: usize| {
            let direction = [Direction::Store, Direction::Load][i];
            let layout = self.sides[i];
            let registers = distinct_registers(layout);
            let instruction = match self.kinds[i] {
                // One to four 8x8 matrices: a 32-bit register each, of
                // those one round moves.
                Instruction::Matrix { trans, .. } => Instruction::Matrix {
                    count: (registers * bits as u64 / 32 / rounds).clamp(1, 4) as u32,
                    trans,
                },
                _ => {
                    let vector = layout_algebra::bank::compiled_vectorisation(layout, &buffer, bits)
                        .unwrap_or(1)
                        .max(1) as u32;
                    Instruction::LdSt {
                        bits: (vector * bits).min(128),
                    }
                }
            };
            let mut access = Access {
                distributed: layout,
                shared: &buffer,
                element_bits: bits,
                instruction,
                direction,
            };
            // On AMD, LLVM pairs two vectors of a lane into one `ds_read2` /
            // `ds_write2` where their offsets allow, as for any access.
            if vendor == Vendor::Amd
                && machine.lds.paired
                && let Ok(Some(paired)) = layout_algebra::bank::paired_instruction(&access, &[])
            {
                access.instruction = paired;
            }
            let instruction = access.instruction;
            // A matrix instruction moves a 32-bit register per matrix.
            let per_lane = match instruction {
                Instruction::Matrix { count, .. } => 32 * count as u64,
                _ => instruction.bits_per_lane() as u64,
            };
            let mut count = (registers * bits as u64).div_ceil(per_lane).max(1);
            // The warp's requests as the hardware serves them: lanes that
            // hold the same element (a broadcast layout) ask for one word
            // once, which Triton's conflict measure does not see.
            let (wavefronts, conflicts) =
                match layout_algebra::bank::wavefronts_by_enumeration(&access, &machine.banks) {
                    Ok(w) => {
                        // Pairs and the vectors left alone, as LLVM forms them.
                        if matches!(instruction, Instruction::Paired { .. }) {
                            count = w.instructions.max(1);
                        }
                        (
                            w.wavefronts,
                            (w.wavefronts / w.ideal.max(1)).saturating_sub(1),
                        )
                    }
                    Err(_) => {
                        let per_wavefront =
                            (threads_per_warp as u64 * per_lane).div_ceil(1024).max(1);
                        (
                            count * per_wavefront * (1 + self.conflicts[i]),
                            self.conflicts[i],
                        )
                    }
                };
            let mnemonic = instruction
                .mnemonic(direction, vendor, bits)
                .spelled(machine.lds.spelling);
            let pairs = layout_algebra::bank::pair_counts(&access, &[])
                .ok()
                .flatten();
            RoundTripSide {
                mnemonic: if direction == Direction::Load && self.remote_load {
                    mnemonic.in_cluster()
                } else {
                    mnemonic
                },
                count,
                wavefronts,
                conflicts,
                // Which registers share a 32-bit register depends on how
                // the value was made (`with_packed_registers`).
                high_half: 0,
                bytes_apart: false,
                pairs,
            }
        };
        Some([side(0), side(1)])
    }
}

/// Registers a thread holds, without the ones that repeat another's element.
pub(crate) fn distinct_registers(layout: &LinearLayout) -> u64 {
    let n = layout.in_dim_size_log2("register") as usize;
    let live = (0..n)
        .filter(|&i| {
            layout
                .basis("register", i)
                .is_ok_and(|b| b.iter().any(|&c| c != 0))
        })
        .count();
    1 << live
}
