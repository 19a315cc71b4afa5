//! The restricted families, enumerated: every member the tensor admits,
//! with the notation that writes it. A family small enough to list is
//! solved by scoring every member, which proves the minimum.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use layout_algebra::bank::{OffsetMap, TensorDims};
use layout_algebra::cute::Swizzle;
use layout_algebra::triton::{
    CgaLayout, Encoding, NvmmaShared, PaddedLinear, PaddedShared, SharedLinear, SwizzledShared,
};

use crate::request::Family;
use crate::score::Candidate;

/// One member of a family and how it is written.
#[derive(Clone, Debug)]
pub struct Member {
    pub candidate: Candidate,
    pub notation: Notation,
}

/// How a member is written, kept as parameters so that listing a family
/// formats nothing; [`Notation::text`] writes it.
#[derive(Clone, Debug)]
pub enum Notation {
    Encoding(Encoding),
    /// `Sw<B,M,S> o BASE`, the base as CuTe prints it.
    Cute {
        swizzle: Swizzle,
        base: String,
    },
}

impl Notation {
    pub fn text(&self) -> String {
        match self {
            Notation::Encoding(e) => e.to_string(),
            Notation::Cute { swizzle, base } => {
                if swizzle.bits == 0 {
                    base.clone()
                } else {
                    format!(
                        "Sw<{},{},{}> o {base}",
                        swizzle.bits, swizzle.base, swizzle.shift
                    )
                }
            }
        }
    }
}

fn shape_of(tensor: &TensorDims) -> Vec<u32> {
    tensor.iter().map(|(_, s)| *s as u32).collect()
}

fn powers_up_to(n: u64) -> impl Iterator<Item = u32> {
    (0..=n.max(1).trailing_zeros()).map(|k| 1u32 << k)
}

/// Every order of the tensor's dims that can cost differently: every
/// permutation of the dims larger than 1, except that once the dims placed
/// so far fill one line of banks (128 bytes), the rest follow in one fixed
/// order. Their bits then sit above every bit a bank, a word or a vector's
/// alignment reads, and reordering them is a bijection of those high bits:
/// it keeps which requests share a word and which differ, so no access
/// costs a wavefront more or less (size-1 dims place nothing at all).
fn orders(tensor: &TensorDims, element_bits: u32) -> Vec<Vec<usize>> {
    let line_elements = (1024 / element_bits.max(1)).max(1) as u64;
    let rank = tensor.len();
    let (big, ones): (Vec<usize>, Vec<usize>) = (0..rank).rev().partition(|&d| tensor[d].1 > 1);
    fn extend(
        tensor: &TensorDims,
        line: u64,
        placed: u64,
        rest: &[usize],
        prefix: &mut Vec<usize>,
        ones: &[usize],
        out: &mut Vec<Vec<usize>>,
    ) {
        if rest.is_empty() || placed >= line {
            let mut order = prefix.clone();
            order.extend(rest);
            order.extend(ones);
            out.push(order);
            return;
        }
        for (i, &d) in rest.iter().enumerate() {
            let mut r = rest.to_vec();
            r.remove(i);
            prefix.push(d);
            extend(tensor, line, placed * tensor[d].1, &r, prefix, ones, out);
            prefix.pop();
        }
    }
    let mut out = Vec::new();
    extend(
        tensor,
        line_elements,
        1,
        &big,
        &mut Vec::new(),
        &ones,
        &mut out,
    );
    if out.is_empty() {
        out.push((0..rank).rev().collect());
    }
    out
}

/// The row- and column-major orders (the padded family's bases).
fn major_orders(rank: usize) -> [Vec<usize>; 2] {
    [(0..rank).rev().collect(), (0..rank).collect()]
}

fn member_of(encoding: Encoding, tensor: &TensorDims) -> Option<Member> {
    let shared = encoding.to_linear_layout(&shape_of(tensor)).ok()?;
    let map = OffsetMap::from_shared(&shared, tensor).ok()?;
    // Only layouts that store every element once are candidates.
    map.offset_bases()?;
    Some(Member {
        candidate: Candidate::linear(map),
        notation: Notation::Encoding(encoding),
    })
}

