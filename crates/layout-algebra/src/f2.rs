//! Linear algebra over GF(2) with vectors packed into machine words.
//!
//! A vector of at most 64 bits is a `u64`; bit `i` is coordinate `i`. Addition is
//! XOR. A linear layout keeps one such word per basis (its column of the bit
//! matrix), so every algorithm here works on columns.
//!
//! The central object is [`Echelon`], Gaussian elimination done incrementally:
//! columns are inserted in order and each one either becomes a pivot (it is
//! independent of the columns before it) or is recorded as dependent. This
//! reproduces exactly the pivots of a reduced row echelon form whose pivot in
//! every row is the lowest column index (what Triton gets from `f2reduce`), and
//! the unique solution that uses pivot columns only, i.e. the one with every
//! free variable set to zero.

/// Gaussian elimination over GF(2), one column at a time.
///
/// Each stored row keeps the reduced vector and the set of inserted columns
/// (as a bit mask over insertion indices) whose XOR equals it, so a target can
/// be expressed in terms of the original columns. Rows are kept by their
/// leading (highest) bit, so reducing a vector touches only the rows whose
/// leading bit it has, and nothing is allocated.
#[derive(Clone, Debug)]
pub struct Echelon {
    /// `rows[b]`: the `(vector, combination)` whose leading bit is `b`;
    /// valid where `leads` has bit `b`.
    rows: [(u64, u64); 64],
    leads: u64,
    inserted: u32,
    pivots: u64,
}

impl Default for Echelon {
    fn default() -> Self {
        Echelon {
            rows: [(0, 0); 64],
            leads: 0,
            inserted: 0,
            pivots: 0,
        }
    }
}

impl Echelon {
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of independent columns inserted so far.
    pub fn rank(&self) -> u32 {
        self.leads.count_ones()
    }

    /// Mask over insertion indices of the columns that were independent of
    /// all columns inserted before them (the pivot columns).
    pub fn pivot_mask(&self) -> u64 {
        self.pivots
    }

    /// Reduces `v` against the rows; returns the remainder and the combination
    /// of inserted columns that was XOR-ed away.
    pub fn reduce(&self, mut v: u64) -> (u64, u64) {
        let mut combination = 0;
        // The highest bit of `v` that leads a row goes first: XOR-ing that
        // row clears it and changes only lower bits.
        loop {
            let hit = v & self.leads;
            if hit == 0 {
                return (v, combination);
            }
            let (row, comb) = self.rows[(63 - hit.leading_zeros()) as usize];
            v ^= row;
            combination ^= comb;
        }
    }

    /// Inserts the next column. Returns `true` when it is a pivot.
    ///
    /// At most 64 columns can be inserted (combinations are word masks).
    pub fn insert(&mut self, v: u64) -> bool {
        debug_assert!(self.inserted < 64, "at most 64 columns");
        let index = self.inserted;
        self.inserted += 1;
        let (rest, combination) = self.reduce(v);
        if rest == 0 {
            return false;
        }
        let lead = 63 - rest.leading_zeros();
        self.rows[lead as usize] = (rest, combination | 1 << index);
        self.leads |= 1 << lead;
        self.pivots |= 1 << index;
        true
    }

    /// Is `v` in the span of the inserted columns?
    pub fn contains(&self, v: u64) -> bool {
        self.reduce(v).0 == 0
    }

    /// The combination of pivot columns whose XOR is `v`, or `None` when `v`
    /// is outside their span. Free (non-pivot) columns never appear, which
    /// makes the answer the minimal-norm solution Triton picks.
    pub fn solve(&self, v: u64) -> Option<u64> {
        match self.reduce(v) {
            (0, combination) => Some(combination),
            _ => None,
        }
    }
}

/// Rank of a set of vectors.
pub fn rank(vectors: impl IntoIterator<Item = u64>) -> u32 {
    let mut echelon = Echelon::new();
    for v in vectors {
        // Vectors already in the span never change the rank; skipping
        // them keeps the 64-column limit of `Echelon` from applying.
        if v != 0 && !echelon.contains(v) {
            echelon.insert(v);
        }
    }
    echelon.rank()
}

/// A dense bit matrix stored as rows of at most 64 columns, with an explicit
/// reduced row echelon form. Used where the row view is the natural one
/// (printing, free-variable analysis in tests) and as an independent check of
/// [`Echelon`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitMatrix {
    rows: Vec<u64>,
    cols: u32,
}

