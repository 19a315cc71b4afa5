//! The machine a file's layouts run on: Triton's module attributes and
//! `target` declarations, with named presets.

use layout_algebra::bank::{BankTarget, PhaseRule};
use layout_algebra::convert_layout::SharedInstructions;
use layout_algebra::triton::Target;

/// Facts about the target; `None` where the file says nothing (then the
/// defaults apply and the fact is not checked against encodings).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TargetFacts {
    pub preset: Option<String>,
    pub threads_per_warp: Option<u32>,
    pub num_warps: Option<u32>,
    pub num_ctas: Option<u32>,
    pub banks: Option<u32>,
    pub bank_bytes: Option<u32>,
    /// Per-instruction phases (AMD's LDS); empty for the NVIDIA rule.
    pub phases: Vec<PhaseRule>,
}

/// A named machine.
pub struct Preset {
    pub name: &'static str,
    pub description: &'static str,
    pub threads_per_warp: u32,
    pub banks: u32,
    pub bank_bytes: u32,
}

/// The presets `target = NAME` accepts.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "sm80",
        description: "NVIDIA Ampere (A100): 32-thread warps, 32 banks of 4 bytes",
        threads_per_warp: 32,
        banks: 32,
        bank_bytes: 4,
    },
    Preset {
        name: "sm90",
        description: "NVIDIA Hopper (H100): 32-thread warps, 32 banks of 4 bytes",
        threads_per_warp: 32,
        banks: 32,
        bank_bytes: 4,
    },
    Preset {
        name: "sm100",
        description: "NVIDIA Blackwell (B200): 32-thread warps, 32 banks of 4 bytes",
        threads_per_warp: 32,
        banks: 32,
        bank_bytes: 4,
    },
    Preset {
        name: "gfx942",
        description: "AMD CDNA3 (MI300): 64-lane wavefronts, 32 LDS banks of 4 bytes",
        threads_per_warp: 64,
        banks: 32,
        bank_bytes: 4,
    },
    Preset {
        name: "gfx950",
        description: "AMD CDNA4 (MI350): 64-lane wavefronts, 64 LDS banks of 4 bytes",
        threads_per_warp: 64,
        banks: 64,
        bank_bytes: 4,
    },
];

pub fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

impl TargetFacts {
    pub fn from_preset(p: &Preset) -> TargetFacts {
        TargetFacts {
            preset: Some(p.name.to_string()),
            threads_per_warp: Some(p.threads_per_warp),
            banks: Some(p.banks),
            bank_bytes: Some(p.bank_bytes),
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
        match self.preset.as_deref() {
            Some("sm80") => SharedInstructions {
                ldmatrix: true,
                stmatrix: false,
            },
            Some(p) if p.starts_with("gfx") => SharedInstructions::LD_ST,
            _ => SharedInstructions::SM90,
        }
    }

    pub fn bank_target(&self) -> BankTarget {
        BankTarget {
            banks: self.banks.unwrap_or(32),
            bank_bytes: self.bank_bytes.unwrap_or(4),
            warp_size: self.threads_per_warp(),
            phases: self.phases.clone(),
        }
    }
}
