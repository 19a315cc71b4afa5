//! What a plan is and what it means for the banks: the vector chain and the
//! instruction each access uses under it, each access's phase span, and
//! where an offset's bits stop choosing the word and start choosing the
//! bank. The construction (`linear`), the lower bound (`bound`), the exact
//! search (`exact`) and the Z3 encoding (`smt`) all read these.

use layout_algebra::bank::Instruction;

use crate::score::Problem;

/// How each access is expected to move data under one vector chain.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Plan {
    /// Tensor coordinates at offsets 1, 2, 4, ...
    pub chain: Vec<u64>,
    /// The instruction each access would use.
    pub instructions: Vec<Instruction>,
}

/// What the accesses can use, each with the lower bound it implies, and
/// a few chains that realise it.
pub struct Plans {
    /// Every assignment of instructions a layout can give the accesses
    /// (`complete`), cheapest bound first.
    pub list: Vec<Plan>,
    pub complete: bool,
}

/// The phase span of each access under a plan, and what one wavefront of
/// conflict costs it (its ideal wavefronts, weighted).
pub struct PhaseSpans {
    pub spans: Vec<Vec<u64>>,
    pub unit_cost: Vec<u64>,
}

pub fn phase_spans(problem: &Problem, plan: &Plan) -> PhaseSpans {
    let req = problem.request;
    let mut spans = Vec::new();
    let mut unit_cost = Vec::new();
    for ((g, access), &instruction) in problem
        .geometries
        .iter()
        .zip(&req.accesses)
        .zip(&plan.instructions)
    {
        spans.push(g.phase_vectors(instruction, access.direction, &req.machine.banks));
        unit_cost.push(
            access.weight * g.ideal_wavefronts(instruction, access.direction, &req.machine.banks),
        );
    }
    PhaseSpans { spans, unit_cost }
}

/// Offset bits of one line of banks, and of one bank word, for `plan`.
pub fn line_and_word_bits(problem: &Problem) -> (u32, u32) {
    let req = problem.request;
    let banks = &req.machine.banks;
    let line_bits = banks.banks as u64 * banks.bank_bytes as u64 * 8;
    let eb = req.element_bits as u64;
    let line = (line_bits / eb).max(1).trailing_zeros();
    let word = (banks.bank_bytes as u64 * 8 / eb).max(1).trailing_zeros();
    (line, word)
}

/// Where the rank formula cuts an offset for `instruction`: bits below the
/// first of the pair stay inside one word, bits below the second choose
/// the bank (in elements; 64-bit elements span two banks each). The exact
/// search and the Z3 encoding count conflicts with these.
pub fn word_and_bank_bits(
    problem: &Problem,
    instruction: Instruction,
    direction: layout_algebra::bank::Direction,
) -> (u32, u32) {
    let req = problem.request;
    let n = problem.tensor_bits();
    let eb = req.element_bits;
    let banks = match instruction {
        Instruction::LdSt { bits } | Instruction::Paired { bits, .. } => {
            req.machine.banks.phases_for(bits, direction).banks
        }
        Instruction::ReadTransposed { .. } => {
            req.machine
                .banks
                .phases_for(instruction.bits_per_lane(), direction)
                .banks
        }
        Instruction::Matrix { .. } => req.machine.banks.banks,
    };
    let word_bits = req.machine.banks.bank_bytes * 8;
    let sub = if eb < word_bits {
        (word_bits / eb).trailing_zeros()
    } else {
        0
    };
    let scale = if eb > word_bits {
        (eb / word_bits).trailing_zeros()
    } else {
        0
    };
    let bank_high = (sub + banks.trailing_zeros()).saturating_sub(scale).min(n);
    (sub.min(n), bank_high.max(sub.min(n)))
}