impl BitMatrix {
    /// A matrix from its rows; bit `c` of a row is column `c`.
    pub fn from_rows(rows: Vec<u64>, cols: u32) -> Self {
        debug_assert!(cols <= 64);
        Self { rows, cols }
    }

    /// A matrix from its columns; bit `r` of a column is row `r`.
    pub fn from_columns(columns: &[u64], rows: u32) -> Self {
        let mut out = vec![0u64; rows as usize];
        for (c, &col) in columns.iter().enumerate() {
            let mut bits = col;
            while bits != 0 {
                let r = bits.trailing_zeros() as usize;
                if r < out.len() {
                    out[r] |= 1 << c;
                }
                bits &= bits - 1;
            }
        }
        Self {
            rows: out,
            cols: columns.len() as u32,
        }
    }

    pub fn rows(&self) -> &[u64] {
        &self.rows
    }

    pub fn num_cols(&self) -> u32 {
        self.cols
    }

    pub fn get(&self, row: usize, col: u32) -> bool {
        self.rows[row] >> col & 1 == 1
    }

    /// Reduced row echelon form in place; the pivot of each row is its lowest
    /// set column and pivots increase down the rows. Returns the rank.
    pub fn row_reduce(&mut self) -> u32 {
        let mut rank = 0usize;
        for col in 0..self.cols {
            let bit = 1u64 << col;
            let Some(found) = (rank..self.rows.len()).find(|&r| self.rows[r] & bit != 0) else {
                continue;
            };
            self.rows.swap(rank, found);
            let pivot_row = self.rows[rank];
            for (r, row) in self.rows.iter_mut().enumerate() {
                if r != rank && *row & bit != 0 {
                    *row ^= pivot_row;
                }
            }
            rank += 1;
        }
        rank as u32
    }

    /// Pivot columns of the reduced form (the matrix must be reduced).
    pub fn pivot_columns(&self) -> Vec<u32> {
        self.rows
            .iter()
            .filter(|&&r| r != 0)
            .map(|r| r.trailing_zeros())
            .collect()
    }
}

// ----- subspaces of GF(2)^rank, as lists of basis words -----

/// `dim(span(a) ∩ span(b))`, from `dim a + dim b - dim(a + b)`.
pub fn intersection_dim(a: &[u64], b: &[u64]) -> u32 {
    let both = rank(a.iter().chain(b).copied());
    rank(a.iter().copied()) + rank(b.iter().copied()) - both
}

/// The rank formula of bank conflicts (the Linear Layouts paper, Lemma
/// 9.4): lanes of one phase whose addresses differ only in `segment`
/// directions (same bank, another word) serialise; there are
/// `2^dim(span(lanes) ∩ span(segment)) - 1` extra wavefronts.
pub fn conflict_ways(lanes: &[u64], segment: &[u64]) -> u64 {
    (1u64 << intersection_dim(lanes, segment)) - 1
}

/// The span of every non-zero word of `groups`.
pub fn span_of(groups: &[Vec<u64>]) -> Echelon {
    let mut span = Echelon::new();
    for &w in groups.iter().flatten().filter(|w| **w != 0) {
        span.insert(w);
    }
    span
}

/// The row-reduced echelon form with each row's lowest set bit as its pivot
/// (zero rows dropped); unique for a given row space.
pub fn rref_lowest_pivot(vectors: &[u64]) -> Vec<u64> {
    let mut rows: Vec<u64> = Vec::new();
    for &v in vectors {
        let mut v = v;
        for &r in &rows {
            if v >> r.trailing_zeros() & 1 == 1 {
                v ^= r;
            }
        }
        if v == 0 {
            continue;
        }
        let pivot = v.trailing_zeros();
        for r in rows.iter_mut() {
            if *r >> pivot & 1 == 1 {
                *r ^= v;
            }
        }
        rows.push(v);
    }
    rows
}

/// A basis of the vectors orthogonal to all of `vectors`, one per free
/// column in increasing order (Triton's `nullspaceBasis`).
pub fn nullspace_basis(vectors: &[u64], rank: u32) -> Vec<u64> {
    let rows = rref_lowest_pivot(vectors);
    let pivots: u64 = rows.iter().fold(0, |m, r| m | 1 << r.trailing_zeros());
    (0..rank)
        .filter(|c| pivots >> c & 1 == 0)
        .map(|c| {
            rows.iter()
                .filter(|r| *r >> c & 1 == 1)
                .fold(1u64 << c, |v, r| v ^ 1 << r.trailing_zeros())
        })
        .collect()
}

