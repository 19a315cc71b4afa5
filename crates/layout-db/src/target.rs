//! The machine a file's layouts run on: Triton's module attributes and
//! `target` declarations, with named presets.

use layout_algebra::bank::{BankTarget, PhaseRule};
use layout_algebra::machine::SharedInstructions;
use layout_algebra::triton::Target;
use layout_syntax::Span;

use crate::diagnostic::{Code, Diagnostic};

/// Facts about the target; `None` where the file says nothing (then the
/// defaults apply and the fact is not checked against encodings).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TargetFacts {
    pub preset: Option<String>,
    /// A `ttg.target` layoutc has no preset for (`"cuda:70"`): named, so
    /// no default is assumed in its place.
    pub unknown_machine: Option<String>,
    pub threads_per_warp: Option<u32>,
    pub num_warps: Option<u32>,
    pub num_ctas: Option<u32>,
    pub banks: Option<u32>,
    pub bank_bytes: Option<u32>,
    /// Per-instruction phases (AMD's LDS); empty for the NVIDIA rule.
    pub phases: Vec<PhaseRule>,
}

pub use layout_algebra::machine::{
    LdsInstructions, Machine, PRESETS, Preset, PresetPhase, TRITON_TARGETS, Vendor, preset,
    preset_for_triton_target,
};

impl TargetFacts {
    pub fn from_preset(p: &Preset) -> TargetFacts {
        TargetFacts {
            preset: Some(p.name.to_string()),
            threads_per_warp: Some(p.threads_per_warp),
            banks: Some(p.banks),
            bank_bytes: Some(p.bank_bytes),
            phases: p.phase_rules(),
            ..TargetFacts::default()
        }
    }

    /// Later facts override earlier ones.
    pub fn merge(&mut self, other: &TargetFacts) {
        macro_rules! take {
            ($($f:ident),*) => { $( if other.$f.is_some() { self.$f = other.$f.clone(); } )* };
        }
        take!(
            preset,
            unknown_machine,
            threads_per_warp,
            num_warps,
            num_ctas,
            banks,
            bank_bytes
        );
        if !other.phases.is_empty() {
            self.phases = other.phases.clone();
        }
    }

    pub fn threads_per_warp(&self) -> u32 {
        self.threads_per_warp.unwrap_or(32)
    }

    /// What encodings are validated against. Warps and CTAs are only
    /// checked when the file states them.
    pub fn encoding_target(&self, encoding_warps: Option<u32>, encoding_ctas: u64) -> Target {
        Target {
            threads_per_warp: self.threads_per_warp(),
            num_warps: self.num_warps.or(encoding_warps).unwrap_or(4),
            num_ctas: self.num_ctas.unwrap_or(encoding_ctas as u32),
        }
    }

    /// The shared-memory instructions a conversion may use: `ldmatrix` from
    /// sm75, `stmatrix` from sm90, neither on AMD. Without a preset, sm90's
    /// (the target of the conversion vectors and of most current kernels).
    pub fn shared_instructions(&self) -> SharedInstructions {
        if self.preset.is_none() && self.unknown_machine.is_some() {
            // A machine layoutc does not know: only what every one has.
            return SharedInstructions::LD_ST;
        }
        self.preset
            .as_deref()
            .and_then(preset)
            .map_or(SharedInstructions::SM90, |p| p.instructions)
    }

    /// AMD's LDS instructions beyond one address per lane that the
    /// machine has (none without an AMD preset).
    pub fn lds_instructions(&self) -> LdsInstructions {
        self.preset
            .as_deref()
            .and_then(preset)
            .map_or(LdsInstructions::NONE, |p| p.lds)
    }

    /// The machine the file's accesses run on, as the bank model and the
    /// choice of instructions see it: the preset's facts with the file's
    /// own statements over them. Without a preset, NVIDIA's.
    pub fn machine(&self) -> Machine {
        let preset = self.preset.as_deref().and_then(preset);
        Machine {
            name: self
                .preset
                .clone()
                .or_else(|| self.unknown_machine.clone())
                .unwrap_or_else(|| "sm90".to_string()),
            vendor: preset.map_or(Vendor::Nvidia, |p| p.vendor),
            banks: self.bank_target(),
            matrix: self.shared_instructions(),
            lds: self.lds_instructions(),
            paired_f32: preset.is_some_and(|p| p.paired_f32),
            booleans_in_64_bit_words: preset.is_some_and(|p| p.booleans_in_64_bit_words),
            joined_halves_in_64_bit_words: preset.is_some_and(|p| p.joined_halves_in_64_bit_words),
            packed_byte_arithmetic: preset.is_some_and(|p| p.packed_byte_arithmetic),
        }
    }

    pub fn bank_target(&self) -> BankTarget {
        BankTarget {
            banks: self.banks.unwrap_or(32),
            bank_bytes: self.bank_bytes.unwrap_or(4),
            warp_size: self.threads_per_warp(),
            phases: self.phases.clone(),
            // Without a preset the machine is NVIDIA's (see `machine`).
            wide_loads_merge_phases: self
                .preset
                .as_deref()
                .and_then(preset)
                .is_none_or(|p| p.vendor == Vendor::Nvidia),
        }
    }
}

/// The first fact of `facts` that an earlier statement of the machine
/// (module attributes, a `target`) contradicts: an error at `span` with a
/// label where the other was written.
pub fn contradiction(
    earlier: &[(TargetFacts, Span)],
    facts: &TargetFacts,
    span: Span,
) -> Option<Diagnostic> {
    for (before, before_span) in earlier {
        let clash = |what: &str, a: String, b: String| {
            Diagnostic::error(
                Code::InvalidTarget,
                span,
                format!("this says {what} {b}, but the machine was already given {what} {a}"),
            )
            .with_label(*before_span, format!("{what} {a} here"))
            .with_note("a file describes one machine; remove or correct one of the two")
        };
        if let (Some(a), Some(b)) = (before.threads_per_warp, facts.threads_per_warp)
            && a != b
        {
            return Some(clash("threads per warp", a.to_string(), b.to_string()));
        }
        if let (Some(a), Some(b)) = (&before.preset, &facts.preset)
            && a != b
        {
            return Some(clash("the target", a.clone(), b.clone()));
        }
        if let (Some(a), Some(b)) = (before.banks, facts.banks)
            && a != b
        {
            return Some(clash("banks", a.to_string(), b.to_string()));
        }
    }
    None
}
