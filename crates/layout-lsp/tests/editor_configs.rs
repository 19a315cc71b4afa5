//! docs/editors.md's configuration snippets, parsed and checked against
//! each editor's documented schema (Helix's languages.toml; Zed's
//! extension.toml and language config.toml; VS Code's settings against the
//! extension's package.json). Neither Helix nor Zed can run here, so this
//! is as far as a test goes: every key is one the editor knows, every
//! server runs `layoutc lsp`, every language takes `.lay` files and names
//! the server, and the grammar paths exist.

use std::path::Path;

use toml::Table;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// One fenced block: its section, language, file name (the fence's second
/// word) and text.
struct Snippet {
    section: String,
    lang: String,
    file: String,
    text: String,
}

fn snippets() -> Vec<Snippet> {
    let doc =
        std::fs::read_to_string(Path::new(ROOT).join("docs/editors.md")).expect("docs/editors.md");
    let mut out = Vec::new();
    let mut section = String::new();
    let mut lines = doc.lines();
    while let Some(line) = lines.next() {
        if let Some(s) = line.strip_prefix("## ") {
            section = s.trim().to_string();
        } else if let Some(info) = line.strip_prefix("```") {
            let mut words = info.split_whitespace();
            let lang = words.next().unwrap_or("").to_string();
            let file = words.next().unwrap_or("").to_string();
            let mut text = String::new();
            for l in lines.by_ref() {
                if l.starts_with("```") {
                    break;
                }
                text += l;
                text += "\n";
            }
            out.push(Snippet {
                section: section.clone(),
                lang,
                file,
                text,
            });
        }
    }
    out
}

fn section(name: &str) -> Vec<Snippet> {
    snippets()
        .into_iter()
        .filter(|s| s.section.starts_with(name))
        .collect()
}

fn parse_toml(s: &Snippet) -> Table {
    s.text
        .parse::<Table>()
        .unwrap_or_else(|e| panic!("{} ({}) is not TOML: {e}\n{}", s.file, s.section, s.text))
}

fn strings(v: Option<&toml::Value>) -> Vec<&str> {
    v.and_then(|v| v.as_array())
        .map(|a| a.iter().filter_map(|x| x.as_str()).collect())
        .unwrap_or_default()
}

/// Every key of `table` is in `known`.
fn assert_known_keys(table: &Table, known: &[&str], what: &str) {
    for key in table.keys() {
        assert!(
            known.contains(&key.as_str()),
            "{what}: `{key}` is not a key the editor documents ({known:?})"
        );
    }
}

#[test]
fn helix_runs_layoutc_lsp_for_lay_files() {
    let snippets = section("Helix");
    let tomls: Vec<Table> = snippets
        .iter()
        .filter(|s| s.lang == "toml")
        .inspect(|s| assert_eq!(s.file, "languages.toml", "Helix reads languages.toml"))
        .map(parse_toml)
        .collect();
    assert!(!tomls.is_empty(), "docs/editors.md has Helix snippets");
    for t in &tomls {
        assert_known_keys(
            t,
            &["language-server", "language", "grammar", "use-grammars"],
            "languages.toml",
        );
    }
    // [language-server.layoutc]
    let servers = tomls
        .iter()
        .find_map(|t| t.get("language-server").and_then(|v| v.as_table()))
        .expect("a [language-server.NAME] table");
    let layoutc = servers["layoutc"]
        .as_table()
        .expect("[language-server.layoutc]");
    assert_known_keys(
        layoutc,
        &[
            "command",
            "args",
            "config",
            "environment",
            "timeout",
            "required-root-patterns",
        ],
        "[language-server.layoutc]",
    );
    assert_eq!(layoutc["command"].as_str(), Some("layoutc"));
    assert_eq!(strings(layoutc.get("args")), ["lsp"]);
    // [[language]]
    let language = tomls
        .iter()
        .filter_map(|t| t.get("language").and_then(|v| v.as_array()))
        .flatten()
        .filter_map(|l| l.as_table())
        .find(|l| l.get("name").and_then(|n| n.as_str()) == Some("lay"))
        .expect("a [[language]] named lay");
    assert_known_keys(
        language,
        &[
            "name",
            "language-id",
            "scope",
            "injection-regex",
            "file-types",
            "shebangs",
            "roots",
            "comment-token",
            "comment-tokens",
            "block-comment-tokens",
            "indent",
            "language-servers",
            "grammar",
            "formatter",
            "auto-format",
            "text-width",
            "soft-wrap",
            "workspace-lsp-roots",
            "auto-pairs",
            "diagnostic-severity",
            "rulers",
        ],
        "[[language]]",
    );
    assert!(
        language["scope"]
            .as_str()
            .is_some_and(|s| s.starts_with("source."))
    );
    assert!(strings(language.get("file-types")).contains(&"lay"));
    assert!(strings(language.get("language-servers")).contains(&"layoutc"));
    let indent = language["indent"]
        .as_table()
        .expect("indent = { tab-width, unit }");
    assert!(indent["tab-width"].as_integer().is_some() && indent["unit"].as_str().is_some());
    // [[grammar]]: its source path ends at the grammar this repository has.
    let grammar = tomls
        .iter()
        .filter_map(|t| t.get("grammar").and_then(|v| v.as_array()))
        .flatten()
        .filter_map(|g| g.as_table())
        .find(|g| g.get("name").and_then(|n| n.as_str()) == Some("lay"))
        .expect("a [[grammar]] named lay");
    let path = grammar["source"]["path"]
        .as_str()
        .expect("source = { path = ... }");
    let tail = path
        .split("/layoutc/")
        .nth(1)
        .expect("a path inside the checkout");
    assert!(
        Path::new(ROOT).join(tail).join("grammar.js").exists(),
        "{path}"
    );
}

