//! The machine a file's layouts run on: Triton's module attributes and
//! `target` declarations, with named presets.

use layout_algebra::bank::{BankTarget, Direction, PhaseRule};
use layout_algebra::triton::Target;
use layout_algebra::triton::convert_layout::SharedInstructions;
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

/// A named machine.
pub struct Preset {
    pub name: &'static str,
    pub description: &'static str,
    pub threads_per_warp: u32,
    pub banks: u32,
    pub bank_bytes: u32,
    /// Instructions whose phases differ from one line per phase.
    pub phases: &'static [PresetPhase],
}

/// A phase rule of a preset: access bits, direction, the lanes served with
/// lane 0, and the banks the instruction sees when not the target's.
pub struct PresetPhase {
    pub bits: u32,
    pub direction: Direction,
    pub lanes: &'static [u32],
    pub banks: Option<u32>,
}

/// CDNA3 (gfx942). ds_read_b128 serves lanes 0-3 with 20-23, not 8
/// consecutive lanes: measured on MI300 by a public microbenchmark that
/// times every pair of lanes (AMD's blog post "Avoiding LDS Bank Conflicts
/// on AMD GPUs Using CK-Tile Framework" notes that ds_read_b128 has lane
/// groups of its own); ds_write_b128 serves 8 consecutive lanes (Composable
/// Kernel's LDS documentation). tests/vectors/amd/lds_phases.json.
const GFX942_PHASES: &[PresetPhase] = &[
    PresetPhase {
        bits: 128,
        direction: Direction::Load,
        lanes: &[0, 1, 2, 3, 20, 21, 22, 23],
        banks: None,
    },
    PresetPhase {
        bits: 128,
        direction: Direction::Store,
        lanes: &[0, 1, 2, 3, 4, 5, 6, 7],
        banks: None,
    },
];

/// CDNA4 (gfx950), 64 banks. Measured on a CDNA4 part by the HipKittens
/// project (pairwise conflicts of every two lanes): ds_read_b128 serves
/// lanes 0-3, 12-15 and 20-27 together; ds_read_b64 lanes 0-31;
/// ds_write_b64 lanes 0-15, and those stores see 32 banks (lane 1 at bank
/// 32 conflicts with lane 0 at bank 0). tests/vectors/amd/lds_phases.json.
const GFX950_PHASES: &[PresetPhase] = &[
    PresetPhase {
        bits: 128,
        direction: Direction::Load,
        lanes: &[0, 1, 2, 3, 12, 13, 14, 15, 20, 21, 22, 23, 24, 25, 26, 27],
        banks: None,
    },
    PresetPhase {
        bits: 64,
        direction: Direction::Load,
        lanes: &[
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
            24, 25, 26, 27, 28, 29, 30, 31,
        ],
        banks: None,
    },
    PresetPhase {
        bits: 64,
        direction: Direction::Store,
        lanes: &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
        banks: Some(32),
    },
];

/// The presets `target = NAME` accepts.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "sm80",
        description: "NVIDIA Ampere (A100): 32-thread warps, 32 banks of 4 bytes",
        threads_per_warp: 32,
        banks: 32,
        bank_bytes: 4,
        phases: &[],
    },
    Preset {
        name: "sm90",
        description: "NVIDIA Hopper (H100): 32-thread warps, 32 banks of 4 bytes",
        threads_per_warp: 32,
        banks: 32,
        bank_bytes: 4,
        phases: &[],
    },
    Preset {
        name: "sm100",
        description: "NVIDIA Blackwell (B200): 32-thread warps, 32 banks of 4 bytes",
        threads_per_warp: 32,
        banks: 32,
        bank_bytes: 4,
        phases: &[],
    },
    Preset {
        name: "gfx942",
        description: "AMD CDNA3 (MI300): 64-lane wavefronts, 32 LDS banks of 4 bytes, ds_read_b128 phases of lanes 0-3 with 20-23",
        threads_per_warp: 64,
        banks: 32,
        bank_bytes: 4,
        phases: GFX942_PHASES,
    },
    Preset {
        name: "gfx950",
        description: "AMD CDNA4 (MI350): 64-lane wavefronts, 64 LDS banks of 4 bytes, measured ds_read_b128/b64 and ds_write_b64 phases",
        threads_per_warp: 64,
        banks: 64,
        bank_bytes: 4,
        phases: GFX950_PHASES,
    },
];

pub fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

/// Triton's `ttg.target` values and the preset each one means. Shared
/// memory is the same from sm75 to sm89 (ldmatrix, no stmatrix) and from
/// sm90 on (both), so one preset stands for each group.
pub const TRITON_TARGETS: &[(&str, &str)] = &[
    ("cuda:75", "sm80"),
    ("cuda:80", "sm80"),
    ("cuda:86", "sm80"),
    ("cuda:87", "sm80"),
    ("cuda:89", "sm80"),
    ("cuda:90", "sm90"),
    ("cuda:90a", "sm90"),
    ("cuda:100", "sm100"),
    ("cuda:100a", "sm100"),
    ("cuda:103", "sm100"),
    ("cuda:120", "sm100"),
    ("hip:gfx942", "gfx942"),
    ("hip:gfx950", "gfx950"),
];

/// The preset of a `ttg.target` string (`"cuda:90"`, `"hip:gfx942"`).
pub fn preset_for_triton_target(target: &str) -> Option<&'static Preset> {
    let (_, name) = TRITON_TARGETS.iter().find(|(t, _)| *t == target)?;
    preset(name)
}

impl TargetFacts {
    pub fn from_preset(p: &Preset) -> TargetFacts {
        TargetFacts {
            preset: Some(p.name.to_string()),
            threads_per_warp: Some(p.threads_per_warp),
            banks: Some(p.banks),
            bank_bytes: Some(p.bank_bytes),
            phases: p
                .phases
                .iter()
                .map(|r| {
                    let rule = PhaseRule::from_lanes(r.bits, Some(r.direction), r.lanes)
                        .expect("preset phases are subspaces (a test checks every preset)");
                    PhaseRule {
                        banks: r.banks,
                        ..rule
                    }
                })
                .collect(),
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
        if let (Some(a), Some(b)) = (before.threads_per_warp, facts.threads_per_warp) {
            if a != b {
                return Some(clash("threads per warp", a.to_string(), b.to_string()));
            }
        }
        if let (Some(a), Some(b)) = (&before.preset, &facts.preset) {
            if a != b {
                return Some(clash("the target", a.clone(), b.clone()));
            }
        }
        if let (Some(a), Some(b)) = (before.banks, facts.banks) {
            if a != b {
                return Some(clash("banks", a.to_string(), b.to_string()));
            }
        }
    }
    None
}