/// Every member of a family for a tensor of `element_bits`-bit elements,
/// listed once per family, shape and element width: a member depends on
/// nothing else, listing is the slow part of a solve that meets its bound
/// at once, and a file (or the server) asks for the same shapes again.
pub fn members(family: Family, tensor: &TensorDims, element_bits: u32) -> Arc<Vec<Member>> {
    type Key = (Family, TensorDims, u32);
    static CACHE: OnceLock<Mutex<HashMap<Key, Arc<Vec<Member>>>>> = OnceLock::new();
    let key = (family, tensor.clone(), element_bits);
    let cache = CACHE.get_or_init(Default::default);
    if let Some(hit) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return hit;
    }
    let listed = Arc::new(list_members(family, tensor, element_bits));
    if let Ok(mut c) = cache.lock() {
        // Bounded: a long-running server sees many shapes.
        if c.len() > 256 {
            c.clear();
        }
        c.insert(key, listed.clone());
    }
    listed
}

fn list_members(family: Family, tensor: &TensorDims, element_bits: u32) -> Vec<Member> {
    let rank = tensor.len();
    let mut out: Vec<Member> = Vec::new();
    // Parameters that give the same layout are listed once (the first).
    let mut seen: std::collections::HashSet<Candidate> = std::collections::HashSet::new();
    let mut push = |m: Option<Member>, out: &mut Vec<Member>| {
        if let Some(m) = m
            && seen.insert(m.candidate.clone())
        {
            out.push(m);
        }
    };
    match family {
        Family::Linear => {}
        Family::Triton => {
            for order in orders(tensor, element_bits) {
                let inner = tensor[order[0]].1;
                let outer = if rank > 1 { tensor[order[1]].1 } else { 1 };
                for vec in powers_up_to(inner) {
                    for max_phase in powers_up_to(inner / vec as u64) {
                        for per_phase in powers_up_to(outer.max(1)) {
                            if max_phase == 1 && per_phase > 1 {
                                continue;
                            }
                            let e = Encoding::SwizzledShared(SwizzledShared {
                                vec,
                                per_phase,
                                max_phase,
                                order: order.clone(),
                                cga: CgaLayout::single(rank),
                            });
                            let map = swizzled_map(tensor, &order, vec, per_phase, max_phase);
                            let member = map.offset_bases().map(|_| Member {
                                candidate: Candidate::linear(map),
                                notation: Notation::Encoding(e),
                            });
                            push(member, &mut out);
                        }
                    }
                }
            }
        }
        Family::Nvmma => {
            for m in nvmma_members(tensor, element_bits) {
                push(Some(m), &mut out);
            }
        }
        Family::Cute => {
            if rank == 2 {
                let (rows, cols) = (tensor[0].1, tensor[1].1);
                for row_major in [true, false] {
                    let base = if row_major {
                        format!("({rows},{cols}):({cols},1)")
                    } else {
                        format!("({rows},{cols}):(1,{rows})")
                    };
                    let rb = rows.trailing_zeros();
                    let columns: Vec<u64> = (0..(rows * cols).trailing_zeros())
                        .map(|bit| {
                            // Tensor bit `bit`: dim0's bits first.
                            let (r, c) = if bit < rb {
                                (1u64 << bit, 0)
                            } else {
                                (0, 1u64 << (bit - rb))
                            };
                            if row_major {
                                r * cols + c
                            } else {
                                c * rows + r
                            }
                        })
                        .collect();
                    for m in swizzled_over(&columns, &base) {
                        push(Some(m), &mut out);
                    }
                }
            }
        }
        Family::Padded => {
            let n: u32 = tensor.iter().map(|(_, s)| s.trailing_zeros()).sum();
            // Padding of up to one line of banks per interval.
            let max_pad = (1024 / element_bits).max(1);
            for order in major_orders(rank) {
                let linear = PaddedLinear::Identity {
                    order: order.clone(),
                    shape: shape_of(tensor),
                };
                let base = Encoding::PaddedShared(PaddedShared {
                    intervals: vec![(1 << n, 1)],
                    linear: linear.clone(),
                });
                let Ok(shared) = base.to_linear_layout(&shape_of(tensor)) else {
                    continue;
                };
                let Ok(map) = OffsetMap::from_shared(&shared, tensor) else {
                    continue;
                };
                for k in 0..n {
                    for pad in powers_up_to(max_pad as u64) {
                        let e = Encoding::PaddedShared(PaddedShared {
                            intervals: vec![(1 << k, pad)],
                            linear: linear.clone(),
                        });
                        out.push(Member {
                            candidate: Candidate {
                                map: map.clone(),
                                padding: vec![(1 << k, pad)],
                                rounds: 1,
                            },
                            notation: Notation::Encoding(e),
                        });
                    }
                }
            }
        }
    }
    out
}

