//! The structure of a TTGIR dump, as much of it as the allocator needs:
//! each `tt.func` as a tree of operations, blocks and regions, with every
//! operation's results, operands and types as text. MLIR prints one
//! operation per line (an operation with regions opens them at the end of
//! its line and closes them on lines of their own), so the reader walks
//! lines and a stack of open regions; what a line says beyond that is read
//! by the analyses that need it.

use std::collections::HashMap;

use layout_syntax::Span;

/// An operation's place in [`Function::ops`].
pub type OpId = usize;
/// A block's place in [`Function::blocks`].
pub type BlockId = usize;

/// What the reader appends to a value's name when an earlier value of
/// the function (a sibling region's) has the same written name. No MLIR
/// name contains it.
const SCOPE_MARK: char = '~';

/// A value's name as the dump writes it: the reader's suffix for a later
/// value of the same name removed (`%10~1` is written `%10`).
pub fn written_name(name: &str) -> &str {
    name.split(SCOPE_MARK).next().unwrap_or(name)
}

/// One `tt.func` of a dump.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    /// The `tt.func` line.
    pub span: Span,
    /// Every operation, the function itself first (`ops[0]`).
    pub ops: Vec<Op>,
    pub blocks: Vec<Block>,
    /// Whether the function's body was closed before the text ended.
    pub complete: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Op {
    /// `ttg.convert_layout`, `tt.reduce` (quotes of the generic form removed).
    pub name: String,
    /// The line that names the operation.
    pub span: Span,
    /// `%5`, or `%5#0`, `%5#1` for `%5:2 = ...`.
    pub results: Vec<String>,
    /// Every SSA value the operation's own text uses (not its regions').
    pub operands: Vec<String>,
    /// The attribute dictionary's text, without braces (`allocation.offset = 0 : i32`).
    pub attributes: String,
    /// The types after the operation's `:` (for a region operation, those
    /// after its closing `})`).
    pub types: String,
    pub block: Option<BlockId>,
    pub regions: Vec<Vec<BlockId>>,
}

/// What one value a combine returns is made from (see
/// [`Function::scan_partial_needs`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct CombineDependencies {
    /// Operands of the accumulated side, as a bit set.
    accumulated: u64,
    /// Operands of the new side.
    combined: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub owner: OpId,
    pub arguments: Vec<String>,
    pub ops: Vec<OpId>,
    /// The line that opened the region of a `ttg.warp_specialize`
    /// (`default {`, `partition0(%a: ...) num_warps(2) {`); empty otherwise.
    pub header: String,
    /// `bb1` for a block opened by `^bb1(...):`; empty for a region's
    /// unlabelled first block.
    pub label: String,
    /// The labels of the blocks its `cf` terminator branches to (the
    /// lowered form's loops: a back edge to the loop's header).
    pub successors: Vec<String>,
}

impl Block {
    /// The warps a `ttg.warp_specialize` partition runs on (`num_warps(N)`
    /// on its header).
    pub fn partition_warps(&self) -> Option<u32> {
        let at = self.header.rfind("num_warps(")? + "num_warps(".len();
        self.header[at..]
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .collect::<String>()
            .parse()
            .ok()
    }
}

impl Op {
    /// The operands' types: the text before `->` (all of it without one).
    pub fn operand_types(&self) -> &str {
        self.types
            .split_once("->")
            .map_or(&self.types, |(from, _)| from)
    }

    /// The results' types: the text after `->` (all of it without one).
    pub fn result_types(&self) -> &str {
        self.types.rsplit("->").next().unwrap_or(&self.types)
    }
}

impl Function {
    /// The operation whose result `value` is (not the function itself);
    /// `None` for a block argument or a name nothing defines.
    pub fn producer(&self, value: &str) -> Option<&Op> {
        self.ops
            .iter()
            .skip(1)
            .find(|o| o.results.iter().any(|r| r == value))
    }

    /// Whether any operation uses `value` (`%5`, or `%5#1` of `%5:2`).
    pub fn is_used(&self, value: &str) -> bool {
        self.uses(value).next().is_some()
    }

