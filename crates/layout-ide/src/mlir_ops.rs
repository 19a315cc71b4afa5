//! One line about each operation a Triton dump holds, for hovers on its
//! name: what it does, and where shared memory comes in.

/// `(name, what it does)`, for the operations of Triton's dialects a
/// kernel engineer meets in a TTGIR dump.
const OPS: &[(&str, &str)] = &[
    (
        "tt.func",
        "a kernel or device function; its summary lists the shared memory of every op in it",
    ),
    ("tt.return", "returns from the function"),
    (
        "tt.call",
        "calls a device function (its shared memory is the callee's)",
    ),
    (
        "tt.load",
        "loads a tensor from global memory into registers, in the result's layout",
    ),
    (
        "tt.store",
        "stores a tensor from registers to global memory",
    ),
    (
        "tt.splat",
        "broadcasts a scalar to every element of a tensor",
    ),
    ("tt.broadcast", "broadcasts a tensor along its size-1 dims"),
    (
        "tt.make_range",
        "the tensor [start, end) of consecutive integers",
    ),
    ("tt.addptr", "offsets pointers element-wise"),
    (
        "tt.expand_dims",
        "inserts a size-1 dim (the operand's layout is a slice of the result's)",
    ),
    (
        "tt.reshape",
        "reshapes a tensor (may reorder elements when allowed)",
    ),
    (
        "tt.trans",
        "permutes a tensor's dims (a layout change: no data moves when the layouts agree)",
    ),
    ("tt.join", "joins two tensors along a new minor dim"),
    (
        "tt.split",
        "splits a tensor's minor dim of size 2 into two tensors",
    ),
    ("tt.cat", "concatenates two tensors"),
    (
        "tt.dot",
        "matrix multiply-accumulate: MMA on tensor cores for dot-operand layouts, FMA otherwise",
    ),
    (
        "tt.dot_scaled",
        "a matrix multiply with block-scaled (microscaling) operands",
    ),
    (
        "tt.reduce",
        "reduces along one axis: within a thread, across lanes by shuffles, across warps through shared-memory scratch",
    ),
    (
        "tt.scan",
        "a prefix scan along one axis; across warps it goes through shared-memory scratch",
    ),
    (
        "tt.histogram",
        "counts values into bins; the bins are accumulated with shared-memory atomics",
    ),
    (
        "tt.gather",
        "gathers along one axis; a gather across warps goes through shared memory",
    ),
    (
        "tt.atomic_rmw",
        "an atomic read-modify-write on global memory; a used result is exchanged through shared memory",
    ),
    (
        "tt.atomic_cas",
        "an atomic compare-and-swap on global memory; a used result is exchanged through shared memory",
    ),
    (
        "tt.get_program_id",
        "the program's index along one axis of the launch grid",
    ),
    ("tt.get_num_programs", "the grid's size along one axis"),
    (
        "tt.make_tensor_descriptor",
        "a TMA descriptor for a global tensor, built in shared memory",
    ),
    (
        "tt.descriptor_load",
        "a TMA load through a tensor descriptor",
    ),
    (
        "tt.descriptor_store",
        "a TMA store through a tensor descriptor",
    ),
    ("tt.fp_to_fp", "converts between floating-point formats"),
    (
        "ttg.convert_layout",
        "moves a tensor between distributed layouts: in registers, by warp shuffles, or through shared-memory scratch",
    ),
    (
        "ttg.local_alloc",
        "allocates a shared-memory buffer, storing the operand into it when it has one",
    ),
    (
        "ttg.local_load",
        "loads a tensor from a shared-memory buffer into registers",
    ),
    (
        "ttg.local_store",
        "stores a tensor from registers into a shared-memory buffer",
    ),
    ("ttg.local_dealloc", "ends a shared-memory buffer's life"),
    (
        "ttg.memdesc_index",
        "one buffer of a multi-buffered allocation (a view: no memory of its own)",
    ),
    (
        "ttg.memdesc_subslice",
        "a sub-tile of a shared-memory buffer (a view)",
    ),
    (
        "ttg.memdesc_trans",
        "a transposed view of a shared-memory buffer",
    ),
    (
        "ttg.memdesc_reshape",
        "a reshaped view of a shared-memory buffer",
    ),
    (
        "ttg.async_copy_global_to_local",
        "an asynchronous copy from global into shared memory (cp.async, or AMD's direct-to-LDS loads)",
    ),
    (
        "ttg.async_commit_group",
        "closes a group of asynchronous copies",
    ),
    (
        "ttg.async_wait",
        "waits until at most N groups of asynchronous copies are pending",
    ),
    ("ttg.barrier", "a barrier between the threads of the CTA"),
    (
        "ttg.warp_specialize",
        "runs partitions of the kernel in separate warp groups",
    ),
    (
        "ttng.warp_group_dot",
        "Hopper's warpgroup MMA (wgmma), reading operands from shared memory",
    ),
    (
        "ttng.warp_group_dot_wait",
        "waits for outstanding warpgroup MMAs",
    ),
    (
        "ttng.async_tma_copy_global_to_local",
        "a TMA copy from global into shared memory, completing on an mbarrier",
    ),
    (
        "ttng.async_tma_copy_local_to_global",
        "a TMA copy from shared memory to global",
    ),
    (
        "ttng.init_barrier",
        "initialises an mbarrier in shared memory",
    ),
    ("ttng.wait_barrier", "waits on an mbarrier phase"),
    (
        "ttng.barrier_expect",
        "sets the bytes an mbarrier expects from TMA copies",
    ),
    (
        "ttng.fence_async_shared",
        "orders shared-memory writes before asynchronous proxy reads (TMA, wgmma)",
    ),
    (
        "ttng.tensormap_create",
        "builds a TMA descriptor in shared memory and writes it to global",
    ),
    (
        "ttng.tmem_alloc",
        "allocates Blackwell tensor memory (counted in columns)",
    ),
    ("ttng.tmem_load", "loads from tensor memory into registers"),
    (
        "ttng.tmem_store",
        "stores from registers into tensor memory",
    ),
    (
        "ttng.tc_gen5_mma",
        "Blackwell's tcgen05 MMA: operands in shared or tensor memory, accumulator in tensor memory",
    ),
    (
        "scf.for",
        "a loop; its iter_args carry values (and buffers) between iterations",
    ),
    ("scf.if", "a conditional"),
    (
        "scf.yield",
        "the values a loop iteration or branch passes on",
    ),
    ("scf.while", "a while loop"),
    ("arith.constant", "a constant (a splat when tensor-typed)"),
    ("amdg.buffer_load", "an AMD buffer load from global memory"),
    ("amdg.buffer_store", "an AMD buffer store to global memory"),
    (
        "amdg.buffer_atomic_rmw",
        "an AMD buffer atomic on global memory",
    ),
    (
        "amdg.buffer_load_to_local",
        "an AMD buffer load straight into LDS (shared memory): `buffer_load_dword* ... lds`, the AMD counterpart of cp.async",
    ),
];

