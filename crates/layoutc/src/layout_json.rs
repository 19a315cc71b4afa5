//! The JSON forms of layouts that several commands print (`show`'s values,
//! `solve`'s answers).

use layout_ide::algebra::LinearLayout;

use crate::json_schema::{InDim, Linear, OutDim};

/// CONTRACT §3's `linear` object.
pub fn linear_json(l: &LinearLayout) -> Linear {
    Linear {
        ins: l
            .bases()
            .into_iter()
            .map(|(name, bases)| InDim {
                size: l.in_dim_size(&name),
                name: name.as_str().to_string(),
                bases,
            })
            .collect(),
        outs: l
            .out_dims()
            .into_iter()
            .map(|(n, size)| OutDim {
                name: n.as_str().to_string(),
                size,
            })
            .collect(),
    }
}