    /// The operations that use `value`, in order.
    pub fn uses<'a>(&'a self, value: &'a str) -> impl Iterator<Item = &'a Op> + 'a {
        self.ops
            .iter()
            .filter(move |o| o.operands.iter().any(|v| v == value))
    }

    /// Which operands of the combining op `id` (`tt.reduce`, `tt.scan`) its
    /// used results need. Its combine's block takes each operand twice
    /// (the accumulated values, then the new ones) and returns one value
    /// per operand; a used result needs the operands its returned value is
    /// made from, and since one step's results are the next step's
    /// operands, the need closes over those dependencies. An argmin's
    /// index needs the values; a pair combined apart needs only its own.
    /// All operands where the body is not of that form.
    pub fn needed_operands(&self, id: OpId) -> Vec<bool> {
        let n = self.ops[id].results.len();
        let Some(combine) = self.combine_dependencies(id) else {
            return vec![true; n];
        };
        let mut needed = self.used_results(id);
        loop {
            let more = (0..n)
                .filter(|&j| needed & (1 << j) != 0)
                .fold(needed, |set, j| {
                    set | combine[j].accumulated | combine[j].combined
                });
            if more == needed {
                break;
            }
            needed = more;
        }
        (0..n).map(|j| needed & (1 << j) != 0).collect()
    }

    /// Which of a scan's partials across warps its used results need, per
    /// operand: `(first, later)`. Triton's lowering starts a warp's
    /// prefix from the first warp's partial and combines the later ones in
    /// as the combine's new values (`combine(prefix, partial)`), then the
    /// prefix into the warp's own values as the accumulated side. So the
    /// prefix needs the accumulated side's dependencies of the used
    /// results, closed over itself; the first partial is the prefix, and a
    /// later one needs what the new side of those dependencies reads. A
    /// linear recurrence `(a1 * a2, b1 * a2 + b2)` whose `b` alone is used
    /// reads only the first warp's `b`. All needed where the body is not of
    /// that form.
    pub fn scan_partial_needs(&self, id: OpId) -> Vec<(bool, bool)> {
        let n = self.ops[id].results.len();
        let Some(combine) = self.combine_dependencies(id) else {
            return vec![(true, true); n];
        };
        let used = self.used_results(id);
        let mut prefix = (0..n)
            .filter(|&j| used & (1 << j) != 0)
            .fold(0, |set, j| set | combine[j].accumulated);
        loop {
            let more = (0..n)
                .filter(|&j| prefix & (1 << j) != 0)
                .fold(prefix, |set, j| set | combine[j].accumulated);
            if more == prefix {
                break;
            }
            prefix = more;
        }
        let later = (0..n)
            .filter(|&j| prefix & (1 << j) != 0)
            .fold(0, |set, j| set | combine[j].combined);
        (0..n)
            .map(|j| (prefix & (1 << j) != 0, later & (1 << j) != 0))
            .collect()
    }

    /// The results of `id` that some operation uses, as a bit set.
    fn used_results(&self, id: OpId) -> u64 {
        let op = &self.ops[id];
        (0..op.results.len())
            .filter(|&j| self.is_used(&op.results[j]))
            .fold(0, |set, j| set | (1 << j))
    }

    /// What each value a combine (the body of `tt.reduce`/`tt.scan` `id`)
    /// returns is made from: which operands of its accumulated side (the
    /// block's first `n` arguments) and of its new side (the last `n`), as
    /// bit sets. `None` where the body is not of that form.
    fn combine_dependencies(&self, id: OpId) -> Option<Vec<CombineDependencies>> {
        let op = &self.ops[id];
        let n = op.results.len();
        let body = op.regions.first().and_then(|r| r.first()).copied()?;
        if n > 64 || self.blocks[body].arguments.len() != 2 * n {
            return None;
        }
        // Each value's operands, accumulated side in the low bits.
        let mut from: HashMap<&str, u128> = self.blocks[body]
            .arguments
            .iter()
            .enumerate()
            .map(|(k, a)| (a.as_str(), 1u128 << k))
            .collect();
        let mut returned = None;
        for &o in &self.blocks[body].ops {
            let mut made = 0;
            for v in self.values_read(o) {
                made |= from.get(v).copied().unwrap_or(0);
            }
            if self.ops[o].name.ends_with(".return") {
                returned = Some(
                    self.ops[o]
                        .operands
                        .iter()
                        .map(|v| from.get(v.as_str()).copied().unwrap_or(0))
                        .collect::<Vec<_>>(),
                );
            } else {
                for r in &self.ops[o].results {
                    from.insert(r.as_str(), made);
                }
            }
        }
        let returned = returned.filter(|r| r.len() == n)?;
        let side = |bits: u128| bits as u64 & if n == 64 { u64::MAX } else { (1 << n) - 1 };
        Some(
            returned
                .into_iter()
                .map(|bits| CombineDependencies {
                    accumulated: side(bits),
                    combined: side(bits >> n),
                })
                .collect(),
        )
    }

    /// The values op `o` reads, its nested operations' included.
    fn values_read(&self, o: OpId) -> Vec<&str> {
        let mut out: Vec<&str> = self.ops[o].operands.iter().map(String::as_str).collect();
        for &b in self.ops[o].regions.iter().flatten() {
            for &inner in &self.blocks[b].ops {
                out.extend(self.values_read(inner));
            }
        }
        out
    }

    /// Operations in post order (an operation after everything nested in
    /// it), as Triton's allocator numbers them.
    pub fn post_order(&self) -> Vec<OpId> {
        fn walk(f: &Function, op: OpId, out: &mut Vec<OpId>) {
            for region in &f.ops[op].regions {
                for &b in region {
                    for &inner in &f.blocks[b].ops {
                        walk(f, inner, out);
                    }
                }
            }
            out.push(op);
        }
        let mut out = Vec::with_capacity(self.ops.len());
        walk(self, 0, &mut out);
        out
    }

    /// The region `op` sits in: its owner and the region's number.
    pub fn region_of(&self, op: OpId) -> Option<(OpId, usize)> {
        let b = self.ops[op].block?;
        let owner = self.blocks[b].owner;
        let index = self.ops[owner]
            .regions
            .iter()
            .position(|r| r.contains(&b))?;
        Some((owner, index))
    }

    /// The warps of the `ttg.warp_specialize` partition `op` runs in, if it
    /// is nested in one (the default region runs on the kernel's warps).
    pub fn partition_warps_of(&self, mut op: OpId) -> Option<u32> {
        loop {
            let b = self.ops[op].block?;
            if let Some(warps) = self.blocks[b].partition_warps() {
                return Some(warps);
            }
            op = self.blocks[b].owner;
        }
    }

    /// The `scf.yield` that ends `region` (its last block's last op): what
    /// a loop's body or a branch gives back.
    pub fn region_yield(&self, region: &[BlockId]) -> Option<&Op> {
        region
            .last()
            .and_then(|&b| self.blocks[b].ops.last())
            .map(|&y| &self.ops[y])
            .filter(|y| y.name == "scf.yield")
    }

    /// The innermost operation named `name` that `op` is nested in.
    pub fn enclosing(&self, mut op: OpId, name: &str) -> Option<OpId> {
        loop {
            let b = self.ops[op].block?;
            op = self.blocks[b].owner;
            if self.ops[op].name == name {
                return Some(op);
            }
        }
    }

    /// The ancestor of `op` (or `op` itself) that sits directly in `block`.
    /// The blocks `block`'s branch goes to: the blocks of its region
    /// with the labels its `cf` terminator names.
    pub fn successors(&self, block: BlockId) -> Vec<BlockId> {
        let b = &self.blocks[block];
        let Some(region) = self.ops[b.owner]
            .regions
            .iter()
            .find(|r| r.contains(&block))
        else {
            return Vec::new();
        };
        b.successors
            .iter()
            .filter_map(|l| region.iter().copied().find(|&r| self.blocks[r].label == *l))
            .collect()
    }

    pub fn ancestor_in(&self, block: BlockId, mut op: OpId) -> Option<OpId> {
        loop {
            let b = self.ops[op].block?;
            if b == block {
                return Some(op);
            }
            op = self.blocks[b].owner;
        }
    }

    /// The value `name`'s attribute `key` as an integer (`allocation.offset`).
    pub fn int_attribute(op: &Op, key: &str) -> Option<u64> {
        let at = op.attributes.find(key)?;
        let rest = op.attributes[at + key.len()..].trim_start();
        let rest = rest.strip_prefix('=')?.trim_start();
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        digits.parse().ok()
    }
}

