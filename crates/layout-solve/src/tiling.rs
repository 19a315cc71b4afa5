//! TPU tilings.
