//! What the tests of every crate share: the reference vectors of
//! `tests/vectors/` (made by the real systems, beside their generators),
//! read one way, and the layouts in them as the algebra's values.

pub mod lsp_client;
pub mod specs;

use layout_algebra::{DimName, LinearLayout};
use serde::Deserialize;
use serde_json::Value;

/// The repository's `tests/vectors/` directory.
pub fn vectors_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors")
}

/// A file of `tests/vectors/` as text (`"cute/cpp_vectors.tsv"`).
pub fn vectors_text(rel: &str) -> String {
    let path = vectors_dir().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A JSON file of `tests/vectors/` (`"triton/swizzle_corpus.json"`).
pub fn vectors(rel: &str) -> Value {
    serde_json::from_str(&vectors_text(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// A JSON file of `tests/vectors/` read into its type.
pub fn typed_vectors<T: for<'de> Deserialize<'de>>(rel: &str) -> T {
    serde_json::from_str(&vectors_text(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// A JSON list of integer lists (a dim's bases, as the generators write them).
pub fn lists(v: &Value) -> Vec<Vec<i64>> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|b| {
            b.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_i64().unwrap())
                .collect()
        })
        .collect()
}

/// A linear layout as the generators write one: `{"bases": {"register":
/// [..], ...}, "outDims": [[name, size], ..]}` (generated.json) or
/// `{"bases": [[name, [..]], ..], "outs": [[name, size], ..]}` (the
/// convert and swizzle corpora).
pub fn layout(v: &Value) -> LinearLayout {
    let outs_v = v.get("outDims").or_else(|| v.get("outs")).unwrap();
    let outs: Vec<(DimName, i64)> = outs_v
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                DimName::from(p[0].as_str().unwrap()),
                p[1].as_i64().unwrap(),
            )
        })
        .collect();
    let bases: Vec<(DimName, Vec<Vec<i64>>)> = match &v["bases"] {
        Value::Object(o) => ["register", "lane", "warp", "block"]
            .iter()
            .filter_map(|n| o.get(*n).map(|b| (DimName::from(*n), lists(b))))
            .collect(),
        Value::Array(a) => a
            .iter()
            .map(|p| (DimName::from(p[0].as_str().unwrap()), lists(&p[1])))
            .collect(),
        _ => panic!("bases"),
    };
    LinearLayout::from_bases_with_sizes(bases, outs, false).unwrap()
}

/// One write/read pair of `triton/swizzle_corpus.json`
/// (gen_swizzle_corpus.py; its README gives the whole schema).
#[derive(Clone, Debug, Deserialize)]
pub struct CorpusPair {
    pub name: String,
    pub shape: Vec<u32>,
    pub bits: u32,
    pub num_warps: u32,
    pub target: String,
    pub src_ttgir: String,
    pub dst_ttgir: String,
    /// The linear layouts, in the form [`layout`] reads.
    pub src: Value,
    pub dst: Value,
    /// `shared_memory`, `warp_shuffle`, `registers` or `none`, for the
    /// pairs compiled for sm90.
    #[serde(default)]
    pub lowering: Option<String>,
}

/// The swizzle corpus's pairs by name.
pub fn corpus_pairs() -> std::collections::BTreeMap<String, CorpusPair> {
    #[derive(Deserialize)]
    struct Corpus {
        pairs: Vec<CorpusPair>,
    }
    typed_vectors::<Corpus>("triton/swizzle_corpus.json")
        .pairs
        .into_iter()
        .map(|p| (p.name.clone(), p))
        .collect()
}

/// One kernel of `triton/hw_sm90_*.json` (gen_hw_kernels.py,
/// measure_hw_sm90.sh, collect_hw.py): what the GPU measured, or the fault.
#[derive(Clone, Debug, Deserialize)]
pub struct HwKernel {
    pub pair: String,
    /// `own` (Triton's convert_layout) or the answer's family.
    pub kind: String,
    pub num_warps: u64,
    pub bits: u64,
    pub shape: Vec<u32>,
    pub shared_bytes: u64,
    /// Exact PTX shared-memory opcodes and their static counts.
    pub ptx_shared_opcodes: std::collections::BTreeMap<String, u64>,
    /// The answer's shared layout as TTGIR prints it.
    #[serde(default)]
    pub shared_ttgir: Option<String>,
    /// Nsight Compute's counters of the one launch, summed over every warp.
    #[serde(default)]
    pub hw: Option<std::collections::BTreeMap<String, u64>>,
    /// The CUDA error of a kernel that faulted.
    #[serde(default)]
    pub fault: Option<String>,
    /// Where its totals differ from layoutc's, its counters read again per
    /// SASS instruction.
    #[serde(default)]
    pub sass_runs: Vec<SassRun>,
}

impl HwKernel {
    /// Shared-memory wavefronts the GPU served for stores (`true`) or loads.
    pub fn measured_wavefronts(&self, store: bool) -> Option<u64> {
        let metric = if store {
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st"
        } else {
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld"
        };
        self.hw.as_ref()?.get(metric).copied()
    }
}

/// The kernels of one `triton/hw_sm90_*.json` file.
pub fn hw_kernels(file: &str) -> Vec<HwKernel> {
    #[derive(Deserialize)]
    struct Measured {
        kernels: Vec<HwKernel>,
    }
    typed_vectors::<Measured>(&format!("triton/{file}")).kernels
}

/// A random access to a `dim0` x `dim1` tensor: register, lane (32) and
/// `warp_bits` warp bases drawn from a random basis of the tensor's bits
/// (`next` supplies the randomness). The tests and benchmarks of the
/// solver draw their multi-access problems with it.
pub fn random_access(
    next: &mut impl FnMut() -> u64,
    dim0: u64,
    dim1: u64,
    warp_bits: u32,
) -> LinearLayout {
    let n = (dim0 * dim1).trailing_zeros();
    let mut bases: Vec<u64> = Vec::new();
    while bases.len() < n as usize {
        let v = next() & ((1 << n) - 1);
        if v != 0
            && layout_algebra::f2::rank(bases.iter().copied().chain([v])) as usize
                == bases.len() + 1
        {
            bases.push(v);
        }
    }
    let low = dim0.trailing_zeros();
    let unpack = |w: u64| vec![(w & (dim0 - 1)) as i64, (w >> low) as i64];
    let registers = (n - 5 - warp_bits) as usize;
    let mut ins = vec![
        (
            DimName::from("register"),
            bases[..registers].iter().map(|&w| unpack(w)).collect(),
        ),
        (
            DimName::from("lane"),
            bases[registers..registers + 5]
                .iter()
                .map(|&w| unpack(w))
                .collect(),
        ),
    ];
    if warp_bits > 0 {
        ins.push((
            DimName::from("warp"),
            bases[registers + 5..].iter().map(|&w| unpack(w)).collect(),
        ));
    }
    LinearLayout::from_bases_with_sizes(
        ins,
        vec![
            (DimName::from("dim0"), dim0 as i64),
            (DimName::from("dim1"), dim1 as i64),
        ],
        true,
    )
    .unwrap()
}

/// One kernel of `triton/hw_sm90_kernels.json` (gen_kernel_hw.py,
/// measure_kernel_hw.sh, collect_kernel_hw.py): a kernel of the corpora
/// under `tests/corpus/`, run once on a GPU.
#[derive(Clone, Debug, Deserialize)]
pub struct HwWholeKernel {
    /// `ttgir` or `kernels`: the corpus directory under `tests/corpus/`.
    pub corpus: String,
    pub kernel: String,
    /// The dump in that directory.
    pub file: String,
    /// The target whose PTX ran (hw_sm90_corpora.json: sm90's own cubin, or
    /// an sm80, sm86 or sm89 build assembled for sm90); absent where sm90.
    #[serde(default)]
    pub ptx_target: Option<String>,
    pub num_warps: u64,
    /// The CTAs of the one program: a kernel on a thread-block cluster
    /// (`num_ctas`) runs one program as that many CTAs, each issuing what
    /// the kernel summary names.
    #[serde(default = "one_cta")]
    pub ctas: u64,
    pub shared_bytes: u64,
    /// Exact PTX shared-memory opcodes of the build that ran.
    pub ptx_shared_opcodes: std::collections::BTreeMap<String, u64>,
    /// Its SASS shared-memory opcodes (static counts).
    pub sass_shared_opcodes: std::collections::BTreeMap<String, u64>,
    /// `@!PT LDS RZ, [RZ]`: loads ptxas places after `cp.async.wait_group`
    /// that never run but count as executed.
    pub sass_never_executed_loads: u64,
    /// Nsight Compute's counters of the one program, summed over every warp.
    #[serde(default)]
    pub hw: Option<std::collections::BTreeMap<String, u64>>,
    /// The same counters per SASS shared-memory instruction, in address
    /// order (absent from a measurement without the SourceCounters section).
    #[serde(default)]
    pub sass_shared: Option<Vec<SassCount>>,
    #[serde(default)]
    pub fault: Option<String>,
}

fn one_cta() -> u64 {
    1
}

/// What one SASS shared-memory instruction of a measured kernel did, summed
/// over the program's warps.
#[derive(Clone, Debug, Deserialize)]
pub struct SassCount {
    /// The instruction as cuobjdump prints it (`LDS.128 R12, [R22]`).
    pub sass: String,
    /// Warp-instructions executed.
    pub executed: u64,
    /// Shared-memory wavefronts it took.
    pub wavefronts: u64,
    /// Wavefronts it would take without bank conflicts.
    pub ideal: u64,
    /// It follows a predicated `EXIT` or `BRA`: warps may skip it.
    #[serde(default)]
    pub conditional: bool,
}

impl SassCount {
    /// Its opcode without predicate or operands (`LDS.128`, `ATOMS.POPC.INC.32`).
    pub fn opcode(&self) -> &str {
        self.sass
            .split_whitespace()
            .find(|word| !word.starts_with('@'))
            .unwrap_or("")
    }

    /// Warp-instructions and wavefronts as if all `warps` ran past the
    /// early exits: a load after a predicated `EXIT` or `BRA` that fewer
    /// warps executed counts for every warp, at the wavefronts per warp it
    /// took. ptxas moves there the loads of warps whose global stores are
    /// all masked off (warps holding copies of others' elements); the PTX
    /// issues them in every warp.
    pub fn past_exits(&self, warps: u64) -> (u64, u64) {
        if self.conditional
            && self.opcode().starts_with("LDS")
            && self.executed > 0
            && self.executed < warps
        {
            (warps, self.wavefronts / self.executed * warps)
        } else {
            (self.executed, self.wavefronts)
        }
    }
}

/// One reading of a kernel's counters per SASS instruction
/// (measure_hw_sass.sh): the kernel-wide counters and each shared-memory
/// instruction's.
#[derive(Clone, Debug, Deserialize)]
pub struct SassRun {
    pub counters: std::collections::BTreeMap<String, u64>,
    pub sass_shared: Vec<SassCount>,
}

impl SassRun {
    /// Wavefronts of the stores (`true`) or loads the instructions took, as
    /// if all `warps` ran past the early exits ([`SassCount::past_exits`]).
    pub fn wavefronts_past_exits(&self, store: bool, warps: u64) -> u64 {
        self.sass_shared
            .iter()
            .filter(|i| i.opcode().starts_with("STS") == store)
            .map(|i| i.past_exits(warps).1)
            .sum()
    }

    /// Loads that warps skipped by exiting early.
    pub fn skipped_loads(&self, warps: u64) -> u64 {
        self.sass_shared
            .iter()
            .map(|i| i.past_exits(warps).0 - i.executed)
            .sum()
    }

    /// Wavefronts of the kernel-wide counter no instruction took.
    pub fn unattributed(&self, store: bool) -> u64 {
        let metric = if store {
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st"
        } else {
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld"
        };
        let attributed: u64 = self
            .sass_shared
            .iter()
            .filter(|i| i.opcode().starts_with("STS") == store)
            .map(|i| i.wavefronts)
            .sum();
        self.counters[metric] - attributed
    }
}

/// A corpus kernel's shared-memory instructions as its compiled PTX runs
/// them (`triton/ptx_wavefronts.json`, gen_ptx_wavefronts.py).
#[derive(Clone, Debug, Deserialize)]
pub struct PtxKernel {
    /// `ttgir` or `kernels`: the corpus directory under `tests/corpus/`.
    pub corpus: String,
    pub kernel: String,
    /// The dump in that directory.
    pub file: String,
    /// `cuda:80` or `cuda:90`.
    pub target: String,
    pub num_warps: u64,
    /// Per PTX instruction: warp-instructions executed and their
    /// wavefronts, summed over the program's warps. Absent when the kernel
    /// did not compile for the target or its addresses depend on data.
    #[serde(default)]
    pub instructions: Option<std::collections::BTreeMap<String, PtxCount>>,
    #[serde(default)]
    pub compile_error: Option<String>,
    #[serde(default)]
    pub unevaluated: Option<String>,
}

/// What one PTX instruction amounts to over a program's warps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct PtxCount {
    pub instructions: u64,
    pub wavefronts: u64,
}

