//! The exact cost of a candidate shared layout: for every access, the
//! instruction it would use and the wavefronts one warp needs.

use layout_algebra::bank::{self, AccessGeometry, Direction, Instruction, OffsetMap, Wavefronts};
use layout_algebra::machine::SharedInstructions;

use crate::request::{Family, InstructionPolicy, Machine, SwizzleRequest};

/// A shared layout being considered: a linear map from tensor coordinates
/// to offsets, and the padding inserted after it (none for XOR swizzles).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Candidate {
    pub map: OffsetMap,
    /// `(interval, pad)` pairs in elements, Triton's `[interval:+pad]`.
    pub padding: Vec<(u32, u32)>,
    /// The rounds the data goes through the buffer in: Triton's own
    /// conversion when its swizzle has `reps` (an ldmatrix/stmatrix then
    /// moves one round's matrices); 1 for every answer, whose buffer holds
    /// the whole tensor.
    pub rounds: u32,
}

/// The matrices (a 32-bit register each) one round of a thread's
/// `2^register_bases` elements of `element_bits` fills.
fn matrices_per_round(element_bits: u32, register_bases: usize, rounds: u32) -> u64 {
    let bits = u32::try_from(register_bases)
        .ok()
        .and_then(|n| u64::from(element_bits).checked_shl(n))
        .unwrap_or(u64::MAX);
    bits / 32 / u64::from(rounds.max(1))
}

impl Candidate {
    pub fn linear(map: OffsetMap) -> Candidate {
        Candidate {
            map,
            padding: Vec::new(),
            rounds: 1,
        }
    }

    /// Elements the buffer needs: the largest padded offset plus one.
    pub fn scratch_elements(&self, tensor_elements: u64) -> u64 {
        bank::padded_offset(&self.padding, tensor_elements - 1) + 1
    }
}

/// What one access costs with a candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccessCost {
    pub direction: Direction,
    pub instruction: Instruction,
    /// Bits each lane moves per instruction.
    pub vector_bits: u32,
    pub counts: Wavefronts,
    /// Triton's measure: extra wavefronts per wavefront.
    pub conflicts: u64,
    /// For a paired instruction, how many of its instructions are pairs
    /// (by encoding) and how many requests stay single.
    pub pairs: Option<bank::PairCounts>,
}

impl AccessCost {
    /// The instructions the access issues, by kind (one kind unless the
    /// compiler pairs only some requests).
    pub fn mix(&self) -> Vec<(Instruction, u64)> {
        match (self.pairs, self.instruction) {
            (Some(p), Instruction::Paired { bits, .. }) => p.mix(bits),
            _ => vec![(self.instruction, self.counts.instructions)],
        }
    }
}

/// The cost of a candidate for the whole request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Score {
    pub accesses: Vec<AccessCost>,
    /// Wavefronts, each access's weighted.
    pub weighted: u64,
    pub read_wavefronts: u64,
    pub write_wavefronts: u64,
    pub scratch_bytes: u64,
}

impl Score {
    /// The objective: fewest weighted wavefronts, then the widest vectors,
    /// then the least scratch. Smaller is better.
    pub fn key(&self) -> (u64, std::cmp::Reverse<u64>, u64) {
        let vectors = self.accesses.iter().map(|a| a.vector_bits as u64).sum();
        (
            self.weighted,
            std::cmp::Reverse(vectors),
            self.scratch_bytes,
        )
    }

    pub fn read_conflicts(&self) -> u64 {
        self.worst(Direction::Load)
    }

    pub fn write_conflicts(&self) -> u64 {
        self.worst(Direction::Store)
    }

    fn worst(&self, direction: Direction) -> u64 {
        self.accesses
            .iter()
            .filter(|a| a.direction == direction)
            .map(|a| a.conflicts)
            .max()
            .unwrap_or(0)
    }
}

/// The geometry of every access of a request, computed once.
#[derive(Clone, Debug)]
pub struct Problem<'a> {
    pub request: &'a SwizzleRequest,
    pub geometries: Vec<AccessGeometry>,
    /// For each access, the tensor dim its registers run along where
    /// Triton's AMD backend may read it transposed
    /// ([`bank::transposed_read_register_dim`]); `None` where it never does.
    transposed_dims: Vec<Option<usize>>,
}

