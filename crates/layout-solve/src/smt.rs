//! Z3 over the basis matrix, for the linear family where the construction
//! stops short of the lower bound.
