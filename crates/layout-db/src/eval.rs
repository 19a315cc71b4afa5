//! Evaluation of one item: names are resolved through salsa queries (so a
//! declaration depends only on the declarations it uses), expressions are
//! computed with layout-algebra, and every failure becomes a diagnostic at
//! the span of the expression that caused it.

use layout_algebra::bank::{Direction, PhaseRule};
use layout_algebra::cute::{Layout, Swizzle, SwizzledLayout, Tiler};
use layout_algebra::linear::LinearLayout;
use layout_algebra::xla::XlaShape;
use layout_syntax::{
    Arg, AttrValue, AttrValueKind, BinaryOp, Expr, ExprKind, Item, ItemKind, Span, TritonAttribute,
};

use crate::builtins::{self, ArgValue};
use crate::context::{Ctx, R, Reported};
use crate::costly;
use crate::diagnostic::{Code, Diagnostic, Domain, did_you_mean};
use crate::encoding::{self, Param};
use crate::target::{self, TargetFacts};
use crate::value::Value;
use crate::{DeclName, Evaluated, SourceFile, SourceItem, lookup};

/// Whether a `check`'s expression holds, and if not, why, in the user's
/// words: `scratch_bytes(epilogue) is 8192, expected 0`.
struct Verdict {
    holds: bool,
    why: String,
    labels: Vec<(Span, String)>,
}

pub(crate) fn evaluate(db: &dyn salsa::Database, key: SourceItem) -> Evaluated {
    let parsed = crate::parse_item(db, key);
    let mut ctx = Ctx::new(db, key);
    let value = match &parsed.item {
        // Syntax errors are reported by the parse; evaluating a broken item
        // would only repeat them.
        Some(item) if parsed.errors.is_empty() => {
            // The last line of defence of "no input crashes layoutc": a bug
            // in the algebra becomes a diagnostic on this item, and the panic
            // never crosses a salsa query (each item catches its own).
            let outcome = crate::cancel::interruptible(db, || {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| ctx.item(item)))
            });
            match outcome {
                Ok(v) => v.ok(),
                // Salsa cancels a query by unwinding with `Cancelled` (an
                // edit arrived while a snapshot computed): that is no bug of
                // this item and must reach salsa, or the stale answer would
                // be stored as an E0900.
                Err(payload) if payload.is::<salsa::Cancelled>() => {
                    std::panic::resume_unwind(payload)
                }
                Err(payload) => {
                    let what = payload
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| payload.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "unknown".into());
                    ctx.cx.diags.push(Diagnostic::error(
                        Code::Internal,
                        item.span,
                        format!("internal error while evaluating this ({what}); please report it with this file"),
                    ));
                    None
                }
            }
        }
        _ => None,
    };
    Evaluated {
        value,
        diagnostics: ctx.cx.diags,
        syntax: crate::ItemSyntax::of(parsed, || key.text(db)),
    }
}