/// Every `tt.func` of `text` (a dump, or the section of a log that holds one).
pub fn functions(text: &str) -> Vec<Function> {
    let mut out = Vec::new();
    let mut current: Option<Reader> = None;
    // A file of several dumps comes with all but one blanked out: start at
    // the line of its first character and stop after its last.
    let bytes = text.as_bytes();
    let first = bytes.iter().position(|b| !b.is_ascii_whitespace());
    let last = bytes.iter().rposition(|b| !b.is_ascii_whitespace());
    let (Some(first), Some(last)) = (first, last) else {
        return out;
    };
    // Byte searches: `last` may fall inside a character, a newline never.
    let mut offset = bytes[..first]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |at| at + 1);
    let end = bytes[last..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(text.len(), |at| last + at + 1);
    for raw in text[offset..end].split_inclusive('\n') {
        let line_span = Span::new(offset, offset + raw.trim_end().len());
        offset += raw.len();
        let line = strip_location(raw.trim());
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        match &mut current {
            None => {
                if let Some(name) = function_name(line) {
                    current = Some(Reader::new(name, line_span, line));
                }
            }
            Some(reader) => {
                if reader.line(line, line_span) {
                    let mut done = current.take().expect("a function is open");
                    done.function.complete = true;
                    out.push(done.function);
                }
            }
        }
    }
    if let Some(reader) = current {
        out.push(reader.function);
    }
    out
}

/// `tt.func public @matmul_kernel(...)`: the function's name.
fn function_name(line: &str) -> Option<String> {
    let rest = line.strip_prefix("tt.func")?;
    let at = rest.find('@')?;
    let name: String = rest[at + 1..]
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$' || *c == '.')
        .collect();
    (!name.is_empty()).then_some(name)
}

struct Reader {
    function: Function,
    /// The open regions, innermost last: (owner, its current block).
    open: Vec<(OpId, BlockId)>,
    /// The open regions isolated from above (`ttg.warp_specialize`'s
    /// partitions), by depth in `open`: MLIR numbers the values of each
    /// afresh, so `%60` in one partition is not `%60` in another. Names
    /// read inside get the region's suffix.
    isolated: Vec<(usize, String)>,
    regions_isolated: usize,
    /// The names each open region defines, innermost last (parallel to
    /// `open`), mapped to the function-wide names the reader gives them:
    /// MLIR numbers each region's values on from its parent's and starts
    /// again for the next sibling, so `%10` of an `scf.if`'s branch and
    /// `%10` of the loop before it are different values. A name already
    /// taken in the function gets a suffix; a use is resolved through the
    /// open regions, innermost first.
    scopes: Vec<HashMap<String, String>>,
    /// Each written name defined so far, with how many later values
    /// took it.
    taken: HashMap<String, u32>,
}