/// Every padding of one remap: `#ttg.padded_shared<[I:+P] {offset = ...}>`
/// over the layout `map` (the linear part), for each interval and pad the
/// padded family lists.
pub fn padded_over(map: &OffsetMap, tensor: &TensorDims, element_bits: u32) -> Vec<Member> {
    let n: u32 = tensor.iter().map(|(_, s)| s.trailing_zeros()).sum();
    let max_pad = (1024 / element_bits).max(1);
    let mut out = Vec::new();
    for k in 0..n {
        for pad in powers_up_to(max_pad as u64) {
            let candidate = Candidate {
                map: map.clone(),
                padding: vec![(1 << k, pad)],
                rounds: 1,
            };
            if let Some(notation) = padded_notation(&candidate, tensor) {
                out.push(Member {
                    candidate,
                    notation: Notation::Encoding(notation),
                });
            }
        }
    }
    out
}

/// A padded candidate as `#ttg.padded_shared` with its offset bases, when
/// Triton accepts it (each basis a power of two along one dim).
pub fn padded_notation(candidate: &Candidate, tensor: &TensorDims) -> Option<Encoding> {
    let shared = candidate.map.to_shared_layout(tensor).ok()??;
    let offset = shared
        .bases()
        .into_iter()
        .find(|(n, _)| n == "offset")
        .map(|(_, b)| b)?;
    let padded = PaddedShared {
        intervals: candidate.padding.clone(),
        linear: PaddedLinear::Bases {
            offset,
            block: Vec::new(),
        },
    };
    // Only what Triton accepts: a swizzled remap is no padded layout.
    padded.layout().ok()?;
    Some(Encoding::PaddedShared(padded))
}

/// NVMMA's modes for a tensor, converted through Triton's layout.
fn nvmma_members(tensor: &TensorDims, element_bits: u32) -> Vec<Member> {
    let rank = tensor.len();
    let mut out = Vec::new();
    if rank >= 2 {
        for swizzling_byte_width in [0, 32, 64, 128] {
            for transposed in [false, true] {
                let e = Encoding::NvmmaShared(NvmmaShared {
                    swizzling_byte_width,
                    transposed,
                    element_bit_width: element_bits,
                    fp4_padded: false,
                    cga: CgaLayout::single(rank),
                });
                out.extend(member_of(e, tensor));
            }
        }
    }
    out
}

/// `#ttg.swizzled_shared`'s offsets without building its layout: element
/// `(row, col)` of the two minor dims (by `order`) sits at
/// `row * C + (col ^ ((row / perPhase) % maxPhase) * vec)`, the other dims
/// stacked above in order. Linear over GF(2) since all are powers of two.
pub fn swizzled_map(
    tensor: &TensorDims,
    order: &[usize],
    vec: u32,
    per_phase: u32,
    max_phase: u32,
) -> OffsetMap {
    let sizes: Vec<u64> = tensor.iter().map(|(_, s)| *s).collect();
    // Where each dim starts among the offset bits (by `order`).
    let mut at = vec![0u32; sizes.len()];
    let mut shift = 0;
    for &d in order {
        at[d] = shift;
        shift += sizes[d].trailing_zeros();
    }
    let cols = sizes[order[0]];
    let mut columns = Vec::new();
    for (d, &size) in sizes.iter().enumerate() {
        for b in 0..size.trailing_zeros() {
            let mut offset = 1u64 << (at[d] + b);
            if order.len() > 1 && d == order[1] {
                let row = 1u64 << b;
                let phase = (row / per_phase as u64) % max_phase as u64;
                offset |= (phase * vec as u64) % cols;
            }
            columns.push(offset);
        }
    }
    OffsetMap::from_columns(columns)
}

/// Every swizzle `Sw<B,M,S>` over a base whose offsets are `columns` (the
/// offset of each tensor bit): the swizzle only moves offset bits, so a
/// bijective base stays bijective.
fn swizzled_over(columns: &[u64], base: &str) -> Vec<Member> {
    let n = columns.len() as u32;
    let mut out = Vec::new();
    for b in 0..=n.min(4) {
        for m in 0..=n {
            for s in b.max(1)..=n {
                if b == 0 && (m > 0 || s > 1) || m + s + b > n {
                    continue;
                }
                let Ok(sw) = Swizzle::new(b, m, s as i32) else {
                    continue;
                };
                let map = OffsetMap::from_columns(
                    columns.iter().map(|&c| sw.apply(c as i64) as u64).collect(),
                );
                out.push(Member {
                    candidate: Candidate::linear(map),
                    notation: Notation::Cute {
                        swizzle: sw,
                        base: base.to_string(),
                    },
                });
            }
        }
    }
    out
}