/// The cycle through `start`, if its definition refers back to itself.
pub(crate) fn find_cycle(
    db: &dyn salsa::Database,
    file: SourceFile,
    start: &str,
) -> Option<Vec<String>> {
    fn dfs(
        db: &dyn salsa::Database,
        file: SourceFile,
        name: &str,
        start: &str,
        path: &mut Vec<String>,
        seen: &mut std::collections::HashSet<String>,
    ) -> bool {
        let Some(key) = lookup(db, DeclName::new(db, file, name.to_string())) else {
            return false;
        };
        for r in crate::references(db, *key) {
            if r == start {
                path.push(r.clone());
                return true;
            }
            if seen.insert(r.clone()) {
                path.push(r.clone());
                if dfs(db, file, r, start, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![start.to_string()];
    let mut seen = std::collections::HashSet::new();
    dfs(db, file, start, start, &mut path, &mut seen).then_some(path)
}

impl<'db> Ctx<'db> {
    fn item(&mut self, item: &Item) -> R<Value> {
        // Cycles are found when they happen: salsa's cycle recovery gives
        // the re-entered declaration "has errors", and `resolve` then asks
        // whether the declaration being evaluated is on a cycle.
        if let (Some(full), Some(name)) = (item.declared_name(), item.name()) {
            self.declaring = Some((full, name.span));
        }
        match &item.kind {
            ItemKind::Alias { value, .. } => {
                let v = self.expr(value)?;
                match v {
                    Value::Encoding(_)
                    | Value::Location(_)
                    | Value::MemorySpace(_)
                    | Value::Attribute(_)
                    | Value::Unsupported(_) => Ok(v),
                    other => Err(self.cx.error(
                        Code::TypeMismatch,
                        value.span,
                        format!(
                            "a Triton alias must name an encoding (`#ttg.blocked<{{...}}>`), but this is {}",
                            other.type_name()
                        ),
                    )),
                }
            }
            ItemKind::Layout { value, .. } | ItemKind::Let { value, .. } => self.expr(value),
            ItemKind::Check { expr } => self.check(expr),
            ItemKind::Convert {
                name,
                operation,
                src,
                dst,
            } => {
                let source = (self.expr(src)?, src.span);
                let destination = (self.expr(dst)?, dst.span);
                let mut v = builtins::convert_layout(
                    &mut self.cx,
                    source,
                    destination,
                    src.span.to(dst.span),
                )?;
                // The converted value, as the dump's operation names it.
                let text = self.item.text(self.cx.db);
                let operand = operation
                    .and_then(|op| text.get(op.start..op.end))
                    .and_then(|op| op.split_whitespace().nth(1));
                // A pasted conversion of a value loaded in vectors: its
                // registers come packed.
                if let Some(operand) = operand
                    && let Value::Conversion(c) = &mut v
                    && let Some([store, _]) = &mut c.round_trip
                    && let Some(&(_, _, dim)) =
                        crate::kernel::vector_loaded_conversions(self.cx.db, self.cx.file)
                            .iter()
                            .find(|(r, o, _)| *r == name.name && o == operand)
                {
                    let lds = crate::file_target(self.cx.db, self.cx.file).lds_instructions();
                    *store = store.clone().with_packed_registers(
                        &c.src.layout,
                        c.element_bits,
                        dim,
                        &lds,
                    );
                }
                // A conversion of f32 that paired arithmetic made, on a
                // machine that has it: LLVM stores the pairs as they are.
                if let Some(operand) = operand
                    && let Value::Conversion(c) = &mut v
                    && let Some([store, _]) = &mut c.round_trip
                    && crate::file_target(self.cx.db, self.cx.file)
                        .machine()
                        .paired_f32
                    && let Some(&(_, _, how)) =
                        crate::kernel::f32_pair_conversions(self.cx.db, self.cx.file)
                            .iter()
                            .find(|(r, o, _)| *r == name.name && o == operand)
                {
                    store.mnemonic = crate::kernel::f32_pairs(store.mnemonic, how);
                }
                // An f32 result only paired arithmetic takes: loaded as
                // pairs.
                if let Value::Conversion(c) = &mut v
                    && let Some([_, load]) = &mut c.round_trip
                    && self.cx.target().machine().paired_f32
                    && crate::kernel::f32_pair_loads(self.cx.db, self.cx.file).contains(&name.name)
                    && load.mnemonic.instruction
                        == (layout_algebra::bank::Instruction::LdSt { bits: 128 })
                {
                    load.mnemonic = load.mnemonic.in_pairs();
                }
                // A gather's 64-bit indices: NVIDIA reads each one's low
                // word. One element per load either way, and a warp's low
                // words span the bytes its 64-bit reads did: the wavefronts
                // stay.
                if let Value::Conversion(c) = &mut v
                    && let Some([_, load]) = &mut c.round_trip
                    && load.mnemonic.vendor == layout_algebra::machine::Vendor::Nvidia
                    && let layout_algebra::bank::Instruction::LdSt {
                        bits: bits @ (64 | 128),
                    } = load.mnemonic.instruction
                    && crate::kernel::gather_index_conversions(self.cx.db, self.cx.file)
                        .contains(&name.name)
                {
                    // One index: its low word. Two: LLVM reads the vector's
                    // bits as 32-bit words and keeps every second.
                    let read = if bits == 64 { 32 } else { 128 };
                    load.mnemonic = nvidia_words(read, layout_algebra::bank::Direction::Load);
                }
                // 64-bit elements a gather within warps shuffles as two
                // 32-bit halves: NVIDIA reads its source's, and stores its
                // result's, as 32-bit words. The bytes and wavefronts stay.
                if let Value::Conversion(c) = &mut v
                    && let Some([store, load]) = &mut c.round_trip
                {
                    let as_words =
                        |side: &mut crate::round_trip::RoundTripSide,
                         direction: layout_algebra::bank::Direction| {
                            if side.mnemonic.vendor == layout_algebra::machine::Vendor::Nvidia
                                && let layout_algebra::bank::Instruction::LdSt { bits } =
                                    side.mnemonic.instruction
                            {
                                side.mnemonic = nvidia_words(bits, direction);
                            }
                        };
                    if crate::kernel::gather_source_conversions(self.cx.db, self.cx.file)
                        .contains(&name.name)
                    {
                        as_words(load, layout_algebra::bank::Direction::Load);
                    }
                    if crate::kernel::gathered_wide_conversions(self.cx.db, self.cx.file)
                        .contains(&name.name)
                    {
                        as_words(store, layout_algebra::bank::Direction::Store);
                    }
                }
                // Narrow elements packed in register order (a packed
                // conversion's, or branches' joined vector), stored one at
                // a time on AMD: those at bit 16 are high halves.
                if let Some(operand) = operand
                    && let Value::Conversion(c) = &mut v
                    && let Some([store, _]) = &mut c.round_trip
                    && crate::kernel::packed_narrow_values(self.cx.db, self.cx.file)
                        .iter()
                        .any(|v| v == operand)
                {
                    let lds = crate::file_target(self.cx.db, self.cx.file).lds_instructions();
                    *store = store.clone().with_packed_register_order(
                        &c.src.layout,
                        c.element_bits,
                        &lds,
                    );
                }
                // Pairs of bytes on a machine with half registers
                // (gfx1250's true16): each pair a conversion stores is one
                // 16-bit value, and the register allocator puts two to a
                // register, so every second pair is stored from a high
                // half (kernel `column_max_bytes_pairs`; a boolean reduction's
                // conversion likewise).
                if let Value::Conversion(c) = &mut v
                    && c.element_bits == 8
                    && let Some([store, _]) = &mut c.round_trip
                    && store.high_half == 0
                    && store.mnemonic.instruction
                        == (layout_algebra::bank::Instruction::LdSt { bits: 16 })
                {
                    let lds = crate::file_target(self.cx.db, self.cx.file).lds_instructions();
                    if lds.half_registers {
                        *store = store.clone().with_packed_register_order(
                            &c.src.layout,
                            c.element_bits,
                            &lds,
                        );
                    }
                }
                // A bf16 extremum LLVM computed in f32: every element is
                // the high half of its register.
                if let Some(operand) = operand
                    && let Value::Conversion(c) = &mut v
                    && let Some([store, _]) = &mut c.round_trip
                    && crate::kernel::high_half_values(self.cx.db, self.cx.file)
                        .iter()
                        .any(|v| v == operand)
                {
                    *store = store.clone().from_high_halves();
                }
                // A result of which some registers are never read: LLVM
                // loads only the others, whole vectors of them (a vector
                // that holds both halves stays, and so does an `ldmatrix`,
                // inline assembly that returns all its registers).
                if let Some(operand) = operand
                    && let Some(&(_, _, dead)) =
                        crate::kernel::unused_conversion_registers(self.cx.db, self.cx.file)
                            .iter()
                            .find(|(r, o, _)| *r == name.name && o == operand)
                    && let Value::Conversion(c) = &v
                    && let Some([_, load]) = &c.round_trip
                    && !matches!(
                        load.mnemonic.instruction,
                        layout_algebra::bank::Instruction::Matrix { .. }
                    )
                    && 1 << dead.bit
                        >= load.mnemonic.instruction.bits_per_lane() / c.element_bits.max(1)
                    && let Some(live) = dead.live(&c.dst.layout)
                    && let Some(side) = builtins::live_load_side(&mut self.cx, c, &live)
                    && let Value::Conversion(c) = &mut v
                    && let Some([_, load]) = &mut c.round_trip
                {
                    *load = side;
                }
                // Booleans that only serve as conditions or masks: LLVM
                // reads their bytes apart.
                if let Some(operand) = operand
                    && let Value::Conversion(c) = &mut v
                    && let Some([_, load]) = &mut c.round_trip
                    && crate::kernel::boolean_conversions(self.cx.db, self.cx.file)
                        .iter()
                        .any(|(r, o)| *r == name.name && o == operand)
                {
                    *load = load
                        .clone()
                        .booleans_apart(self.cx.target().machine().booleans_in_64_bit_words);
                }
                // Narrow elements only sign-extended: LLVM folds the
                // extension into a load of one element (`ld.shared.s8`,
                // `ds_read_i16`).
                if let Value::Conversion(c) = &mut v
                    && let Some([_, load]) = &mut c.round_trip
                    && crate::kernel::sign_extended_loads(self.cx.db, self.cx.file)
                        .contains(&name.name)
                {
                    load.mnemonic = load.mnemonic.sign_extending(c.element_bits);
                }
                // Halves that live in 32-bit words on one side of the round
                // trip: LLVM moves them as words there.
                if let Some(operand) = operand
                    && let Value::Conversion(c) = &mut v
                    && let Some([store, load]) = &mut c.round_trip
                    && let Some(&(_, _, sides)) =
                        crate::kernel::half_word_conversions(self.cx.db, self.cx.file)
                            .iter()
                            .find(|(r, o, _)| *r == name.name && o == operand)
                {
                    use crate::kernel::WordSides;
                    let elements = |side: &crate::round_trip::RoundTripSide| {
                        side.mnemonic.instruction.bits_per_lane() / c.element_bits.max(1)
                    };
                    // Halves in 32-bit registers are stored as words in
                    // any pairing (`prmt` packs any two); a loaded word
                    // folds into the global store's packing only where its
                    // halves are consecutive registers of one global
                    // vector, not across rows.
                    if WordSides::keeps(sides.store, elements(store)) {
                        store.mnemonic = if c.element_bits == 8 {
                            store.mnemonic.in_byte_pairs()
                        } else {
                            store.mnemonic.in_words()
                        };
                    }
                    // Narrow values joined by branches or a loop, in
                    // 64-bit registers: eight halves, or eight bytes or
                    // more, go as 64-bit words (four halves stay 32-bit
                    // words, as the compiled kernels have them).
                    let wide = match c.element_bits {
                        16 => store.mnemonic.instruction.bits_per_lane() == 128,
                        _ => store.mnemonic.instruction.bits_per_lane() >= 64,
                    };
                    if sides.joined
                        && self.cx.target().machine().joined_halves_in_64_bit_words
                        && wide
                    {
                        store.mnemonic = store.mnemonic.in_words().in_pairs();
                    }
                    let consecutive = |layout| {
                        c.swizzle.as_ref().is_some_and(|s| {
                            crate::round_trip::words_hold_consecutive_registers(
                                layout,
                                s,
                                c.element_bits,
                            )
                        })
                    };
                    if consecutive(&c.dst.layout) && WordSides::keeps(sides.load, elements(load)) {
                        load.mnemonic = load.mnemonic.in_words();
                    }
                }
                self.report_in_dump(item, &v);
                Ok(v)
            }
            ItemKind::Module { attributes, .. } => self.module(attributes),
            ItemKind::MemoryOp {
                name: result,
                op,
                operation,
                from,
                to,
            } => {
                let from = match from {
                    Some(f) => Some((self.expr(f)?, f.span)),
                    None => None,
                };
                let to = (self.expr(to)?, to.span);
                let mut v = crate::access::memory_access(&mut self.cx, *op, from, to, item.span)?;
                // Halves made in 32-bit words: LLVM stores them as words.
                let text = self.item.text(self.cx.db);
                let stored = text
                    .get(operation.start..operation.end)
                    .and_then(|op| op.split_whitespace().nth(1))
                    .map(|v| v.trim_end_matches(','));
                if let Value::Access(a) = &mut v
                    && a.direction == layout_algebra::bank::Direction::Store
                    && let Some(stored) = stored
                    && let Some(&(_, group)) =
                        crate::kernel::half_word_stores(self.cx.db, self.cx.file)
                            .iter()
                            .find(|(v, _)| v == stored)
                    && crate::kernel::WordSides::keeps(group, a.vector)
                {
                    a.instruction = if a.element_bits == 8 {
                        a.instruction.in_byte_pairs()
                    } else {
                        a.instruction.in_words()
                    };
                }
                // A constant's narrow elements: stored as words, on sm100
                // eight or more as 64-bit words.
                if let Value::Access(a) = &mut v
                    && a.direction == layout_algebra::bank::Direction::Store
                    && let Some(stored) = stored
                {
                    let among = |uniform| {
                        crate::kernel::constant_stores(self.cx.db, self.cx.file, uniform)
                            .iter()
                            .any(|v| v == stored)
                    };
                    let lane_bits = a.instruction.instruction.bits_per_lane();
                    let wide = match a.element_bits {
                        16 => lane_bits == 128,
                        bits => bits < 16 && lane_bits >= 64,
                    };
                    if among(false) {
                        a.instruction = a.instruction.in_words();
                    }
                    if wide
                        && self.cx.target().machine().joined_halves_in_64_bit_words
                        && among(true)
                    {
                        a.instruction = a.instruction.in_words().in_pairs();
                    }
                }
                // A bf16 extremum LLVM computed in f32, stored one at a
                // time on AMD: all high halves.
                if let Value::Access(a) = &mut v
                    && a.direction == layout_algebra::bank::Direction::Store
                    && a.counted.instruction
                        == (layout_algebra::bank::Instruction::LdSt { bits: 16 })
                    && a.instruction.vendor == layout_algebra::machine::Vendor::Amd
                    && let Some(stored) = stored
                    && crate::kernel::high_half_values(self.cx.db, self.cx.file)
                        .iter()
                        .any(|v| v == stored)
                {
                    a.high_half = a.instructions;
                }
                // Narrow elements packed in register order, stored one at a
                // time on AMD: those at bit 16 are high halves.
                if let Value::Access(a) = &mut v
                    && a.direction == layout_algebra::bank::Direction::Store
                    && let Some(stored) = stored
                    && crate::kernel::packed_narrow_values(self.cx.db, self.cx.file)
                        .iter()
                        .any(|v| v == stored)
                {
                    let lds = crate::file_target(self.cx.db, self.cx.file).lds_instructions();
                    a.high_half = layout_algebra::bank::high_half_share_of_packed_registers(
                        &a.counted.distributed,
                        a.element_bits,
                        a.counted.instruction,
                        lds.byte_pairs_from_high_half,
                    )
                    .map_or(0, |n| a.instructions / n);
                }
                // Bytes and halves a global load put several to a
                // register, stored one at a time on AMD: those at bit 16 go
                // with the `_d16_hi` form.
                if let Value::Access(a) = &mut v
                    && a.direction == layout_algebra::bank::Direction::Store
                    && a.high_half == 0
                    && let Some(stored) = stored
                    && let Some(&(_, dim)) =
                        crate::kernel::vector_loaded_stores(self.cx.db, self.cx.file)
                            .iter()
                            .find(|(v, _)| v == stored)
                    && a.instruction.vendor == layout_algebra::machine::Vendor::Amd
                {
                    let lds = crate::file_target(self.cx.db, self.cx.file).lds_instructions();
                    a.high_half = layout_algebra::bank::high_half_share(
                        &a.counted.distributed,
                        a.element_bits,
                        a.counted.instruction,
                        dim,
                        lds.byte_pairs_from_high_half,
                    )
                    .map_or(0, |n| a.instructions / n);
                }
                // Bytes a packed conversion takes in pairs, halves an mma
                // takes in pairs: LLVM loads them as words, where a word's
                // elements are consecutive registers.
                if let Value::Access(a) = &mut v
                    && a.direction == layout_algebra::bank::Direction::Load
                    && let Some(result) = result
                    && crate::kernel::byte_pair_loads(self.cx.db, self.cx.file)
                        .contains(&result.name)
                    && (a.element_bits != 16
                        || layout_algebra::bank::compiled_vector_registers(
                            &a.counted.distributed,
                            &a.counted.shared,
                            a.element_bits,
                        )
                        .is_ok_and(|r| r.first() == Some(&0)))
                {
                    a.instruction = if a.element_bits == 8 {
                        a.instruction.in_byte_pairs()
                    } else {
                        a.instruction.in_words()
                    };
                }
                // Narrow elements only sign-extended: LLVM folds the
                // extension into a load of one element.
                if let Value::Access(a) = &mut v
                    && a.direction == layout_algebra::bank::Direction::Load
                    && let Some(result) = result
                    && crate::kernel::sign_extended_loads(self.cx.db, self.cx.file)
                        .contains(&result.name)
                {
                    a.instruction = a.instruction.sign_extending(a.element_bits);
                }
                self.report_in_dump(item, &v);
                Ok(v)
            }
            ItemKind::Operation { op, .. } => Ok(Value::Operation(op.name.clone())),
            ItemKind::Target { preset, fields, .. } => self.target_item(preset.as_ref(), fields),
            ItemKind::Solve { fields, .. } => crate::solve::evaluate(self, fields, item.span),
            ItemKind::Error => Err(Reported),
        }
    }

    /// In a Triton dump checked as it is (`*.ttgir`, `*.mlir`), what a kernel
    /// engineer wants flagged: a conversion through shared memory and a
    /// shared-memory access with bank conflicts, each at its line and, where
    /// its `loc` says, at the kernel's Python line.
    fn report_in_dump(&mut self, item: &Item, v: &Value) {
        let path = self.cx.file.path(self.cx.db);
        if !(path.ends_with(".ttgir") || path.ends_with(".mlir")) {
            return;
        }
        let d = match v {
            Value::Conversion(c)
                if c.kind == layout_algebra::triton::convert_layout::ConversionKind::Shared =>
            {
                Diagnostic::warning(
                    Code::SharedConversion,
                    item.span,
                    format!(
                        "this convert_layout goes through shared memory: {}",
                        c.shared_cost()
                    ),
                )
            }
            Value::Access(a) if a.conflicts > 0 => Diagnostic::warning(
                Code::BankConflicts,
                item.span,
                format!(
                    "this {} has bank conflicts: {} x {} take {} wavefronts per warp, {} extra per wavefront",
                    a.op.mlir_name(),
                    a.instructions,
                    a.instruction,
                    a.wavefronts,
                    a.conflicts
                ),
            ),
            _ => return,
        };
        let d = match item
            .location
            .as_ref()
            .and_then(|l| crate::source_position(self.cx.db, self.cx.file, l))
        {
            Some(line) => d.with_note(format!("in the kernel at {line}")),
            None => d,
        };
        self.cx.report(d);
    }

    /// `module attributes {...}`: the launch shape and, from `ttg.target`,
    /// the machine.
    fn module(&mut self, attributes: &[layout_syntax::ModuleAttribute]) -> R<Value> {
        use layout_syntax::ModuleValue;
        let mut facts = TargetFacts::default();
        let mut machine: Option<(&layout_syntax::ModuleAttribute, &'static target::Preset)> = None;
        for a in attributes {
            let key = a.key.split_once('.').map_or(a.key.as_str(), |(_, k)| k);
            if key == "target" {
                let ModuleValue::Str(name) = &a.value else {
                    return Err(self.cx.error(
                        Code::InvalidTarget,
                        a.span,
                        format!(
                            "`{}` is a string such as \"cuda:90\" or \"hip:gfx942\"",
                            a.key
                        ),
                    ));
                };
                match target::preset_for_triton_target(name) {
                    Some(p) => {
                        facts.merge(&TargetFacts::from_preset(p));
                        machine = Some((a, p));
                    }
                    None => {
                        facts.unknown_machine = Some(name.clone());
                        self.cx.report(Diagnostic::warning(
                            Code::UnknownMachine,
                            a.span,
                            format!("layoutc has no model of \"{name}\"; shared memory is taken as 32 banks of 4 bytes, with ld/st.shared only"),
                        ).with_note(format!(
                            "known targets: {}",
                            target::TRITON_TARGETS.iter().filter(|t| t.preset.is_some()).map(|t| t.target).collect::<Vec<_>>().join(", ")
                        )));
                    }
                }
                continue;
            }
            let slot = match key {
                "num-warps" => &mut facts.num_warps,
                "threads-per-warp" => &mut facts.threads_per_warp,
                "num-ctas" => &mut facts.num_ctas,
                _ => continue, // other attributes do not concern layouts
            };
            let v = match &a.value {
                ModuleValue::Int(v, _) => *v,
                _ => {
                    return Err(self.cx.error(
                        Code::InvalidTarget,
                        a.span,
                        format!("\"{}\" must be an integer such as `4 : i32`", a.key),
                    ));
                }
            };
            if v <= 0 || v > 1 << 16 || (v & (v - 1)) != 0 {
                return Err(self.cx.error(
                    Code::InvalidTarget,
                    a.span,
                    format!("\"{}\" must be a power of two, but is {v}", a.key),
                ));
            }
            *slot = Some(v as u32);
        }
        // The machine fixes the warp size; the module must agree with it.
        if let (Some((at, preset)), Some(tpw)) = (machine, facts.threads_per_warp)
            && tpw != preset.threads_per_warp
        {
            let stated = attributes
                .iter()
                .find(|a| a.key.ends_with("threads-per-warp"))
                .map_or(at.span, |a| a.span);
            return Err(self.cx.report(
                Diagnostic::error(
                    Code::TargetMismatch,
                    stated,
                    format!(
                        "a warp has {tpw} threads here, but {} runs {}-thread warps",
                        preset.name, preset.threads_per_warp
                    ),
                )
                .with_label(at.span, format!("the target is {} here", preset.name)),
            ));
        }
        Ok(Value::Target(Box::new(facts)))
    }

    fn target_item(
        &mut self,
        preset: Option<&layout_syntax::Ident>,
        fields: &[layout_syntax::Field],
    ) -> R<Value> {
        let mut facts = TargetFacts::default();
        if let Some(p) = preset {
            facts.merge(&self.preset(&p.name, p.span)?);
        }
        const KEYS: [&str; 8] = [
            "preset",
            "warp_size",
            "threads_per_warp",
            "num_warps",
            "num_ctas",
            "banks",
            "bank_bytes",
            "phases",
        ];
        for f in fields {
            let key = f.key.name.as_str();
            if key == "preset" {
                match &f.value.kind {
                    ExprKind::Name(n) | ExprKind::Str(n) => {
                        let p = self.preset(n, f.value.span)?;
                        facts.merge(&p);
                    }
                    _ => {
                        return Err(self.cx.error(
                            Code::InvalidTarget,
                            f.value.span,
                            "`preset` takes a name such as sm90 or gfx942",
                        ));
                    }
                }
                continue;
            }
            if key == "phases" {
                let v = self.expr(&f.value)?;
                facts.phases = self.phases(&v, f.value.span)?;
                continue;
            }
            let slot = match key {
                "warp_size" | "threads_per_warp" => &mut facts.threads_per_warp,
                "num_warps" => &mut facts.num_warps,
                "num_ctas" => &mut facts.num_ctas,
                "banks" => &mut facts.banks,
                "bank_bytes" => &mut facts.bank_bytes,
                _ => {
                    let mut d = Diagnostic::error(
                        Code::UnknownKey,
                        f.key.span,
                        format!("a target has no key `{key}`"),
                    );
                    if let Some(s) = did_you_mean(key, KEYS) {
                        d = d.with_suggestion(s);
                    }
                    return Err(self
                        .cx
                        .report(d.with_note(format!("the keys are {}", KEYS.join(", ")))));
                }
            };
            let v = self.expr(&f.value)?;
            let n = self.cx.int(&v, f.value.span)?;
            if n <= 0 || n > 1 << 16 || (n & (n - 1)) != 0 {
                return Err(self.cx.error(
                    Code::InvalidTarget,
                    f.value.span,
                    format!("`{key}` must be a power of two, but is {n}"),
                ));
            }
            *slot = Some(n as u32);
        }
        Ok(Value::Target(Box::new(facts)))
    }

    fn preset(&mut self, name: &str, span: Span) -> R<TargetFacts> {
        if let Some(p) = target::preset(name) {
            return Ok(TargetFacts::from_preset(p));
        }
        let names = target::PRESETS.iter().map(|p| p.name);
        let mut d = Diagnostic::error(
            Code::InvalidTarget,
            span,
            format!("there is no target preset `{name}`"),
        );
        if let Some(s) = did_you_mean(name, names) {
            d = d.with_suggestion(s);
        }
        d = d.with_note(format!(
            "the presets are {}",
            target::PRESETS
                .iter()
                .map(|p| p.name)
                .collect::<Vec<_>>()
                .join(", ")
        ));
        Err(self.cx.report(d))
    }

    /// `phases = [(128, "load", [0, 1, 2, 3, 20, 21, 22, 23]), (64, "store", [0, ..., 15], 32)]`:
    /// per access width (and optionally direction), the lanes served
    /// together with lane 0, and optionally the banks the access sees.
    fn phases(&mut self, v: &Value, span: Span) -> R<Vec<PhaseRule>> {
        let bad = |ctx: &mut Self, why: &str| {
            ctx.cx.error(
                Code::InvalidTarget,
                span,
                format!(
                    "`phases` is a list of (access bits, [\"load\" | \"store\",] [lanes served with lane 0] [, banks]), e.g. [(128, \"load\", [0, 1, 2, 3, 20, 21, 22, 23])]{why}"
                ),
            )
        };
        let Value::List(items) = v else {
            return Err(bad(self, ""));
        };
        let mut out = Vec::new();
        for it in items {
            let Value::Tuple(parts) = it else {
                return Err(bad(self, ""));
            };
            // (bits, ["load" | "store",] [lanes] [, banks])
            let (bits, rest) = match parts.split_first() {
                Some((Value::Int(bits), rest)) => (*bits, rest),
                _ => return Err(bad(self, "")),
            };
            let (direction, rest) = match rest.split_first() {
                Some((Value::Str(d), rest)) => match d.as_str() {
                    "load" => (Some(Direction::Load), rest),
                    "store" => (Some(Direction::Store), rest),
                    _ => {
                        return Err(bad(
                            self,
                            &format!("; \"{d}\" is neither \"load\" nor \"store\""),
                        ));
                    }
                },
                _ => (None, rest),
            };
            let (lanes, banks) = match rest {
                [Value::List(lanes)] => (lanes, None),
                [Value::List(lanes), Value::Int(banks)] => (lanes, Some(*banks)),
                _ => return Err(bad(self, "")),
            };
            let banks = match banks.map(u32::try_from) {
                None => None,
                Some(Ok(b)) if b.is_power_of_two() && b <= 1 << 16 => Some(b),
                Some(_) => {
                    return Err(bad(
                        self,
                        "; the banks of a rule are a power of two up to 65536",
                    ));
                }
            };
            let bits = match u32::try_from(bits) {
                Ok(b) if [8, 16, 32, 64, 128].contains(&b) => b,
                _ => {
                    return Err(bad(
                        self,
                        &format!("; {bits} is not an access width (8 to 128 bits)"),
                    ));
                }
            };
            let lanes: Option<Vec<u32>> = lanes
                .iter()
                .map(|l| match l {
                    Value::Int(n) if (0..1 << 16).contains(n) => Some(*n as u32),
                    _ => None,
                })
                .collect();
            let Some(lanes) = lanes else {
                return Err(bad(self, "; lanes are integers"));
            };
            match PhaseRule::from_lanes(bits, direction, &lanes) {
                Ok(rule) => out.push(PhaseRule { banks, ..rule }),
                Err(why) => return Err(self.cx.error(Code::InvalidTarget, span, why)),
            }
        }
        Ok(out)
    }

    fn check(&mut self, expr: &Expr) -> R<Value> {
        let v = self.verdict(expr)?;
        if !v.holds {
            let mut d = Diagnostic::error(Code::CheckFailed, expr.span, v.why);
            for (span, text) in v.labels {
                d = d.with_label(span, text);
            }
            self.cx.report(d);
        }
        Ok(Value::Bool(v.holds))
    }

    /// The source text of `e`, shortened for a message.
    fn quote(&self, e: &Expr) -> String {
        let text = self
            .item
            .text(self.cx.db)
            .get(e.span.start..e.span.end)
            .unwrap_or("this");
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if text.chars().count() > 60 {
            format!("{}...", text.chars().take(57).collect::<String>())
        } else {
            text
        }
    }

    /// Evaluates a `check`'s expression, keeping what explains a failure:
    /// both sides of a comparison, the failing part of `and`, every part of
    /// `or`.
    fn verdict(&mut self, e: &Expr) -> R<Verdict> {
        let holds = |holds| Verdict {
            holds,
            why: String::new(),
            labels: Vec::new(),
        };
        match &e.kind {
            ExprKind::Binary { op, lhs, rhs }
                if matches!(
                    op,
                    BinaryOp::Eq
                        | BinaryOp::Ne
                        | BinaryOp::Lt
                        | BinaryOp::Le
                        | BinaryOp::Gt
                        | BinaryOp::Ge
                        | BinaryOp::In
                ) =>
            {
                let l = self.expr(lhs)?;
                let r = self.expr(rhs)?;
                let ok = match self.compare(*op, &l, &r, e.span)? {
                    Value::Bool(b) => b,
                    _ => unreachable!("comparisons are booleans"),
                };
                if ok {
                    return Ok(holds(true));
                }
                let (ls, rs) = (short(&l), short(&r));
                let rhs_text = self.quote(rhs);
                let expected = match op {
                    BinaryOp::Eq => rs.clone(),
                    BinaryOp::Ne => format!("anything but {rs}"),
                    BinaryOp::In => format!("one of {rs}"),
                    other => format!("{} {rs}", other.symbol()),
                };
                let mut why = format!("{} is {ls}, expected {expected}", self.quote(lhs));
                let mut labels = vec![(lhs.span, format!("this is {ls}"))];
                if rhs_text != rs && !matches!(rhs.kind, ExprKind::Str(_)) {
                    why += &format!(" (the value of {rhs_text})");
                    labels.push((rhs.span, format!("this is {rs}")));
                }
                Ok(Verdict {
                    holds: false,
                    why,
                    labels,
                })
            }
            ExprKind::Not(x) => {
                let v = self.verdict(x)?;
                Ok(Verdict {
                    holds: !v.holds,
                    why: format!("{} holds, expected it not to", self.quote(x)),
                    labels: Vec::new(),
                })
            }
            ExprKind::Binary {
                op: BinaryOp::And,
                lhs,
                rhs,
            } => {
                // Both parts are evaluated (an error in either is reported);
                // the first false one explains the failure.
                let a = self.verdict(lhs)?;
                let b = self.verdict(rhs)?;
                Ok(if a.holds { b } else { a })
            }
            ExprKind::Binary {
                op: BinaryOp::Or,
                lhs,
                rhs,
            } => {
                let a = self.verdict(lhs)?;
                let b = self.verdict(rhs)?;
                if a.holds {
                    return Ok(a);
                }
                if b.holds {
                    return Ok(b);
                }
                let mut labels = a.labels;
                labels.extend(b.labels);
                Ok(Verdict {
                    holds: false,
                    why: format!("neither holds: {}; {}", a.why, b.why),
                    labels,
                })
            }
            _ => match self.expr(e)? {
                Value::Bool(b) => Ok(Verdict {
                    holds: b,
                    why: format!("{} is false", self.quote(e)),
                    labels: Vec::new(),
                }),
                other => Err(self.cx.error(
                    Code::CheckNotBool,
                    e.span,
                    format!(
                        "`check` needs a boolean (a comparison or a predicate), but this is {}",
                        other.type_name()
                    ),
                )),
            },
        }
    }

    /// `not x`, `a and b`, `a or b` outside a `check`: plain booleans.
    fn boolean(&mut self, e: &Expr) -> R<bool> {
        match self.expr(e)? {
            Value::Bool(b) => Ok(b),
            other => Err(self.cx.error(
                Code::TypeMismatch,
                e.span,
                format!("expected a boolean, but this is {}", other.type_name()),
            )),
        }
    }

    pub fn expr(&mut self, e: &Expr) -> R<Value> {
        match &e.kind {
            ExprKind::Int(n) => Ok(Value::Int(*n)),
            ExprKind::Bool(b) => Ok(Value::Bool(*b)),
            ExprKind::Str(s) => Ok(Value::Str(s.clone())),
            ExprKind::Underscore => Ok(Value::Underscore),
            ExprKind::Name(n) => self.resolve(n, e.span),
            ExprKind::AliasRef(n) => self.resolve(&format!("#{n}"), e.span),
            ExprKind::Tuple(args) => {
                let named = args.iter().filter(|a| a.name.is_some()).count();
                if named == 0 {
                    let mut out = Vec::with_capacity(args.len());
                    for a in args {
                        out.push(self.expr(&a.value)?);
                    }
                    Ok(Value::Tuple(out))
                } else if named == args.len() {
                    let mut out = Vec::with_capacity(args.len());
                    for a in args {
                        let n = a.name.as_ref().expect("all named");
                        if out.iter().any(|(k, _)| k == &n.name) {
                            return Err(self.cx.error(
                                Code::UnknownKey,
                                n.span,
                                format!("`{}` is given twice", n.name),
                            ));
                        }
                        out.push((n.name.clone(), self.expr(&a.value)?));
                    }
                    Ok(Value::Named(out))
                } else {
                    Err(self.cx.error(
                        Code::TypeMismatch,
                        e.span,
                        "a tuple is either all positional `(1, 2)` or all named `(dim0 = 1, dim1 = 2)`",
                    ))
                }
            }
            ExprKind::List(items) => {
                let mut out = Vec::with_capacity(items.len());
                for i in items {
                    out.push(self.expr(i)?);
                }
                Ok(Value::List(out))
            }
            ExprKind::Neg(x) => {
                let v = self.expr(x)?;
                let n = self.cx.int(&v, x.span)?;
                n.checked_neg()
                    .map(Value::Int)
                    .ok_or_else(|| self.cx.error(Code::Arithmetic, e.span, "integer overflow"))
            }
            ExprKind::Not(x) => Ok(Value::Bool(!self.boolean(x)?)),
            ExprKind::Binary {
                op: op @ (BinaryOp::And | BinaryOp::Or),
                lhs,
                rhs,
            } => {
                // Both sides are evaluated, so an error on either is reported.
                let l = self.boolean(lhs)?;
                let r = self.boolean(rhs)?;
                Ok(Value::Bool(if *op == BinaryOp::Or {
                    l || r
                } else {
                    l && r
                }))
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let l = self.expr(lhs)?;
                let r = self.expr(rhs)?;
                self.binary(*op, l, r, lhs.span, rhs.span, e.span)
            }
            ExprKind::Call { .. } if costly::is_memoised_call(self.cx.db, self.item, e) => {
                let outcome = costly::counting_call(self.cx.db, self.item, e.span);
                self.cx.diags.extend(outcome.diagnostics.iter().cloned());
                outcome.value.clone().ok_or(Reported)
            }
            ExprKind::Call { callee, args } => self.call(callee, args, e.span),
            ExprKind::Attribute(a) => self.attribute(a, e.span),
            ExprKind::Cute(text) => self.cute(text, e.span),
            ExprKind::Xla(text) => {
                let r = XlaShape::parse(text.trim());
                self.cx
                    .alg(r, Domain::Xla, e.span)
                    .map(|x| Value::Xla(Box::new(x)))
            }
            ExprKind::Tiler(text) => {
                let r = Tiler::parse(text.trim());
                self.cx
                    .alg(r, Domain::Cute, e.span)
                    .map(|t| Value::Tiler(Box::new(t)))
            }
            ExprKind::MemDesc(m) => self.memdesc(m, e.span),
            ExprKind::Location(l) => Ok(Value::Location(Box::new(l.clone()))),
            ExprKind::Tensor(t) => {
                let Some(enc_expr) = &t.encoding else {
                    return Err(self.cx.error(
                        Code::TypeMismatch,
                        e.span,
                        "this tensor type has no encoding; write tensor<64x64xf16, #blocked>",
                    ));
                };
                let enc = self.expr(enc_expr)?;
                if let Value::Unsupported(kind) = &enc {
                    return Err(self.cx.error(
                        Code::UnsupportedEncoding,
                        enc_expr.span,
                        format!("this tensor's encoding, `{kind}`, is one layoutc does not model"),
                    ));
                }
                let Value::Encoding(enc) = enc else {
                    return Err(self.cx.error(
                        Code::TypeMismatch,
                        enc_expr.span,
                        format!(
                            "a tensor's encoding must be a Triton encoding, but this is {}",
                            enc.type_name()
                        ),
                    ));
                };
                let mut shape = Vec::with_capacity(t.dims.len());
                for &d in &t.dims {
                    match u32::try_from(d) {
                        Ok(d) if d > 0 => shape.push(d),
                        _ => {
                            return Err(self.cx.error(
                                Code::TypeMismatch,
                                e.span,
                                format!("tensor dims must be positive, not {d}"),
                            ));
                        }
                    }
                }
                self.cx
                    .bind_tensor(*enc, shape, &t.element_type, e.span, enc_expr.span)
            }
            ExprKind::Linear { ins, outs } => {
                let bases: Vec<(String, Vec<Vec<i64>>)> = ins
                    .iter()
                    .map(|(n, b)| (n.name.clone(), b.clone()))
                    .collect();
                let outs: Vec<(layout_algebra::DimName, i64)> = outs
                    .iter()
                    .map(|(n, s)| (n.name.as_str().into(), *s))
                    .collect();
                let r = LinearLayout::from_bases_with_sizes(bases, outs, false);
                self.cx
                    .alg(r, Domain::Linear, e.span)
                    .map(|l| Value::Linear(Box::new(l)))
            }
            ExprKind::Error => Err(Reported),
        }
    }

    /// Looks a name up and returns its value; reports undefined names with
    /// a suggestion, and uses of declarations that have errors.
    fn resolve(&mut self, name: &str, span: Span) -> R<Value> {
        let decl = DeclName::new(self.cx.db, self.cx.file, name.to_string());
        match crate::declared_value(self.cx.db, decl) {
            // A solve block stands for its answer.
            Some(Some(Value::Solve(outcome))) => {
                crate::solve::as_operand(outcome).ok_or_else(|| {
                    self.cx.error(
                        Code::DependsOnError,
                        span,
                        format!(
                            "`{name}` has no answer ({}): {}",
                            outcome.status.name(),
                            outcome.why
                        ),
                    )
                })
            }
            Some(Some(v)) => Ok(v.clone()),
            Some(None) => {
                if let Some((me, my_span)) = self.declaring.clone()
                    && let Some(path) = find_cycle(self.cx.db, self.cx.file, &me)
                {
                    if !self
                        .cx
                        .diags
                        .iter()
                        .any(|d| d.code == Code::CyclicDefinition)
                    {
                        self.cx.report(cycle_diagnostic(&me, my_span, &path));
                    }
                    return Err(Reported);
                }
                let mut d = Diagnostic::error(
                    Code::DependsOnError,
                    span,
                    format!("`{name}` has errors, so this cannot be evaluated"),
                );
                d.broken_dependency = Some(name.to_string());
                Err(self.cx.report(d))
            }
            None => {
                let is_alias = name.starts_with('#');
                let candidates: Vec<&str> = self
                    .cx
                    .file
                    .names(self.cx.db)
                    .iter()
                    .map(|(n, _)| n.as_str())
                    .filter(|n| n.starts_with('#') == is_alias)
                    .collect();
                let (code, what) = if is_alias {
                    (Code::UndefinedAlias, "Triton alias")
                } else {
                    (Code::UndefinedName, "name")
                };
                let mut d = Diagnostic::error(code, span, format!("undefined {what} `{name}`"));
                if let Some(s) = did_you_mean(name, candidates.iter().copied()) {
                    d = d.with_suggestion(s);
                } else if builtins::is_builtin(name) {
                    d = d.with_note(format!("`{name}` is a function; call it with arguments"));
                }
                Err(self.cx.report(d))
            }
        }
    }

    /// `!ttg.memdesc<3x64x32xf16, #shared, #smem, mutable>`: the shared
    /// layout of one buffer. Dims in front of the encoding's rank count
    /// buffers (a pipeline's stages) and are not part of the layout.
    fn memdesc(&mut self, m: &layout_syntax::MemDescType, span: Span) -> R<Value> {
        let enc_span = m.encoding.span;
        let enc = match self.expr(&m.encoding)? {
            Value::Encoding(enc) if enc.is_shared() => enc,
            Value::Unsupported(kind) => {
                return Err(self.cx.error(
                    Code::UnsupportedEncoding,
                    enc_span,
                    format!("this buffer's encoding, `{kind}`, is one layoutc does not model"),
                ));
            }
            other => {
                return Err(self.cx.error(
                    Code::TypeMismatch,
                    enc_span,
                    format!(
                        "a memdesc's encoding is a shared-memory encoding (`#ttg.swizzled_shared<{{...}}>`), but this is {}",
                        match &other {
                            Value::Encoding(e) => format!("#ttg.{}", e.kind()),
                            v => v.type_name().to_string(),
                        }
                    ),
                ));
            }
        };
        if let Some(space) = &m.memory_space {
            match self.expr(space)? {
                Value::MemorySpace(_) => {}
                other => {
                    return Err(self.cx.error(
                        Code::TypeMismatch,
                        space.span,
                        format!(
                            "a memdesc's memory space is `#ttg.shared_memory` (or an alias of it), but this is {}",
                            other.type_name()
                        ),
                    ));
                }
            }
        }
        let mut shape = Vec::with_capacity(m.dims.len());
        for &d in &m.dims {
            match u32::try_from(d) {
                Ok(d) if d > 0 => shape.push(d),
                _ => {
                    return Err(self.cx.error(
                        Code::TypeMismatch,
                        span,
                        format!("memdesc dims must be positive, not {d}"),
                    ));
                }
            }
        }
        let rank = enc.fixed_rank().unwrap_or(shape.len()).min(shape.len());
        if shape.len() > rank + 1 {
            // Triton: the encoding's rank, or one more for a pipeline's buffers.
            return Err(self.cx.error(
                Code::RankMismatch,
                span,
                format!(
                    "a memdesc has the encoding's rank ({rank}) or one more dim (its buffers), not {}",
                    shape.len()
                ),
            ));
        }
        shape.drain(..shape.len() - rank);
        // A sub-view (`..., mutable, 128x32>`) is laid out by its whole
        // allocation, as Triton does; the view is taken at the origin (its
        // position is not part of the type).
        let Some(alloc) = &m.alloc_shape else {
            return self
                .cx
                .bind_tensor(*enc, shape, &m.element_type, span, enc_span);
        };
        let alloc: Vec<u32> = alloc[alloc.len().saturating_sub(rank)..]
            .iter()
            .map(|&d| u32::try_from(d).unwrap_or(0))
            .collect();
        if alloc.len() != rank || alloc.iter().zip(&shape).any(|(&a, &v)| a < v || a == 0) {
            return Err(self.cx.error(
                Code::DimMismatch,
                span,
                format!(
                    "the view {} does not fit in its allocation {}",
                    crate::value::shape_text(&shape),
                    crate::value::shape_text(&alloc)
                ),
            ));
        }
        match self
            .cx
            .bind_tensor(*enc, alloc, &m.element_type, span, enc_span)?
        {
            Value::Tensor(mut t) => {
                t.shape = shape;
                Ok(Value::Tensor(t))
            }
            other => Ok(other),
        }
    }

    fn attribute(&mut self, a: &TritonAttribute, span: Span) -> R<Value> {
        // Dialects below Triton's: LLVM's memory-model tags on fences.
        if matches!(a.dialect.as_str(), "llvm" | "nvvm" | "rocdl") {
            return Ok(Value::Attribute(format!("{}.{}", a.dialect, a.kind.name)));
        }
        if let Some(space) = encoding::memory_space(&a.kind.name) {
            if !a.entries.is_empty() || !a.padding.is_empty() {
                return Err(self.cx.error(
                    Code::UnknownKey,
                    span,
                    format!("#{}.{} takes no parameters", a.dialect, a.kind.name),
                ));
            }
            return Ok(Value::MemorySpace(space.to_string()));
        }
        if let Some(why) = encoding::unsupported(&a.kind.name) {
            // Named in a dump, harmless; used for a tensor, an error there.
            self.cx.report(Diagnostic::warning(
                Code::UnmodelledEncoding,
                a.kind.span,
                format!("layoutc does not model `{}`: {why}", a.kind.name),
            ));
            return Ok(Value::Unsupported(a.kind.name.clone()));
        }
        let params = self.attr_params(a)?;
        let mut diags = Vec::new();
        let enc = encoding::build(&a.kind.name, a.kind.span, span, &params, &mut diags);
        self.cx.diags.extend(diags);
        enc.map(|e| Value::Encoding(Box::new(e))).ok_or(Reported)
    }

    fn attr_params(&mut self, a: &TritonAttribute) -> R<Vec<Param>> {
        let entries = &a.entries;
        let mut params = Vec::with_capacity(entries.len() + 1);
        // `[32:+4, 64:+8]` of a padded layout, as one parameter.
        if let (Some(first), Some(last)) = (a.padding.first(), a.padding.last()) {
            let span = first.span.to(last.span);
            params.push(Param {
                key: "intervals".into(),
                key_span: span,
                value: Value::List(
                    a.padding
                        .iter()
                        .map(|p| Value::Tuple(vec![Value::Int(p.interval), Value::Int(p.padding)]))
                        .collect(),
                ),
                span,
            });
        }
        for entry in entries {
            params.push(Param {
                key: entry.key.name.clone(),
                key_span: entry.key.span,
                value: self.attr_value(&entry.value)?,
                span: entry.value.span,
            });
        }
        Ok(params)
    }

    fn attr_value(&mut self, v: &AttrValue) -> R<Value> {
        Ok(match &v.kind {
            AttrValueKind::Int(n) => Value::Int(*n),
            AttrValueKind::Bool(b) => Value::Bool(*b),
            AttrValueKind::Str(s) => Value::Str(s.clone()),
            AttrValueKind::List(items) => {
                let mut out = Vec::with_capacity(items.len());
                for i in items {
                    out.push(self.attr_value(i)?);
                }
                Value::List(out)
            }
            AttrValueKind::Dict(entries) => {
                let mut out = Vec::with_capacity(entries.len());
                for e in entries {
                    out.push((e.key.name.clone(), self.attr_value(&e.value)?));
                }
                Value::Named(out)
            }
            AttrValueKind::Alias(n) => self.resolve(&format!("#{n}"), v.span)?,
            AttrValueKind::Attribute(a) => self.attribute(a, v.span)?,
            AttrValueKind::Error => return Err(Reported),
        })
    }

    /// `cute TEXT`: a layout, a swizzle, or a swizzled layout.
    fn cute(&mut self, text: &str, span: Span) -> R<Value> {
        let text = text.trim();
        if text.starts_with("Sw<") {
            if text.contains(" o ") || text.contains(")o") {
                let r = SwizzledLayout::parse(text);
                return self
                    .cx
                    .alg(r, Domain::Cute, span)
                    .map(|s| Value::Swizzled(Box::new(s)));
            }
            let inner = text
                .strip_prefix("Sw<")
                .and_then(|t| t.strip_suffix('>'))
                .map(|t| {
                    t.split(',')
                        .map(|x| x.trim().parse::<i64>())
                        .collect::<Result<Vec<_>, _>>()
                });
            return match inner {
                Some(Ok(v))
                    if v.len() == 3
                        && (0..64).contains(&v[0])
                        && (0..64).contains(&v[1])
                        && (-64..64).contains(&v[2]) =>
                {
                    let r = Swizzle::new(v[0] as u32, v[1] as u32, v[2] as i32);
                    self.cx.alg(r, Domain::Cute, span).map(Value::Swizzle)
                }
                _ => Err(self.cx.error(
                    Code::CutePrecondition,
                    span,
                    format!("`{text}` is not a swizzle; CuTe prints them as Sw<B,M,S>"),
                )),
            };
        }
        if text.ends_with('>') && text.contains("Sw<") {
            // `L o k o Sw<B,M,S>`, as C++ prints the inverse of a swizzled
            // layout with an offset.
            let r = layout_algebra::cute::LayoutAfterSwizzle::parse(text);
            return self
                .cx
                .alg(r, Domain::Cute, span)
                .map(|l| Value::LayoutAfterSwizzle(Box::new(l)));
        }
        if text.contains('@') {
            let r = layout_algebra::cute::coord::CoordLayout::parse(text);
            return self
                .cx
                .alg(r, Domain::Cute, span)
                .map(|l| Value::CuteCoord(Box::new(l)));
        }
        let r = Layout::parse(text);
        if r.is_err() && text.starts_with('(') && text.ends_with(')') {
            // CuTe prints a tile (`make_tile(2:4, 8)`) as a tuple of layouts,
            // `(_2:_4,_8)`: the by-mode tiler `<2:4, 8>`.
            if let Ok(t) = Tiler::parse(&format!("<{}>", &text[1..text.len() - 1])) {
                return Ok(Value::Tiler(Box::new(t)));
            }
        }
        self.cx
            .alg(r, Domain::Cute, span)
            .map(|l| Value::Cute(Box::new(l)))
    }

    fn binary(
        &mut self,
        op: BinaryOp,
        l: Value,
        r: Value,
        ls: Span,
        rs: Span,
        span: Span,
    ) -> R<Value> {
        use BinaryOp::*;
        match op {
            Eq | Ne | Lt | Le | Gt | Ge | In => self.compare(op, &l, &r, span),
            And | Or => unreachable!("`and` and `or` short-circuit before their operands meet"),
            Mul if l.as_linear().is_some() || r.as_linear().is_some() => {
                let a = self.cx.linear(&l, ls)?;
                let b = self.cx.linear(&r, rs)?;
                let p = a.product(&b);
                self.cx
                    .alg(p, Domain::Linear, span)
                    .map(|l| Value::Linear(Box::new(l)))
            }
            Add | Sub | Mul | Div | Rem => {
                let a = self.cx.int(&l, ls)?;
                let b = self.cx.int(&r, rs)?;
                if matches!(op, Div | Rem) && b == 0 {
                    return Err(self.cx.error(Code::Arithmetic, rs, "division by zero"));
                }
                let v = match op {
                    Add => a.checked_add(b),
                    Sub => a.checked_sub(b),
                    Mul => a.checked_mul(b),
                    Div => a.checked_div(b),
                    _ => a.checked_rem(b),
                };
                v.map(Value::Int)
                    .ok_or_else(|| self.cx.error(Code::Arithmetic, span, "integer overflow"))
            }
        }
    }

    fn compare(&mut self, op: BinaryOp, l: &Value, r: &Value, span: Span) -> R<Value> {
        use BinaryOp::*;
        if op == In {
            let Value::List(items) = r else {
                return Err(self.cx.error(
                    Code::TypeMismatch,
                    span,
                    format!(
                        "`in` looks a value up in a list (`kind(c) in [\"noop\", \"register\"]`), but the right side is {}",
                        r.type_name()
                    ),
                ));
            };
            for item in items {
                // Values of different kinds are simply not equal here.
                let same_kind = std::mem::discriminant(l) == std::mem::discriminant(item)
                    || (l.as_linear().is_some() && item.as_linear().is_some());
                if same_kind && self.equal(l, item, span)? {
                    return Ok(Value::Bool(true));
                }
            }
            return Ok(Value::Bool(false));
        }
        // `(4)`, CuTe's one-element tuple, orders like the number 4.
        let number = |v: &Value| match v {
            Value::Int(n) => Some(*n),
            Value::Tuple(items) if items.len() == 1 => match items[0] {
                Value::Int(n) => Some(n),
                _ => None,
            },
            _ => None,
        };
        if let (Some(a), Some(b), false) = (number(l), number(r), matches!(op, Eq | Ne)) {
            return Ok(Value::Bool(match op {
                Lt => a < b,
                Le => a <= b,
                Gt => a > b,
                _ => a >= b,
            }));
        }
        if let (Value::Int(a), Value::Int(b)) = (l, r) {
            return Ok(Value::Bool(match op {
                Eq => a == b,
                Ne => a != b,
                Lt => a < b,
                Le => a <= b,
                Gt => a > b,
                Ge => a >= b,
                _ => unreachable!("comparison operators only"),
            }));
        }
        if !matches!(op, Eq | Ne) {
            return Err(self.cx.error(
                Code::TypeMismatch,
                span,
                format!(
                    "`{}` compares integers, not {} and {}",
                    op.symbol(),
                    l.type_name(),
                    r.type_name()
                ),
            ));
        }
        let eq = self.equal(l, r, span)?;
        Ok(Value::Bool(eq == (op == Eq)))
    }

    /// Equality across the forms a user may write the same thing in.
    fn equal(&mut self, l: &Value, r: &Value, span: Span) -> R<bool> {
        if let (Some(a), Some(b)) = (l.as_linear(), r.as_linear()) {
            return Ok(a == b);
        }
        match (l, r) {
            (Value::Tuple(a) | Value::List(a), Value::Tuple(b) | Value::List(b)) => {
                if a.len() != b.len() {
                    return Ok(false);
                }
                for (x, y) in a.iter().zip(b) {
                    if !self.equal(x, y, span)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            (Value::Named(a), Value::Named(b)) => {
                if a.len() != b.len() {
                    return Ok(false);
                }
                for ((n, x), (m, y)) in a.iter().zip(b) {
                    if n != m || !self.equal(x, y, span)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            // Structurally, as CuTe prints them (the order of the basis
            // directions is not part of the layout).
            (Value::CuteCoord(a), Value::CuteCoord(b)) => Ok(a.to_string() == b.to_string()),
            (Value::Int(_), Value::Int(_))
            | (Value::Bool(_), Value::Bool(_))
            | (Value::Str(_), Value::Str(_))
            | (Value::Cute(_), Value::Cute(_))
            | (Value::Swizzle(_), Value::Swizzle(_))
            | (Value::Swizzled(_), Value::Swizzled(_))
            | (Value::LayoutAfterSwizzle(_), Value::LayoutAfterSwizzle(_))
            | (Value::CuteTensor(_), Value::CuteTensor(_))
            | (Value::Tiler(_), Value::Tiler(_))
            | (Value::Xla(_), Value::Xla(_))
            | (Value::Encoding(_), Value::Encoding(_)) => Ok(l == r),
            (Value::Int(_), Value::Tuple(t)) | (Value::Tuple(t), Value::Int(_)) if t.len() == 1 => {
                let (a, b) = match (l, r) {
                    (Value::Tuple(t), x) | (x, Value::Tuple(t)) => (&t[0], x),
                    _ => unreachable!(),
                };
                self.equal(a, b, span)
            }
            _ => Err(self.cx.error(
                Code::TypeMismatch,
                span,
                format!(
                    "cannot compare {} with {}; convert one side first (to_linear, to_cute)",
                    l.type_name(),
                    r.type_name()
                ),
            )),
        }
    }

    /// A call of a builtin (through its table), or a value applied to
    /// coordinates.
    pub(crate) fn call(&mut self, callee: &Expr, args: &[Arg], span: Span) -> R<Value> {
        if let ExprKind::Name(name) = &callee.kind {
            // A declared name shadows a builtin; an unknown one is reported
            // with the functions it resembles, before its arguments.
            match crate::resolve(self.cx.db, self.cx.file, name) {
                crate::Resolution::Declared(_) => {}
                crate::Resolution::Builtin(b) => {
                    let args = self.args(args)?;
                    return builtins::call(&mut self.cx, b, callee.span, args, span);
                }
                crate::Resolution::Unresolved => {
                    return Err(self
                        .cx
                        .report(builtins::unknown_function(name, callee.span)));
                }
            }
        }
        if let ExprKind::Cute(_) = &callee.kind {
            // `cute L(2)`: a pasted print with something after it.
            // A parenthesized literal, `(cute L)(2)`, keeps its parentheses
            // in its span: that application is meant.
            let text = self.item.text(self.cx.db);
            let written = text.get(callee.span.start..callee.span.end).unwrap_or("");
            if written.starts_with("cute") {
                self.cx.report(
                    Diagnostic::warning(
                        Code::AppliedPrint,
                        span,
                        "this CuTe print is applied to the parentheses after it; write (cute ...)(...) if that is meant",
                    )
                    .with_label(callee.span, "the layout"),
                );
            }
        }
        let f = self.expr(callee)?;
        let args = self.args(args)?;
        builtins::apply(&mut self.cx, &f, callee.span, args, span)
    }

    /// A builtin call's arguments, evaluated and bound to its parameters
    /// (what the builtin's body would receive).
    pub(crate) fn bound_args(
        &mut self,
        builtin: &'static builtins::Builtin,
        args: &[Arg],
        span: Span,
    ) -> R<builtins::Args> {
        let args = self.args(args)?;
        builtins::bind_to(&mut self.cx, builtin, args, span)
    }

    fn args(&mut self, args: &[Arg]) -> R<Vec<ArgValue>> {
        let mut out = Vec::with_capacity(args.len());
        for a in args {
            out.push(ArgValue {
                name: a.name.as_ref().map(|n| (n.name.clone(), n.span)),
                value: self.expr(&a.value)?,
                span: a.value.span,
            });
        }
        Ok(out)
    }
}

/// A value for a message: layouts in one line, long lists cut.
pub(crate) fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 200 {
        let cut: String = s.chars().take(197).collect();
        format!("{cut}...")
    } else {
        s
    }
}

/// E0103 at a declaration's name, with the cycle's path.
fn cycle_diagnostic(name: &str, span: Span, path: &[String]) -> Diagnostic {
    Diagnostic::error(
        Code::CyclicDefinition,
        span,
        format!(
            "`{name}` is defined in terms of itself: {}",
            path.join(" -> ")
        ),
    )
}

/// What a declaration on a cycle evaluates to when salsa re-enters it: no
/// value, and the cycle as its diagnostic.
pub(crate) fn cycle_fallback(db: &dyn salsa::Database, key: SourceItem) -> Evaluated {
    let mut diagnostics = Vec::new();
    if let Some(item) = &crate::parse_item(db, key).item
        && let (Some(full), Some(name)) = (item.declared_name(), item.name())
        && let Some(path) = find_cycle(db, *key.file(db), &full)
    {
        diagnostics.push(cycle_diagnostic(&full, name.span, &path));
    }
    Evaluated {
        value: None,
        diagnostics,
        syntax: crate::ItemSyntax::of(crate::parse_item(db, key), || key.text(db)),
    }
}

/// NVIDIA's `ld/st.shared` of `bits` spelled as 32-bit words
/// (`ld.shared.v4.b32` for 128 bits): what LLVM emits for elements it
/// handles as words, whatever their own width.
fn nvidia_words(
    bits: u32,
    direction: layout_algebra::bank::Direction,
) -> layout_algebra::bank::Mnemonic {
    layout_algebra::bank::Instruction::LdSt { bits }.mnemonic(
        direction,
        layout_algebra::machine::Vendor::Nvidia,
        32,
    )
}
