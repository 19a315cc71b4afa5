//! The crate graph is the one docs/architecture.md draws: each crate uses
//! only the crates below it, the algebra knows nothing of syntax, databases
//! or IO, the syntax nothing of the algebra, and only the server speaks LSP.
//! Read from `cargo metadata`, so a new edge fails here before it spreads.

use std::collections::{BTreeMap, BTreeSet};

/// Normal (not dev) dependencies of every workspace crate, by name.
fn dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let deps = p["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["kind"].is_null())
                .map(|d| d["name"].as_str().unwrap().to_string())
                .collect();
            (p["name"].as_str().unwrap().to_string(), deps)
        })
        .collect()
}

#[test]
fn each_crate_uses_only_the_crates_below_it() {
    let deps = dependencies();
    // Bottom to top; a crate may depend on crates earlier in the list only.
    let layers = [
        "layout-algebra",
        "layout-syntax",
        "layout-solve",
        "layout-db",
        "layout-ide",
        "layout-lsp",
        "layoutc",
        // The Python package's native module: the command line, in process.
        "layoutc-py",
    ];
    let rank = |name: &str| layers.iter().position(|l| *l == name);
    for (krate, uses) in &deps {
        let Some(mine) = rank(krate) else {
            continue;
        };
        for dep in uses {
            if let Some(theirs) = rank(dep) {
                assert!(theirs < mine, "{krate} depends on {dep}, a crate above it");
            }
        }
    }
    let internal = |krate: &str| -> BTreeSet<&str> {
        deps[krate]
            .iter()
            .filter_map(|d| layers.iter().find(|l| *l == d).copied())
            .collect()
    };
    // The algebra and the syntax are independent of each other and of
    // everything else in the workspace.
    assert!(internal("layout-algebra").is_empty());
    assert!(internal("layout-syntax").is_empty());
    assert_eq!(internal("layout-solve"), BTreeSet::from(["layout-algebra"]));
    assert!(!internal("layout-ide").contains("layout-lsp"));
    // The server reaches everything through layout-ide, and the command
    // line through layout-ide and the server.
    assert_eq!(internal("layout-lsp"), BTreeSet::from(["layout-ide"]));
    assert_eq!(
        internal("layoutc"),
        BTreeSet::from(["layout-ide", "layout-lsp"])
    );
    // The algebra is dependency-light: no IO, no solver, no serialisation.
    for dep in &deps["layout-algebra"] {
        assert!(
            ["smol_str", "thiserror"].contains(&dep.as_str()),
            "layout-algebra depends on {dep}"
        );
    }
    assert_eq!(internal("layoutc-py"), BTreeSet::from(["layoutc"]));
    // Only the server speaks LSP; only the solver links Z3; only the
    // Python module knows Python.
    for (krate, uses) in &deps {
        if uses.contains("pyo3") {
            assert_eq!(krate, "layoutc-py");
        }
    }
    for (krate, uses) in &deps {
        if uses.contains("tower-lsp-server") {
            assert_eq!(krate, "layout-lsp");
        }
        if uses.contains("z3") {
            assert_eq!(krate, "layout-solve");
        }
    }
}
