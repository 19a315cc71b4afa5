//! The JSON forms of layouts that several commands print (`show`'s values,
//! `solve`'s answers).

use layout_algebra::LinearLayout;
use serde_json::{Value as Json, json};

/// CONTRACT §3's `linear` object.
pub fn linear_json(l: &LinearLayout) -> Json {
    let ins: Vec<Json> = l
        .bases()
        .into_iter()
        .map(|(name, bases)| {
            json!({"name": name.as_str(), "size": l.in_dim_size(&name), "bases": bases})
        })
        .collect();
    let outs: Vec<Json> = l
        .out_dims()
        .into_iter()
        .map(|(n, s)| json!({"name": n.as_str(), "size": s}))
        .collect();
    json!({"ins": ins, "outs": outs})
}