/// A basis of `span(b1) ∩ span(b2)` (Triton's `intersectionBasis`): for
/// one-hot vectors the common ones in `b1`'s order, otherwise by nullspaces.
pub fn intersection_basis(b1: &[u64], b2: &[u64], rank: u32) -> Vec<u64> {
    if b1.iter().chain(b2).all(|v| v.is_power_of_two()) {
        return b1
            .iter()
            .copied()
            .filter(|v| *v != 0 && b2.contains(v))
            .collect();
    }
    let mut joint = nullspace_basis(b1, rank);
    joint.extend(nullspace_basis(b2, rank));
    nullspace_basis(&joint, rank)
}

/// Unit vectors completing `basis` to the whole space (Triton's
/// `complementBasis`).
pub fn complement_basis(basis: &[u64], rank: u32) -> Vec<u64> {
    let pivots: u64 = rref_lowest_pivot(basis)
        .iter()
        .fold(0, |m, r| m | 1 << r.trailing_zeros());
    (0..rank)
        .filter(|c| pivots >> c & 1 == 0)
        .map(|c| 1 << c)
        .collect()
}

/// `basis` (its independent words, in order) extended by unit vectors to a
/// basis of the whole space GF(2)^rank.
pub fn extend_basis(basis: &[u64], rank: u32) -> Vec<u64> {
    let mut span = Echelon::new();
    let mut out: Vec<u64> = basis.iter().copied().filter(|&w| span.insert(w)).collect();
    out.extend(complement_basis(&out, rank));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Rank by brute force: the number of distinct XOR combinations is 2^rank.
    fn brute_rank(vs: &[u64]) -> u32 {
        let mut span = std::collections::HashSet::new();
        for mask in 0u32..1 << vs.len() {
            let mut x = 0;
            for (i, v) in vs.iter().enumerate() {
                if mask >> i & 1 == 1 {
                    x ^= v;
                }
            }
            span.insert(x);
        }
        span.len().trailing_zeros()
    }

    #[test]
    fn rank_of_dependent_columns_counts_each_independent_direction_once() {
        assert_eq!(rank([0b001, 0b010, 0b011, 0b100]), 3);
        assert_eq!(rank([0, 0, 0]), 0);
        assert_eq!(rank([0b101, 0b101]), 1);
    }

    #[test]
    fn row_reduce_puts_lowest_pivots_first() {
        // Columns 0 and 1 are equal, column 2 independent.
        let mut m = BitMatrix::from_columns(&[0b11, 0b11, 0b01], 2);
        assert_eq!(m.row_reduce(), 2);
        assert_eq!(m.pivot_columns(), vec![0, 2]);
        assert_eq!(m.rows(), &[0b011, 0b100]);
    }

    proptest! {
        #[test]
        fn echelon_rank_matches_brute_force(vs in prop::collection::vec(0u64..256, 0..9)) {
            prop_assert_eq!(rank(vs.iter().copied()), brute_rank(&vs));
        }

        #[test]
        fn echelon_pivots_match_rref_pivots(vs in prop::collection::vec(0u64..(1 << 7), 0..12)) {
            let mut e = Echelon::new();
            for &v in &vs { e.insert(v); }
            let mut m = BitMatrix::from_columns(&vs, 7);
            let r = m.row_reduce();
            prop_assert_eq!(r, e.rank());
            let pivots: u64 = m.pivot_columns().iter().map(|c| 1u64 << c).sum();
            prop_assert_eq!(pivots, e.pivot_mask());
        }

        #[test]
        fn solve_reconstructs_target_from_pivot_columns(
            vs in prop::collection::vec(0u64..(1 << 6), 1..10),
            pick in 0u64..1024,
        ) {
            let mut e = Echelon::new();
            for &v in &vs { e.insert(v); }
            // A target in the span: XOR of a random subset.
            let target = vs.iter().enumerate()
                .filter(|(i, _)| pick >> i & 1 == 1)
                .fold(0, |acc, (_, v)| acc ^ v);
            let combination = e.solve(target).expect("target is in the span");
            prop_assert_eq!(combination & !e.pivot_mask(), 0);
            let rebuilt = vs.iter().enumerate()
                .filter(|(i, _)| combination >> i & 1 == 1)
                .fold(0, |acc, (_, v)| acc ^ v);
            prop_assert_eq!(rebuilt, target);
        }
    }
}