impl Reader {
    fn new(name: String, span: Span, line: &str) -> Reader {
        let arguments = line
            .find('(')
            .map(|at| defined_values(&line[at..]))
            .unwrap_or_default();
        // `attributes {noinline = false, allocation.offset = 98520 : i32}`:
        // the function's own scratch is recorded there.
        let attributes = line
            .rfind("attributes {")
            .map(|at| &line[at + "attributes ".len()..])
            .and_then(|dict| Some(dict[1..matching(dict, '{', '}')?].trim().to_string()))
            .unwrap_or_default();
        let mut function = Function {
            name,
            span,
            ops: vec![Op {
                name: "tt.func".into(),
                span,
                results: Vec::new(),
                operands: Vec::new(),
                attributes,
                types: String::new(),
                block: None,
                regions: vec![vec![0]],
            }],
            blocks: vec![Block {
                owner: 0,
                arguments,
                ops: Vec::new(),
                header: String::new(),
                label: String::new(),
                successors: Vec::new(),
            }],
            complete: false,
        };
        function.ops[0].regions = vec![vec![0]];
        let mut reader = Reader {
            function,
            open: vec![(0, 0)],
            isolated: Vec::new(),
            regions_isolated: 0,
            scopes: vec![HashMap::new()],
            taken: HashMap::new(),
        };
        let arguments = std::mem::take(&mut reader.function.blocks[0].arguments);
        reader.function.blocks[0].arguments = reader.define(arguments);
        reader
    }

    /// Opens a region of `owner` whose first block is `block`.
    fn open_region(&mut self, owner: OpId, block: BlockId) {
        self.open.push((owner, block));
        self.scopes.push(HashMap::new());
    }

    /// Names defined in the innermost open region: each gets a name no
    /// other value of the function has (the written name, then
    /// `~1`, `~2`, ... for later values of that name: `written_name`).
    fn define(&mut self, names: Vec<String>) -> Vec<String> {
        self.scoped(names)
            .into_iter()
            .map(|name| {
                let unique = match self.taken.get_mut(&name) {
                    None => {
                        self.taken.insert(name.clone(), 0);
                        name.clone()
                    }
                    Some(count) => {
                        *count += 1;
                        format!("{name}{SCOPE_MARK}{count}")
                    }
                };
                if let Some(scope) = self.scopes.last_mut() {
                    scope.insert(name, unique.clone());
                }
                unique
            })
            .collect()
    }

    /// Names used: the value each names from the innermost open region
    /// out (a name nothing defines yet stays as it is).
    fn resolve(&self, names: Vec<String>) -> Vec<String> {
        self.scoped(names)
            .into_iter()
            .map(|name| {
                self.scopes
                    .iter()
                    .rev()
                    .find_map(|scope| scope.get(&name).cloned())
                    .unwrap_or(name)
            })
            .collect()
    }

    /// Reads one line of the body; true when it closes the function.
    fn line(&mut self, line: &str, span: Span) -> bool {
        if let Some(rest) = line.strip_prefix('}') {
            return self.close(rest.trim());
        }
        if let Some(label) = line.strip_prefix('^') {
            // `^bb0(%arg2: f32, %arg3: f32):` starts a block of the open
            // region (its first, when the region has no operation yet).
            let Some(&(owner, block)) = self.open.last() else {
                return false;
            };
            let arguments = label
                .find('(')
                .map(|at| defined_values(&label[at..]))
                .unwrap_or_default();
            let b = if self.function.blocks[block].ops.is_empty()
                && self.function.blocks[block].arguments.is_empty()
            {
                block
            } else {
                let b = self.new_block(owner);
                if let Some(region) = self.function.ops[owner].regions.last_mut() {
                    region.push(b);
                }
                b
            };
            self.function.blocks[b].arguments = self.define(arguments);
            self.function.blocks[b].label = label
                .split(['(', ':'])
                .next()
                .unwrap_or_default()
                .trim()
                .to_string();
            if let Some(top) = self.open.last_mut() {
                top.1 = b;
            }
            return false;
        }
        let Some(&(_, block)) = self.open.last() else {
            return false;
        };
        if is_region_header(line)
            && let Some(&owner) = self.function.blocks[block].ops.last()
        {
            // `default {` / `partition0(%a: T, ...) num_warps(1) {` (of a
            // `ttg.warp_specialize`), `case 1 {` (of an `scf.index_switch`):
            // the next region of the operation just read.
            let b = self.new_block(owner);
            self.function.ops[owner].regions.push(vec![b]);
            self.open_region(owner, b);
            if line.starts_with("partition") {
                self.regions_isolated += 1;
                let suffix = format!("@partition{}", self.regions_isolated);
                self.isolated.push((self.open.len(), suffix));
            }
            if let Some(at) = line.find('(') {
                let arguments = defined_values(&line[at..]);
                self.function.blocks[b].arguments = self.define(arguments);
            }
            self.function.blocks[b].header = line.to_string();
            return false;
        }
        let Some(mut op) = read_op(line, span) else {
            return false;
        };
        op.operands = self.resolve(std::mem::take(&mut op.operands));
        op.results = self.define(std::mem::take(&mut op.results));
        op.block = Some(block);
        if op.name.starts_with("cf.") {
            self.function.blocks[block].successors = block_labels(line);
        }
        let opens = line.ends_with('{');
        let id = self.function.ops.len();
        let arguments = if opens {
            region_arguments(&op.name, line)
        } else {
            Vec::new()
        };
        if opens {
            let b = self.new_block(id);
            op.regions.push(vec![b]);
            self.open_region(id, b);
            self.function.blocks[b].arguments = self.define(arguments);
        }
        self.function.ops.push(op);
        self.function.blocks[block].ops.push(id);
        false
    }