/// What `op` (`tt.load`) does, when layoutc knows the operation.
pub fn op_doc(op: &str) -> Option<&'static str> {
    // Triton before 3.5 printed the AMD dialect as `amdgpu.`.
    let op = op
        .strip_prefix("amdgpu.")
        .map_or(op.to_string(), |rest| format!("amdg.{rest}"));
    OPS.iter()
        .find(|(name, _)| *name == op)
        .map(|(_, doc)| *doc)
}

/// The operation name around `offset` in `text` (`dialect.op`), with its span.
pub fn op_at(text: &str, offset: usize) -> Option<(String, crate::Span)> {
    let bytes = text.as_bytes();
    let is_part = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'.';
    let offset = offset.min(text.len());
    if !text.is_char_boundary(offset) {
        return None;
    }
    let mut start = offset;
    while start > 0 && is_part(bytes[start - 1]) {
        start -= 1;
    }
    let mut end = offset;
    while end < bytes.len() && is_part(bytes[end]) {
        end += 1;
    }
    let word = &text[start..end];
    // Not an attribute (`#ttg.blocked`) or a type (`!tt.ptr`).
    if start > 0 && matches!(bytes[start - 1], b'#' | b'!') {
        return None;
    }
    let (dialect, name) = word.split_once('.')?;
    let known = [
        "tt",
        "ttg",
        "ttng",
        "scf",
        "arith",
        "amdgpu",
        "math",
        "cf",
        "triton_gpu",
    ];
    (known.contains(&dialect) && !name.is_empty() && !name.contains('.'))
        .then(|| (word.to_string(), crate::Span::new(start, end)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_op_is_named_once_with_its_dialect() {
        let mut names: Vec<&str> = OPS.iter().map(|(n, _)| *n).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), OPS.len());
        assert!(OPS.iter().all(|(n, d)| n.contains('.') && !d.is_empty()));
    }

    #[test]
    fn the_op_under_the_cursor() {
        let line =
            "  %0 = ttg.local_alloc %x : (tensor<4xf16, #ttg.blocked<{}>>) -> !ttg.memdesc<4xf16>";
        let at = line.find("local_alloc").unwrap() + 3;
        assert_eq!(op_at(line, at).unwrap().0, "ttg.local_alloc");
        assert_eq!(op_at(line, line.find("blocked").unwrap()), None);
        assert_eq!(op_at(line, line.find("memdesc").unwrap()), None);
    }
}