impl<'a> Problem<'a> {
    pub fn new(request: &'a SwizzleRequest) -> layout_algebra::Result<Problem<'a>> {
        let geometries = request
            .accesses
            .iter()
            .map(|a| {
                let layout = a.layout.transpose_outs(
                    &request
                        .tensor
                        .iter()
                        .map(|(n, _)| n.clone())
                        .collect::<Vec<_>>(),
                )?;
                AccessGeometry::new(&layout, request.element_bits)
            })
            .collect::<layout_algebra::Result<_>>()?;
        let names: Vec<_> = request.tensor.iter().map(|(n, _)| n.clone()).collect();
        let transposed_dims = request
            .accesses
            .iter()
            .map(|a| {
                let layout = a.layout.transpose_outs(&names).ok()?;
                bank::transposed_read_register_dim(&layout, request.element_bits)
            })
            .collect();
        Ok(Problem {
            request,
            geometries,
            transposed_dims,
        })
    }

    pub fn tensor_bits(&self) -> u32 {
        self.request
            .tensor
            .iter()
            .map(|(_, s)| s.trailing_zeros())
            .sum()
    }

    /// The exact cost of `candidate`, or `None` when an access cannot use
    /// it within the request's limits (a vector narrower than asked, or a
    /// buffer over budget).
    pub fn score(&self, candidate: &Candidate) -> Option<Score> {
        self.score_within(candidate, u64::MAX)
    }

    /// [`Self::score`], or `None` as soon as the weighted wavefronts pass
    /// `limit` (a candidate that cannot beat what is already found is not
    /// counted to the end).
    pub fn score_within(&self, candidate: &Candidate, limit: u64) -> Option<Score> {
        let req = self.request;
        // Offsets the request pins must hold the coordinates it gives.
        if req
            .fixed
            .iter()
            .any(|&(bit, coordinate)| candidate.map.apply(coordinate) != 1 << bit)
        {
            return None;
        }
        let elements = 1u64 << self.tensor_bits();
        let scratch_bytes = candidate.scratch_elements(elements) * req.element_bits as u64 / 8;
        if req.budget_bytes.is_some_and(|b| scratch_bytes > b) {
            return None;
        }
        let mut accesses = Vec::with_capacity(req.accesses.len());
        let mut weighted = 0;
        let (mut reads, mut writes) = (0, 0);
        for (access, geometry) in req.accesses.iter().zip(&self.geometries) {
            let cost = self.access_cost(accesses.len(), geometry, access.direction, candidate)?;
            if req
                .min_vector_bits
                .is_some_and(|min| cost.vector_bits < min)
            {
                return None;
            }
            weighted += access.weight * cost.counts.wavefronts;
            if weighted > limit {
                return None;
            }
            match access.direction {
                Direction::Load => reads += cost.counts.wavefronts,
                Direction::Store => writes += cost.counts.wavefronts,
            }
            accesses.push(cost);
        }
        Some(Score {
            accesses,
            weighted,
            read_wavefronts: reads,
            write_wavefronts: writes,
            scratch_bytes,
        })
    }

    /// The cost of `candidate` with the instructions Triton itself emits
    /// for it ([`bank::triton_choice`]), whatever the request allows: what
    /// a kernel compiled with this layout does, where its lowering may use
    /// the matrix instructions `matrix` allows.
    pub fn as_compiled(&self, candidate: &Candidate, matrix: SharedInstructions) -> Option<Score> {
        let req = self.request;
        let machine = Machine {
            matrix: SharedInstructions {
                ldmatrix: matrix.ldmatrix && req.machine.matrix.ldmatrix,
                stmatrix: matrix.stmatrix && req.machine.matrix.stmatrix,
                ..req.machine.matrix
            },
            ..req.machine.clone()
        };
        let eb = req.element_bits;
        let names: Vec<_> = req.tensor.iter().map(|(n, _)| n.clone()).collect();
        let shared = candidate.map.to_shared_layout(&req.tensor).ok()??;
        let padding = &candidate.padding;
        let mut accesses = Vec::with_capacity(req.accesses.len());
        let (mut weighted, mut reads, mut writes) = (0, 0, 0);
        for access in &req.accesses {
            let layout = access.layout.transpose_outs(&names).ok()?;
            let mut vector = if padding.is_empty() {
                bank::compiled_vectorisation(&layout, &shared, eb).ok()?
            } else {
                bank::largest_vectorisation(&layout, &shared, eb).ok()?.0
            };
            for &(interval, _) in padding {
                vector = vector.min(interval as u64);
            }
            let mut a = bank::Access {
                distributed: &layout,
                shared: &shared,
                element_bits: eb,
                instruction: Instruction::LdSt {
                    bits: (vector as u32 * eb).max(8),
                },
                direction: access.direction,
            };
            a.instruction = bank::triton_choice(&machine, &a, padding);
            // Through the buffer in rounds, a matrix instruction moves one
            // round's registers, a 32-bit one per matrix.
            if let Instruction::Matrix { count, trans } = a.instruction
                && candidate.rounds > 1
            {
                let registers = bank::AccessGeometry::new(&layout, eb).ok()?.registers.len();
                let per_round = matrices_per_round(eb, registers, candidate.rounds);
                a.instruction = Instruction::Matrix {
                    count: per_round.clamp(1, u64::from(count)) as u32,
                    trans,
                };
            }
            // Over a linear layout every warp costs what warp 0 does, which
            // the rank count gives without walking the elements.
            let counts = if padding.is_empty() {
                bank::wavefronts_by_rank(&a, &req.machine.banks).ok()?
            } else {
                bank::padded_wavefronts_by_enumeration(&a, &req.machine.banks, padding).ok()?
            };
            weighted += access.weight * counts.wavefronts;
            match access.direction {
                Direction::Load => reads += counts.wavefronts,
                Direction::Store => writes += counts.wavefronts,
            }
            accesses.push(AccessCost {
                direction: access.direction,
                instruction: a.instruction,
                vector_bits: a.instruction.bits_per_lane(),
                counts,
                conflicts: counts.wavefronts.div_ceil(counts.ideal.max(1)) - 1,
                pairs: bank::pair_counts(&a, padding).ok()?,
            });
        }
        let elements = 1u64 << self.tensor_bits();
        Some(Score {
            accesses,
            weighted,
            read_wavefronts: reads,
            write_wavefronts: writes,
            scratch_bytes: candidate.scratch_elements(elements) * eb as u64 / 8,
        })
    }

    /// Whether Triton's AMD backend reads access `index` of `candidate`
    /// transposed, as far as the layouts decide. On gfx950: the registers
    /// run along a dim the shared layout's offset 1 does not (the
    /// instruction turns one contiguity into the other). On gfx1250: the
    /// first 8 lanes own offsets 0 to 7 in order (Triton's tile), and no
    /// padding interval is shorter. The instruction's own legality is
    /// counted with it.
    fn reads_transposed(&self, index: usize, candidate: &Candidate) -> bool {
        if self.request.machine.lds.transposed_read == bank::TransposedRead::Gfx1250 {
            let Some(geometry) = self.geometries.get(index) else {
                return false;
            };
            return bank::gfx1250_tile_holds(geometry, &candidate.map)
                && candidate.padding.iter().all(|&(interval, _)| interval >= 8);
        }
        let Some(fast) = self.transposed_dims.get(index).copied().flatten() else {
            return true;
        };
        let Some(coordinate) = candidate.map.coordinate_of(1) else {
            return true;
        };
        let mut start = 0;
        let mut dims = Vec::new();
        for (d, (_, size)) in self.request.tensor.iter().enumerate() {
            let bits = size.trailing_zeros();
            if (coordinate >> start) & ((1u64 << bits) - 1) != 0 {
                dims.push(d);
            }
            start += bits;
        }
        dims != [fast]
    }

    pub fn access_cost(
        &self,
        index: usize,
        geometry: &AccessGeometry,
        direction: Direction,
        candidate: &Candidate,
    ) -> Option<AccessCost> {
        let req = self.request;
        let eb = req.element_bits;
        let mut vector = if candidate.padding.is_empty() {
            let vector = geometry.widest_vector(&candidate.map);
            // Where Triton's own rule gives a narrower vector (a register
            // whose offset moves both inside and across vectors), LLVM
            // merges the accesses back only where it proves them aligned.
            // A listed member like that is no answer: its claim would rest
            // on LLVM, and the family has others. (The linear family's
            // constructions place every register themselves.)
            if req.family != Family::Linear
                && geometry.widest_padded_vector(&candidate.map) < vector
            {
                return None;
            }
            vector
        } else {
            geometry.widest_padded_vector(&candidate.map)
        };
        // A vector never crosses a padding interval.
        let interval = candidate.padding.iter().map(|&(i, _)| i as u64).min();
        if let Some(interval) = interval {
            // A load the interval narrows is one LLVM may widen again over
            // the pads (it fills gaps between loads, reading the pads too),
            // which the layouts do not decide either.
            if direction == Direction::Load && interval < vector {
                return None;
            }
            vector = vector.min(interval);
            // Triton emits narrower accesses where the vector needs its
            // registers reordered, and whether LLVM merges them back is its
            // alignment analysis's call: no claim about such a member would
            // hold, so it is not an answer.
            if geometry.emitted_padded_vector(&candidate.map).min(interval) < vector {
                return None;
            }
        }
        let widest = (vector as u32 * eb).max(8);
        // The compiler emits the widest vector whatever the padding: a pad
        // that is not a whole number of vectors misaligns every vector after
        // it, and the kernel faults (an H100 raises a misaligned address).
        if candidate
            .padding
            .iter()
            .any(|&(_, pad)| !(pad * eb).is_multiple_of(widest))
        {
            return None;
        }
        let matrix_rows_aligned = candidate
            .padding
            .iter()
            .all(|&(_, pad)| (pad * eb).is_multiple_of(128));
        // The widest vector is the one the compiler emits: narrower ones
        // are not an answer's to choose.
        let options = bank::candidates(&req.machine, direction, eb, widest, &candidate.padding)
            .into_iter()
            .filter(|&i| match (i, req.instructions) {
                (Instruction::LdSt { bits } | Instruction::Paired { bits, .. }, _)
                    if bits != widest =>
                {
                    false
                }
                (Instruction::LdSt { .. }, _) => true,
                (_, InstructionPolicy::Vector) => false,
                // ldmatrix/stmatrix rows start on 16-byte boundaries.
                (Instruction::Matrix { .. }, _) if !matrix_rows_aligned => false,
                // One round's registers, a 32-bit one per matrix.
                (Instruction::Matrix { count, .. }, _)
                    if count > 1
                        && u64::from(count)
                            > matrices_per_round(
                                eb,
                                geometry.registers.len(),
                                candidate.rounds,
                            ) =>
                {
                    false
                }
                (Instruction::Matrix { .. }, _) => true,
                // AMD's paired and transposing accesses: what the compiler
                // forms from the widest vector, where it can.
                (_, InstructionPolicy::Matrix) => false,
                // A transposing read only where Triton's backend picks one.
                (Instruction::ReadTransposed { .. }, InstructionPolicy::Best) => {
                    self.reads_transposed(index, candidate)
                }
                (_, InstructionPolicy::Best) => true,
            });
        // Triton 3.9 lowers through ldmatrix/stmatrix wherever the layouts
        // allow one, the most matrices first, whatever it costs: under
        // `matrix` and `best` the first legal one is the access's, and
        // nothing else need be counted.
        let matrix_first = matches!(
            req.instructions,
            InstructionPolicy::Matrix | InstructionPolicy::Best
        );
        let chosen_first = |i: &Instruction| matches!(i, Instruction::Matrix { .. });
        let options: Vec<Instruction> = if matrix_first {
            let (first, others): (Vec<_>, Vec<_>) = options.into_iter().partition(chosen_first);
            first.into_iter().chain(others).collect()
        } else {
            options.collect()
        };
        let mut best: Option<AccessCost> = None;
        for instruction in options {
            if matrix_first && best.as_ref().is_some_and(|b| chosen_first(&b.instruction)) {
                break;
            }
            let Some(counts) = self.wavefronts(geometry, direction, candidate, instruction) else {
                continue;
            };
            let vector_bits = instruction.bits_per_lane();
            let Ok(pairs) =
                geometry.pair_counts(&candidate.map, instruction, direction, &candidate.padding)
            else {
                continue;
            };
            let cost = AccessCost {
                direction,
                instruction,
                vector_bits,
                counts,
                conflicts: counts.wavefronts.div_ceil(counts.ideal.max(1)) - 1,
                pairs,
            };
            // (A legal matrix instruction ended the loop above.)
            let better = match (&best, req.instructions) {
                (None, _) => true,
                // `matrix` without one: the widest vector, the first option.
                (Some(_), InstructionPolicy::Matrix) => false,
                (Some(b), _) => {
                    (cost.counts.wavefronts, cost.counts.instructions)
                        < (b.counts.wavefronts, b.counts.instructions)
                }
            };
            if better {
                best = Some(cost);
            }
        }
        best
    }

    fn wavefronts(
        &self,
        geometry: &AccessGeometry,
        direction: Direction,
        candidate: &Candidate,
        instruction: Instruction,
    ) -> Option<Wavefronts> {
        let banks = &self.request.machine.banks;
        if candidate.padding.is_empty() {
            return geometry
                .wavefronts(&candidate.map, instruction, direction, banks)
                .ok();
        }
        // Padded offsets are not linear: count by enumeration.
        geometry
            .wavefronts_by_enumeration(
                &candidate.map,
                instruction,
                direction,
                banks,
                &candidate.padding,
            )
            .ok()
    }

    /// Wavefronts by enumeration (the oracle every answer is re-scored
    /// with before it is reported), per access.
    pub fn enumerate(&self, candidate: &Candidate, score: &Score) -> Option<Vec<u64>> {
        let banks = &self.request.machine.banks;
        let mut out = Vec::new();
        for (geometry, cost) in self.geometries.iter().zip(&score.accesses) {
            let w = geometry
                .wavefronts_by_enumeration(
                    &candidate.map,
                    cost.instruction,
                    cost.direction,
                    banks,
                    &candidate.padding,
                )
                .ok()?;
            out.push(w.wavefronts);
        }
        Some(out)
    }
}