    /// Value names as seen from the innermost open isolated region.
    fn scoped(&self, names: Vec<String>) -> Vec<String> {
        match self.isolated.last() {
            Some((_, suffix)) => names.into_iter().map(|n| n + suffix).collect(),
            None => names,
        }
    }

    fn new_block(&mut self, owner: OpId) -> BlockId {
        self.function.blocks.push(Block {
            owner,
            arguments: Vec::new(),
            ops: Vec::new(),
            header: String::new(),
            label: String::new(),
            successors: Vec::new(),
        });
        self.function.blocks.len() - 1
    }

    /// A line that starts with `}`: the innermost region ends; `} else {`
    /// and `} do {` open the operation's next region, `}) ... : types`
    /// ends a generic operation and gives its types.
    fn close(&mut self, rest: &str) -> bool {
        if self
            .isolated
            .last()
            .is_some_and(|(depth, _)| *depth == self.open.len())
        {
            self.isolated.pop();
        }
        let Some((owner, _)) = self.open.pop() else {
            return true;
        };
        self.scopes.pop();
        if owner == 0 {
            return true;
        }
        if rest.ends_with('{') {
            // `} else {`, `} do {`, or `}, {` between regions of a generic op.
            let b = self.new_block(owner);
            self.function.ops[owner].regions.push(vec![b]);
            self.open_region(owner, b);
            return false;
        }
        // `}) {attrs} : types` closes a generic operation, `} : types` a
        // `ttg.warp_specialize`.
        if let Some(tail) = rest
            .strip_prefix(')')
            .or_else(|| rest.starts_with(':').then_some(rest))
        {
            let (attributes, types) = attributes_and_types(tail);
            let op = &mut self.function.ops[owner];
            if !attributes.is_empty() {
                op.attributes = attributes;
            }
            op.types = types;
        }
        false
    }
}

/// A line that opens the next region of the operation before it, on a
/// line of its own: `default {` and `partitionN(...) num_warps(K) {` of
/// `ttg.warp_specialize`, `case N {` and `default {` of `scf.index_switch`.
fn is_region_header(line: &str) -> bool {
    if !line.ends_with('{') {
        return false;
    }
    if line.starts_with("default {") || line.starts_with("case ") {
        return true;
    }
    line.strip_prefix("partition")
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
}

/// The block arguments an operation's first region gets from its own line:
/// `scf.for %iv = ... iter_args(%a = %x, %b = %y)` defines `%iv`, `%a`, `%b`;
/// `scf.while (%a = %x)` defines `%a`.
fn region_arguments(name: &str, line: &str) -> Vec<String> {
    let mut out = Vec::new();
    if name == "scf.for"
        && let Some(at) = line.find("scf.for")
        && let Some(iv) = ssa_names(&line[at..]).next()
    {
        out.push(iv);
    }
    if let Some(at) = line.find("iter_args(").or_else(|| {
        (name == "scf.while")
            .then(|| line.find("scf.while"))
            .flatten()
            .and_then(|w| line[w..].find('(').map(|p| w + p))
    }) {
        let inner = &line[at..];
        let close = matching_paren(inner).unwrap_or(inner.len());
        for pair in split_top_level(&inner[inner.find('(').map_or(0, |p| p + 1)..close], ',') {
            if let Some((lhs, _)) = pair.split_once('=')
                && let Some(v) = ssa_names(lhs).next()
            {
                out.push(v);
            }
        }
    }
    out
}

/// The values a parenthesised argument list defines: `(%x: T, %y: T)`.
fn defined_values(list: &str) -> Vec<String> {
    let close = matching_paren(list).unwrap_or(list.len());
    let inner = &list[list.find('(').map_or(0, |p| p + 1)..close];
    split_top_level(inner, ',')
        .into_iter()
        .filter_map(|arg| {
            let arg = arg.trim();
            arg.starts_with('%')
                .then(|| ssa_names(arg).next())
                .flatten()
        })
        .collect()
}