/// The kernels of `triton/ptx_wavefronts.json`.
pub fn ptx_kernels() -> Vec<PtxKernel> {
    #[derive(Deserialize)]
    struct File {
        kernels: Vec<PtxKernel>,
    }
    typed_vectors::<File>("triton/ptx_wavefronts.json").kernels
}

/// The kernels of `triton/hw_sm90_kernels.json`.
pub fn hw_whole_kernels() -> Vec<HwWholeKernel> {
    #[derive(Deserialize)]
    struct Measured {
        kernels: Vec<HwWholeKernel>,
    }
    typed_vectors::<Measured>("triton/hw_sm90_kernels.json").kernels
}

/// The kernels of `triton/hw_sm90_variants.json` (gen_kernel_variants.py,
/// measure_kernel_hw.sh, collect_kernel_hw.py --variants): the corpus's
/// sm90 kernels with other warps and pipeline stages, their dumps in
/// `tests/corpus/variants`, each run once per SASS instruction.
pub fn hw_variant_kernels() -> Vec<HwWholeKernel> {
    #[derive(Deserialize)]
    struct Measured {
        kernels: Vec<HwWholeKernel>,
    }
    typed_vectors::<Measured>("triton/hw_sm90_variants.json").kernels
}

/// Every kernel of `triton/hw_sm90_corpora.json` (gen_corpus_hw.py,
/// measure_corpus_hw.sh, collect_kernel_hw.py --corpora): the dumps of
/// `tests/corpus/scratch` and `tests/corpus/packed` an sm90 GPU can run,
/// each run once, with kernel-wide counters.
pub fn hw_corpus_kernels() -> Vec<HwWholeKernel> {
    #[derive(Deserialize)]
    struct Measured {
        kernels: Vec<HwWholeKernel>,
    }
    typed_vectors::<Measured>("triton/hw_sm90_corpora.json").kernels
}
