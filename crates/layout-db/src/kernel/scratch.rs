//! How many bytes of shared memory each operation needs, as Triton's
//! allocator sizes them: an explicit buffer for `ttg.local_alloc`, scratch
//! for the operations that exchange data between warps through shared
//! memory (conversions, reductions and scans across warps, histograms,
//! atomics whose result every thread must see, gathers across warps, TMA
//! descriptors built on the device).

use layout_algebra::LinearLayout;
use layout_algebra::triton::Encoding;

use super::mlir::split_top_level;

/// Scratch buffers are aligned to 128 bytes.
pub const SCRATCH_ALIGNMENT: u64 = 128;

/// `tensor<64x64xf16, #blocked>` or `!ttg.memdesc<3x64x32xf16, #shared, #smem, mutable>`,
/// as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeText {
    pub shape: Vec<u32>,
    pub element: String,
    /// The encoding, as written (`#blocked`).
    pub encoding: Option<String>,
    /// The rest of a memdesc's parameters (`#smem`, `mutable`, `3x64x32`).
    pub extra: Vec<String>,
}

impl TypeText {
    pub fn elements(&self) -> u64 {
        self.shape.iter().map(|&d| d as u64).product()
    }

    /// A memdesc's allocation shape: the trailing `3x64x32` when it has one.
    pub fn allocation_shape(&self) -> Vec<u32> {
        self.extra
            .iter()
            .rev()
            .find_map(|p| dims(p).filter(|(d, rest)| rest.is_empty() && !d.is_empty()))
            .map(|(d, _)| d)
            .unwrap_or_else(|| self.shape.clone())
    }

    /// Elements of a memdesc's whole allocation (every pipeline stage).
    pub fn allocation_elements(&self) -> u64 {
        self.allocation_shape().iter().map(|&d| d as u64).product()
    }

    /// Whether the type is a memdesc (it names its memory space), not a
    /// tensor of registers.
    pub fn is_memdesc(&self) -> bool {
        !self.extra.is_empty()
    }

    pub fn in_tensor_memory(&self) -> bool {
        self.extra.iter().any(|p| p.contains("tensor_memory"))
    }
}

/// The first `tensor<...>` or `memdesc<...>` type of `text` at or after `from`.
pub fn parse_type(text: &str) -> Option<TypeText> {
    let at = ["tensor<", "memdesc<"]
        .iter()
        .filter_map(|k| text.find(k).map(|p| p + k.len()))
        .min()?;
    let inner = &text[at..];
    let close = closing_angle(inner)?;
    let parts = split_top_level(&inner[..close], ',');
    let (shape, element) = dims(parts.first()?.trim())?;
    Some(TypeText {
        shape,
        element: element.trim_start_matches('x').to_string(),
        encoding: parts.get(1).map(|e| e.trim().to_string()),
        extra: parts.iter().skip(2).map(|p| p.trim().to_string()).collect(),
    })
}

/// Every tensor type of a type list, in order.
pub fn parse_types(text: &str) -> Vec<TypeText> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(t) = parse_type(rest) {
        let at = ["tensor<", "memdesc<"]
            .iter()
            .filter_map(|k| rest.find(k).map(|p| p + k.len()))
            .min()
            .unwrap_or(rest.len());
        let skip = closing_angle(&rest[at..]).map_or(rest.len(), |c| at + c + 1);
        out.push(t);
        rest = &rest[skip..];
    }
    out
}

/// `64x64xf16` -> ([64, 64], "xf16"); `1024x!tt.ptr<f32>` -> ([1024], "x!tt.ptr<f32>").
fn dims(text: &str) -> Option<(Vec<u32>, String)> {
    let mut shape = Vec::new();
    let mut rest = text;
    loop {
        let n = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        if n == 0 {
            break;
        }
        let tail = &rest[n..];
        if tail.is_empty() {
            shape.push(rest.parse().ok()?);
            rest = "";
            break;
        }
        if !tail.starts_with('x') {
            break;
        }
        shape.push(rest[..n].parse().ok()?);
        rest = &tail[1..];
    }
    Some((shape, rest.to_string()))
}