/// One operation line: results, name, operands, attributes and types.
fn read_op(line: &str, span: Span) -> Option<Op> {
    let (results, rest) = match line.find(" = ") {
        Some(eq) if line.starts_with('%') && !line[..eq].contains('(') => {
            (results(&line[..eq]), line[eq + 3..].trim_start())
        }
        _ => (Vec::new(), line),
    };
    let (name, after) = if let Some(quoted) = rest.strip_prefix('"') {
        let end = quoted.find('"')?;
        (quoted[..end].to_string(), &quoted[end + 1..])
    } else {
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
            .unwrap_or(rest.len());
        (rest[..end].to_string(), &rest[end..])
    };
    if !name.contains('.') {
        return None;
    }
    let body = after.strip_suffix("({").unwrap_or(after);
    let body = body.strip_suffix('{').unwrap_or(body);
    let (head, types) = match top_level_colon(body) {
        Some(at) => (&body[..at], body[at + 1..].trim()),
        None => (body, ""),
    };
    let attributes = head
        .rfind(" {")
        .filter(|&at| head[at..].trim_end().ends_with('}'))
        .map(|at| {
            let dict = head[at..].trim();
            dict[1..dict.len() - 1].trim().to_string()
        })
        .unwrap_or_default();
    // `scf.for %iv = %lb ...` defines `%iv` and the iteration arguments;
    // every other SSA name on the line is used.
    let defined = region_arguments(&name, line);
    let operands = ssa_names(head)
        .filter(|v| !defined.contains(v))
        .chain(ssa_names(types).filter(|v| !defined.contains(v)))
        .collect();
    Some(Op {
        name,
        span,
        results,
        operands,
        attributes,
        types: types.to_string(),
        block: None,
        regions: Vec::new(),
    })
}

/// `%a, %b` or `%5:2` before an operation's `=`.
/// The most results one op's pack (`%x:N`) names: far beyond any op
/// Triton prints (a loop's or a reduction's few dozen).
const MAX_RESULT_PACK: usize = 4096;

fn results(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in text.split(',') {
        let part = part.trim();
        match part.split_once(':') {
            Some((name, count)) => {
                // A pack no op has (`%x:4294967296`, a corrupt dump) names
                // as many results as the largest one may, not billions.
                let n = count
                    .trim()
                    .parse::<usize>()
                    .unwrap_or(1)
                    .min(MAX_RESULT_PACK);
                out.extend((0..n).map(|i| format!("{name}#{i}")));
            }
            None if part.starts_with('%') => out.push(part.to_string()),
            None => {}
        }
    }
    out
}

/// The attribute dictionary and the types after a generic operation's `})`:
/// ` {allocation.offset = 0 : i32} : (tensor<...>) -> tensor<...>`.
fn attributes_and_types(tail: &str) -> (String, String) {
    let tail = tail.trim();
    let (attributes, rest) = if tail.starts_with('{') {
        let close = matching(tail, '{', '}').unwrap_or(tail.len() - 1);
        (tail[1..close].trim().to_string(), &tail[close + 1..])
    } else {
        (String::new(), tail)
    };
    let types = rest.trim().strip_prefix(':').unwrap_or(rest).trim();
    (attributes, types.to_string())
}

/// Every SSA name in `text`, `%x` or `%x#1`, in order.
pub fn ssa_names(text: &str) -> impl Iterator<Item = String> + '_ {
    let bytes = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            if bytes[i] == b'%' {
                let start = i;
                i += 1;
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric()
                        || matches!(bytes[i], b'_' | b'$' | b'.' | b'-' | b'#'))
                {
                    i += 1;
                }
                if i > start + 1 {
                    return Some(text[start..i].to_string());
                }
            } else if bytes[i] == b'"' {
                // Skip strings (`loc("x.py":3:4)`, `"tt.reduce"`).
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += 1;
                }
                i += 1;
            } else {
                i += 1;
            }
        }
        None
    })
}

/// A line without its trailing `loc(...)`.
fn strip_location(line: &str) -> &str {
    match line.rfind(" loc(") {
        Some(at) if line.trim_end().ends_with(')') => line[..at].trim_end(),
        _ => line,
    }
}