#[test]
fn zed_extension_defines_the_lay_language_and_its_server() {
    let snippets = section("Zed");
    let by_file = |f: &str| {
        snippets
            .iter()
            .find(|s| s.file == f)
            .unwrap_or_else(|| panic!("docs/editors.md has Zed's {f}"))
    };
    let manifest = parse_toml(by_file("extension.toml"));
    assert_known_keys(
        &manifest,
        &[
            "id",
            "name",
            "version",
            "schema_version",
            "authors",
            "description",
            "repository",
            "grammars",
            "language_servers",
            "lib",
            "themes",
            "languages",
        ],
        "extension.toml",
    );
    assert_eq!(manifest["schema_version"].as_integer(), Some(1));
    for key in ["id", "name", "version"] {
        assert!(
            manifest[key].as_str().is_some(),
            "extension.toml needs `{key}`"
        );
    }
    let grammar = manifest["grammars"]["lay"]
        .as_table()
        .expect("[grammars.lay]");
    assert_known_keys(
        grammar,
        &["repository", "commit", "rev", "path"],
        "[grammars.lay]",
    );
    let commit = grammar["commit"].as_str().expect("a grammar's commit");
    assert!(
        commit.len() == 40 && commit.chars().all(|c| c.is_ascii_hexdigit()),
        "{commit}"
    );
    let path = grammar["path"]
        .as_str()
        .expect("the grammar's path in the repository");
    assert!(
        Path::new(ROOT).join(path).join("grammar.js").exists(),
        "{path}"
    );
    let server = manifest["language_servers"]["layoutc"]
        .as_table()
        .expect("[language_servers.layoutc]");
    assert_known_keys(
        server,
        &[
            "name",
            "language",
            "languages",
            "language_ids",
            "code_action_kinds",
        ],
        "[language_servers.layoutc]",
    );

    let config = parse_toml(by_file("languages/lay/config.toml"));
    assert_known_keys(
        &config,
        &[
            "name",
            "grammar",
            "path_suffixes",
            "line_comments",
            "block_comment",
            "tab_size",
            "hard_tabs",
            "first_line_pattern",
            "brackets",
            "autoclose_before",
            "word_characters",
        ],
        "config.toml",
    );
    let language = config["name"].as_str().expect("a language name");
    assert!(strings(server.get("languages")).contains(&language));
    let grammar_name = config["grammar"].as_str().expect("a grammar name");
    assert!(manifest["grammars"].get(grammar_name).is_some());
    assert!(strings(config.get("path_suffixes")).contains(&"lay"));

    let lib = by_file("src/lib.rs");
    assert!(lib.text.contains("\"layoutc\"") && lib.text.contains("\"lsp\""));
    assert!(lib.text.contains("fn language_server_command"));
    assert!(lib.text.contains("register_extension!"));
}

#[test]
fn vscode_settings_are_the_extensions_own() {
    let snippet = section("VS Code")
        .into_iter()
        .find(|s| s.lang == "json")
        .expect("a VS Code settings snippet");
    let settings: serde_json::Value = serde_json::from_str(&snippet.text).expect("JSON");
    let package: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(ROOT).join("editors/vscode/package.json"))
            .expect("editors/vscode/package.json"),
    )
    .expect("package.json is JSON");
    let declared = &package["contributes"]["configuration"]["properties"];
    for key in settings.as_object().expect("an object").keys() {
        assert!(
            declared.get(key).is_some(),
            "{key} is not a setting of the extension"
        );
    }
}

#[test]
fn every_editor_starts_the_same_server_on_the_same_files() {
    // Neovim's snippet is run by tests/lsp/run-neovim.sh; it must agree.
    let nvim = section("Neovim");
    let lua = &nvim
        .iter()
        .find(|s| s.lang == "lua")
        .expect("a Neovim snippet")
        .text;
    assert!(lua.contains(r#"cmd = { "layoutc", "lsp" }"#));
    assert!(lua.contains("lay = \"lay\""));
}