fn closing_angle(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 1;
    for (i, &c) in bytes.iter().enumerate() {
        match c {
            b'<' => depth += 1,
            b'>' if i == 0 || bytes[i - 1] != b'-' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Bits of the element a pointer type points to (`!tt.ptr<f16>`: 16);
/// `None` for anything but a pointer.
pub fn pointee_bits(ty: &str) -> Option<u32> {
    ty.trim()
        .strip_prefix("!tt.ptr<")
        .and_then(|e| e.strip_suffix('>'))
        .and_then(element_bits)
}

/// Bits of an MLIR element type as shared memory stores it: pointers are
/// 64-bit, `i1` takes a byte, sub-byte floats and integers are 4 bits.
pub fn element_bits(ty: &str) -> Option<u32> {
    let ty = ty.trim();
    if ty.starts_with("!tt.ptr") || ty == "index" {
        return Some(64);
    }
    if ty == "i1" {
        return Some(8);
    }
    if let Some(n) = ty
        .strip_prefix("ui")
        .or_else(|| ty.strip_prefix("si"))
        .or_else(|| ty.strip_prefix('i'))
    {
        return n.parse().ok();
    }
    match ty {
        "bf16" | "f16" => Some(16),
        "tf32" | "f32" => Some(32),
        "f64" => Some(64),
        t if t.starts_with("f8") => Some(8),
        t if t.starts_with("f6") => Some(8),
        t if t.starts_with("f4") => Some(4),
        _ => None,
    }
}

/// Bytes of one element in a reduction's or a scan's scratch (at least one).
fn element_bytes(ty: &str) -> Option<u64> {
    element_bits(ty).map(|b| (b as u64).div_ceil(8))
}

/// How many warps hold different data along `axis`: 2 to the rank of the
/// warp bases' `axis` coordinates.
pub fn warps_along(layout: &LinearLayout, axis: usize) -> u64 {
    let n = layout.in_dim_size_log2("warp") as usize;
    let mut seen: Vec<u32> = Vec::new();
    for i in 0..n {
        if let Ok(b) = layout.basis("warp", i)
            && let Some(&c) = b.get(axis)
            && c != 0
            && !seen.contains(&c)
        {
            seen.push(c);
        }
    }
    1 << seen.len()
}

/// How many of `dim`'s bases are neither zero nor a repeat of another.
fn distinct_bases(layout: &LinearLayout, dim: &str) -> u32 {
    let mut seen: Vec<Vec<u32>> = Vec::new();
    for i in 0..layout.in_dim_size_log2(dim) as usize {
        if let Ok(b) = layout.basis(dim, i)
            && b.iter().any(|&c| c != 0)
            && !seen.contains(&b)
        {
            seen.push(b);
        }
    }
    seen.len() as u32
}

/// Scratch of `tt.reduce` over `axis` of inputs laid out by `layout`:
/// the largest of the conversions that bring the axis's warps together
/// (none when one warp holds the whole axis), on a machine of `banks` banks.
pub fn reduce(inputs: &[TypeText], layout: &LinearLayout, axis: usize, banks: u32) -> Option<u64> {
    let bits: Vec<u32> = inputs
        .iter()
        .map(|t| element_bits(&t.element))
        .collect::<Option<_>>()?;
    layout_algebra::triton::reduce::reduce_scratch_bytes(layout, axis, &bits, banks).ok()
}

/// Scratch of `tt.scan` over `axis` (blocked layouts only; Triton lowers
/// nothing else): each warp's partial result for every element it holds
/// off the axis, per block of the tensor, for each input.
pub fn scan(
    inputs: &[TypeText],
    encoding: &Encoding,
    layout: &LinearLayout,
    axis: usize,
) -> Option<u64> {
    let first = inputs.first()?;
    let Some(walk) = scan_walk(&first.shape, encoding, layout, axis) else {
        return Some(0);
    };
    let bytes: u64 = inputs
        .iter()
        .map(|t| element_bytes(&t.element))
        .sum::<Option<u64>>()?;
    Some(walk.scratch_elements * bytes)
}

/// How Triton's scan lowering walks a blocked tensor across warps: each
/// thread stores one partial per chunk (a run of registers off the axis in
/// one block along it), then reads the partials of the warps along the axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScanWalk {
    /// Chunks a thread holds in one block along the axis.
    pub chunks_per_block: u64,
    /// Blocks along the axis.
    pub axis_blocks: u64,
    /// Warps that hold different parts of the axis.
    pub axis_warps: u64,
    /// Threads of the CTA off the axis (Triton's `numParallelLane`): the
    /// stride, in elements, between the partials of two warps.
    pub parallel_lanes: u64,
    /// Elements of the scratch: every warp's partial for each element it
    /// holds off the axis, per block.
    pub scratch_elements: u64,
}

pub fn scan_walk(
    shape: &[u32],
    encoding: &Encoding,
    layout: &LinearLayout,
    axis: usize,
) -> Option<ScanWalk> {
    let Encoding::Blocked(b) = encoding else {
        return None;
    };
    let axis_warps = warps_along(layout, axis);
    if axis_warps == 1 {
        return None;
    }
    let rank = shape.len();
    let per = |v: &[u32], i: usize| v.get(i).copied().unwrap_or(1) as u64;
    let blocks = |i: usize| {
        (shape[i] as u64).div_ceil(
            per(&b.size_per_thread, i) * per(&b.threads_per_warp, i) * per(&b.warps_per_cta, i),
        )
    };
    let off_axis = |v: &[u32]| -> u64 {
        (0..rank)
            .filter(|&i| i != axis)
            .map(|i| per(v, i))
            .product()
    };
    let off_axis_blocks: u64 = (0..rank).filter(|&i| i != axis).map(blocks).product();
    // Warps that hold data of their own: where the tensor is smaller than
    // the CTA (on any target; it happens most with 64-lane waves) the
    // others repeat it, and their partials take no scratch.
    let warps: u64 = 1 << distinct_bases(layout, "warp");
    let per_warp = off_axis(&b.threads_per_warp) * off_axis(&b.size_per_thread);
    Some(ScanWalk {
        chunks_per_block: off_axis_blocks * off_axis(&b.size_per_thread),
        axis_blocks: blocks(axis),
        axis_warps,
        parallel_lanes: off_axis(&b.threads_per_warp) * (warps / axis_warps),
        scratch_elements: warps * per_warp * blocks(axis) * off_axis_blocks,
    })
}

/// Scratch of `tt.histogram`: one counter per bin, at least one per lane.
pub fn histogram(result: &TypeText, threads_per_warp: u32) -> Option<u64> {
    let bits = element_bits(&result.element)? as u64;
    Some(result.elements().max(threads_per_warp as u64) * bits / 8)
}

/// Scratch of an atomic whose result is used: the scalar every thread must
/// see, or a tensor whose layout repeats elements across threads.
pub fn atomic(result: Option<(&TypeText, &LinearLayout)>, scalar: Option<&str>) -> Option<u64> {
    match (result, scalar) {
        (Some((t, layout)), _) => {
            let repeated = layout.free_variable_masks().iter().any(|(_, m)| *m != 0);
            let bits = element_bits(&t.element)?.max(8) as u64;
            Some(if repeated { t.elements() * bits / 8 } else { 0 })
        }
        (None, Some(ty)) => Some(element_bits(ty)?.max(8) as u64 / 8),
        (None, None) => Some(0),
    }
}

/// Bytes of a `ttg.local_alloc`'s buffer (with a padded layout's padding)
/// and its alignment.
pub fn local_alloc(memdesc: &TypeText, encoding: Option<&Encoding>) -> Option<(u64, u64)> {
    let bits = element_bits(&memdesc.element)? as u64;
    let elements = per_cta_elements(memdesc, encoding);
    let (elements, alignment) = match encoding {
        Some(Encoding::PaddedShared(p)) => (p.alloc_elements(elements), 16),
        Some(Encoding::NvmmaShared(n)) => {
            let phases = (n.swizzling_byte_width / 16).max(1) as u64;
            // fp4 padded for a mixed-precision MMA: each 8-byte run of
            // packed pairs takes 16 bytes (`getAllocationShapePerCTA`
            // doubles the packed dim).
            let padding = if n.fp4_padded { 2 } else { 1 };
            (elements * padding, 128 * phases)
        }
        _ => (elements, 16),
    };
    Some((elements * bits / 8, alignment))
}

/// Elements of a memdesc's whole allocation that one CTA holds: the CTAs of
/// a cluster split it as the encoding's `CGALayout` says, each keeping its
/// own tile (Triton's `getAllocationShapePerCTA`).
fn per_cta_elements(memdesc: &TypeText, encoding: Option<&Encoding>) -> u64 {
    let shape = memdesc.allocation_shape();
    encoding
        .and_then(Encoding::cga)
        .and_then(|c| c.shape_per_cta(&shape).ok())
        .unwrap_or(shape)
        .iter()
        .map(|&d| d as u64)
        .product()
}

/// The axis of `tt.reduce`/`tt.scan`/`tt.gather` from its line
/// (`<{axis = 1 : i32}>`).
pub fn axis(line: &str) -> Option<usize> {
    let at = line.find("axis = ")?;
    line[at + 7..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect::<String>()
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_read_as_shape_element_and_encoding() {
        let t = parse_type("tensor<1024x!tt.ptr<i32>, #blocked>").unwrap();
        assert_eq!(t.shape, [1024]);
        assert_eq!(t.element, "!tt.ptr<i32>");
        assert_eq!(element_bits(&t.element), Some(64));
        let m = parse_type("!ttg.memdesc<1x64x32xf16, #shared, #smem, mutable, 3x64x32>").unwrap();
        assert_eq!(m.shape, [1, 64, 32]);
        assert_eq!(m.allocation_shape(), [3, 64, 32]);
        assert_eq!(m.encoding.as_deref(), Some("#shared"));
        let all = parse_types(
            "(tensor<16x8xf32, #b>, tensor<16x8xi32, #b>) -> (tensor<16xf32, #s>, tensor<16xi32, #s>)",
        );
        assert_eq!(all.len(), 4);
        assert_eq!(all[1].element, "i32");
    }

    #[test]
    fn sub_byte_and_pointer_elements_have_widths() {
        assert_eq!(element_bits("i4"), Some(4));
        assert_eq!(element_bits("f4E2M1FN"), Some(4));
        assert_eq!(element_bits("f8E4M3FN"), Some(8));
        assert_eq!(element_bits("i1"), Some(8));
        assert_eq!(element_bits("!tt.ptr<f16>"), Some(64));
    }
}