/// Where the operation's type list starts: the first `:` outside braces,
/// brackets, parentheses, strings and type angle brackets.
fn top_level_colon(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0i32;
    let mut in_string = false;
    for (i, &c) in bytes.iter().enumerate() {
        match c {
            b'"' => in_string = !in_string,
            _ if in_string => {}
            b'{' | b'(' | b'[' | b'<' => depth += 1,
            b'}' | b')' | b']' => depth -= 1,
            b'>' if i > 0 && bytes[i - 1] != b'-' => depth -= 1,
            b':' if depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

/// The index of the `)` that closes the first `(` of `text`.
fn matching_paren(text: &str) -> Option<usize> {
    matching(text, '(', ')')
}

fn matching(text: &str, open: char, close: char) -> Option<usize> {
    let mut depth = 0;
    for (i, c) in text.char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// `text` split at `sep` outside brackets of any kind.
pub fn split_top_level(text: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            '>' if i > 0 && bytes[i - 1] != b'-' => depth -= 1,
            c if c == sep && depth == 0 => {
                out.push(&text[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// The block labels a branch names (`cf.cond_br %c, ^bb2, ^bb3` gives
/// `bb2`, `bb3`).
fn block_labels(line: &str) -> Vec<String> {
    line.split('^')
        .skip(1)
        .map(|rest| {
            rest.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect::<String>()
        })
        .filter(|l| !l.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCAN: &str = r#"module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func public @k(%x: !tt.ptr<f32> loc("x"(#loc))) attributes {noinline = false} {
    %0 = tt.load %x : !tt.ptr<f32> loc(#loc1)
    %5 = "tt.scan"(%4) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%arg2: f32 loc(#l), %arg3: f32 loc(#l)):
      %6 = arith.addf %arg2, %arg3 : f32 loc(#loc15)
      tt.scan.return %6 : f32 loc(#loc13)
    }) {allocation.offset = 0 : i32, allocation.size = 32 : i32} : (tensor<1024xf32, #blocked>) -> tensor<1024xf32, #blocked> loc(#loc13)
    %r:2 = scf.for %i = %c0 to %c8 step %c1 iter_args(%a = %0, %b = %5) -> (f32, tensor<1024xf32, #blocked>)  : i32 {
      scf.yield %a, %b : f32, tensor<1024xf32, #blocked>
    }
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
"#;

    #[test]
    fn a_function_reads_as_a_tree_of_operations() {
        let fs = functions(SCAN);
        assert_eq!(fs.len(), 1);
        let f = &fs[0];
        assert!(f.complete);
        assert_eq!(f.name, "k");
        assert_eq!(f.blocks[0].arguments, ["%x"]);
        let names: Vec<&str> = f.ops.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "tt.func",
                "tt.load",
                "tt.scan",
                "arith.addf",
                "tt.scan.return",
                "scf.for",
                "scf.yield",
                "tt.return"
            ]
        );
        let scan = &f.ops[2];
        assert_eq!(scan.operands, ["%4"]);
        assert_eq!(Function::int_attribute(scan, "allocation.size"), Some(32));
        assert_eq!(
            scan.types,
            "(tensor<1024xf32, #blocked>) -> tensor<1024xf32, #blocked>"
        );
        assert_eq!(f.blocks[scan.regions[0][0]].arguments, ["%arg2", "%arg3"]);
        let for_op = &f.ops[5];
        assert_eq!(for_op.results, ["%r#0", "%r#1"]);
        assert_eq!(for_op.operands, ["%c0", "%c8", "%c1", "%0", "%5"]);
        assert_eq!(f.blocks[for_op.regions[0][0]].arguments, ["%i", "%a", "%b"]);
        // Post order: the scan's body before the scan, the function last.
        assert_eq!(f.post_order(), [1, 3, 4, 2, 6, 5, 7, 0]);
        assert_eq!(f.ancestor_in(0, 6), Some(5));
    }

    #[test]
    fn sibling_regions_number_their_values_afresh() {
        // As Triton 3.9 prints a lock loop then a branch: each region
        // numbers on from `%9`, so both define a `%10`; only the loop's is
        // used. A use inside a region sees the enclosing regions' values.
        let text = r#"module {
  tt.func public @k(%p: !tt.ptr<i32>, %c: i1) {
    %9 = arith.constant 1 : i32
    scf.while : () -> () {
      %10 = tt.atomic_cas acq_rel, gpu, %p, %9, %9 : (!tt.ptr<i32>, i32, i32) -> i32
      %11 = arith.cmpi eq, %10, %9 : i32
      scf.condition(%11)
    } do {
      scf.yield
    }
    scf.if %c {
      %10 = tt.atomic_rmw exch, acq_rel, gpu, %p, %9, %c : (!tt.ptr<i32>, i32, i1) -> i32
    }
    tt.return
  }
}
"#;
        let fs = functions(text);
        let f = &fs[0];
        let atomics: Vec<&Op> = f
            .ops
            .iter()
            .filter(|o| o.name.starts_with("tt.atomic"))
            .collect();
        assert_eq!(atomics.len(), 2);
        assert_eq!(atomics[0].results, ["%10"]);
        assert_eq!(atomics[1].results, ["%10~1"]);
        assert_eq!(written_name(&atomics[1].results[0]), "%10");
        assert!(f.is_used(&atomics[0].results[0]));
        assert!(!f.is_used(&atomics[1].results[0]));
        // `%9` and `%p` resolve to the function's values from both regions.
        assert_eq!(atomics[1].operands[..2], ["%p", "%9"]);
        assert_eq!(f.uses("%9").count(), 3);
    }

    #[test]
    fn a_scan_reads_the_partials_its_used_results_need() {
        // h = a * h + b, of which only h (the second result) is used: a
        // warp's prefix needs its accumulated b (%arg1) alone, and the
        // partials combined into it both a (%arg2) and b (%arg3).
        let text = r#"module {
  tt.func public @k(%p: !tt.ptr<f32>, %a: tensor<16xf32, #b>, %b: tensor<16xf32, #b>) {
    %5:2 = "tt.scan"(%a, %b) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%arg0: f32, %arg1: f32, %arg2: f32, %arg3: f32):
      %6 = arith.mulf %arg0, %arg2 : f32
      %7 = arith.mulf %arg1, %arg2 : f32
      %8 = arith.addf %7, %arg3 : f32
      tt.scan.return %6, %8 : f32, f32
    }) : (tensor<16xf32, #b>, tensor<16xf32, #b>) -> (tensor<16xf32, #b>, tensor<16xf32, #b>)
    tt.store %p, %5#1 : tensor<16x!tt.ptr<f32>, #b>
    tt.return
  }
}
"#;
        let fs = functions(text);
        let f = &fs[0];
        let scan = f.ops.iter().position(|o| o.name == "tt.scan").unwrap();
        assert_eq!(f.needed_operands(scan), [true, true]);
        assert_eq!(f.scan_partial_needs(scan), [(false, true), (true, true)]);
    }

    #[test]
    fn a_dump_cut_inside_a_function_is_incomplete() {
        let cut = &SCAN[..SCAN.find("scf.yield").unwrap()];
        let fs = functions(cut);
        assert_eq!(fs.len(), 1);
        assert!(!fs[0].complete);
    }

    #[test]
    fn a_dump_among_blanked_ones_keeps_its_offsets() {
        // A file of several dumps as the checker reads it: all but one
        // blanked out, before and after.
        let before = "                              \n    \n\n";
        let text = format!("{before}{SCAN}\n        \n   ");
        let fs = functions(&text);
        let alone = functions(SCAN);
        assert_eq!(fs.len(), 1);
        assert_eq!(fs[0].ops.len(), alone[0].ops.len());
        for (op, same) in fs[0].ops.iter().zip(&alone[0].ops) {
            assert_eq!(op.span.start, same.span.start + before.len());
            assert_eq!(
                &text[op.span.start..op.span.end],
                &SCAN[same.span.start..same.span.end]
            );
        }
        assert!(functions("   \n\n  ").is_empty());
        // A file that ends inside a character of several bytes.
        assert!(functions("  tt.func @k() {\n é").len() <= 1);
    }

    #[test]
    fn a_result_pack_no_op_has_names_a_bounded_number() {
        assert_eq!(results("%r:3").len(), 3);
        assert_eq!(results("%r:4294967296").len(), MAX_RESULT_PACK);
        assert_eq!(results("%r:99999999999999999999"), vec!["%r#0"]);
    }

    #[test]
    fn regions_opened_on_lines_of_their_own_belong_to_the_operation_before() {
        // Triton 3.9's `ttg.warp_specialize` (partitions are isolated from
        // above: both number a `%5` of their own) and an `scf.index_switch`.
        let text = r#"module {
  tt.func public @k(%p: !tt.ptr<f32>) attributes {allocation.offset = 384 : i32, noinline = false} {
    %0 = arith.constant 0 : i32
    ttg.warp_specialize(%p, %0) attributes {allocation.offset = 0 : i32, allocation.size = 12 : i32}
    default {
      ttg.warp_yield
    }
    partition0(%a: !tt.ptr<f32>, %b: i32) num_warps(2) {
      %5 = tt.load %a : !tt.ptr<f32>
      ttg.warp_return
    }
    partition1(%a: !tt.ptr<f32>, %b: i32) num_warps(4) {
      %5 = tt.load %a : !tt.ptr<f32>
      ttg.warp_return
    } : (!tt.ptr<f32>, i32) -> ()
    %1 = scf.index_switch %0 -> i32
    case 1 {
      scf.yield %0 : i32
    }
    default {
      scf.yield %0 : i32
    }
    tt.return
  }
}
"#;
        let fs = functions(text);
        let f = &fs[0];
        assert!(f.complete);
        assert_eq!(
            Function::int_attribute(&f.ops[0], "allocation.offset"),
            Some(384)
        );
        let ws = f
            .ops
            .iter()
            .position(|o| o.name == "ttg.warp_specialize")
            .unwrap();
        let regions = &f.ops[ws].regions;
        assert_eq!(regions.len(), 3);
        let warps: Vec<Option<u32>> = regions
            .iter()
            .map(|r| f.blocks[r[0]].partition_warps())
            .collect();
        assert_eq!(warps, [None, Some(2), Some(4)]);
        assert_eq!(f.ops[ws].operand_types(), "(!tt.ptr<f32>, i32) ");
        // Each partition's `%5` and arguments are its own.
        let loads: Vec<&Op> = f.ops.iter().filter(|o| o.name == "tt.load").collect();
        assert_eq!(loads.len(), 2);
        assert_ne!(loads[0].results, loads[1].results);
        assert_eq!(
            f.blocks[regions[1][0]].arguments[0], loads[0].operands[0],
            "a partition's load reads its own argument"
        );
        assert_eq!(
            f.enclosing(
                f.ops
                    .iter()
                    .position(|o| std::ptr::eq(o, loads[1]))
                    .unwrap(),
                "ttg.warp_specialize"
            ),
            Some(ws)
        );
        let switch = f
            .ops
            .iter()
            .position(|o| o.name == "scf.index_switch")
            .unwrap();
        assert_eq!(f.ops[switch].regions.len(), 2);
        assert_eq!(f.ops.last().unwrap().name, "tt.return");
        assert_eq!(f.ops.last().unwrap().block, Some(0));
    }
}