/// The CuTe family over a base the user gives (`base = cute (64,64):(1,64)`):
/// the base maps CuTe's coordinate (row, col) of a rank-2 tensor, at index
/// `row + rows * col`, to offsets; it must be a GF(2)-linear bijection.
pub fn cute_members_over(
    base: &layout_algebra::cute::Layout,
    tensor: &TensorDims,
) -> Result<Vec<Member>, String> {
    if tensor.len() != 2 {
        return Err(format!(
            "a CuTe base is for a rank-2 tensor (rows, cols); this tensor has rank {}",
            tensor.len()
        ));
    }
    let (rows, cols) = (tensor[0].1, tensor[1].1);
    let size = rows * cols;
    if base.size() != size as i64 {
        return Err(format!(
            "the base {base} has {} elements, the tensor {rows}x{cols} has {size}",
            base.size()
        ));
    }
    let rb = rows.trailing_zeros();
    let offset_of = |t: u64| -> i64 {
        let (r, c) = (t & (rows - 1), t >> rb);
        base.call((r + rows * c) as i64)
    };
    let columns: Vec<u64> = (0..size.trailing_zeros())
        .map(|bit| offset_of(1 << bit) as u64)
        .collect();
    // Linear over GF(2) and onto [0, size): every element checked.
    let map = OffsetMap::from_columns(columns.clone());
    for t in 0..size {
        if offset_of(t) != map.apply(t) as i64 || map.apply(t) >= size {
            return Err(format!(
                "the base {base} is not a bijection that XOR-combines its strides (element {t} is at {}), so no swizzle over it is linear",
                offset_of(t)
            ));
        }
    }
    if map.offset_bases().is_none() {
        return Err(format!("the base {base} stores two elements at one offset"));
    }
    Ok(swizzled_over(&columns, &base.to_string()))
}

/// The answer as `#ttg.shared_linear`: its offset bases.
pub fn shared_linear_notation(map: &OffsetMap, tensor: &TensorDims) -> Option<String> {
    let shared = map.to_shared_layout(tensor).ok()??;
    let offset = shared
        .bases()
        .into_iter()
        .find(|(n, _)| n == "offset")
        .map(|(_, b)| b)?;
    Some(
        Encoding::SharedLinear(SharedLinear {
            offset,
            block: Vec::new(),
            alignment: 16,
        })
        .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use layout_algebra::DimName;

    /// The formula agrees with the layout Triton's conversion builds, for
    /// every member of a few shapes.
    #[test]
    fn swizzled_formula_matches_the_encoding() {
        for shape in [vec![16u64, 16], vec![64, 32], vec![8, 128], vec![4, 8, 16]] {
            let tensor: TensorDims = shape
                .iter()
                .enumerate()
                .map(|(i, &s)| (DimName::from(format!("dim{i}").as_str()), s))
                .collect();
            let members = members(Family::Triton, &tensor, 16);
            assert!(members.len() > 10, "{shape:?}");
            for m in members.iter() {
                let encoding = parse_swizzled(&m.notation.text(), tensor.len());
                let shared = encoding
                    .to_linear_layout(&shape.iter().map(|&s| s as u32).collect::<Vec<_>>())
                    .unwrap();
                let expected = OffsetMap::from_shared(&shared, &tensor).unwrap();
                assert_eq!(m.candidate.map, expected, "{shape:?} {}", m.notation.text());
            }
        }
    }

    fn parse_swizzled(text: &str, rank: usize) -> Encoding {
        let num = |key: &str| -> u32 {
            let at = text.find(key).unwrap() + key.len();
            text[at..]
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .collect::<String>()
                .parse()
                .unwrap()
        };
        let order_at = text.find("order = [").unwrap() + 9;
        let order: Vec<usize> = text[order_at..text[order_at..].find(']').unwrap() + order_at]
            .split(", ")
            .map(|x| x.parse().unwrap())
            .collect();
        Encoding::SwizzledShared(SwizzledShared {
            vec: num("vec = "),
            per_phase: num("perPhase = "),
            max_phase: num("maxPhase = "),
            order,
            cga: CgaLayout::single(rank),
        })
    }
}
