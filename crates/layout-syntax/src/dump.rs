//! Files that hold more than one dump: an `MLIR_ENABLE_DUMP=1` log (one
//! `// -----// IR Dump Before PASS` section per pass, the whole module
//! each time) or several dumps pasted one after another. Names are
//! file-wide in layoutc while each module has its own `#blocked`, so one
//! dump is analysed — the last TritonGPU module, the last one Triton's
//! layouts shape before it lowers to LLVM — and the rest of the text is
//! blanked out (newlines kept), so that every offset and line number still
//! points into the file as it is.

use std::ops::Range;

/// The dump of a multi-dump file that is analysed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Selection {
    pub kind: SelectionKind,
    /// How many dumps the file holds.
    pub dumps: usize,
    /// The chosen dump's text.
    pub range: Range<usize>,
    /// The line that starts it (a log section's header, or the `module` line).
    pub header: Range<usize>,
    /// The pass the section was printed before (a log).
    pub pass: Option<String>,
    /// Its position among the dumps, from 1.
    pub number: usize,
    /// Whether the user named it (else it is the last TritonGPU module).
    pub chosen: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SelectionKind {
    /// `MLIR_ENABLE_DUMP=1` output.
    Log,
    /// Several modules pasted into one file.
    Modules,
}

const HEADER: &str = "// -----// IR Dump ";

/// Which dump of a multi-dump file to analyse.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum SectionChoice {
    /// The last TritonGPU module (the default).
    #[default]
    LastTritonGpu,
    /// A log's last section printed before this pass
    /// (`TritonGPURemoveLayoutConversions`, `ConvertTritonGPUToLLVM`).
    Pass(String),
    /// The n-th dump, counting from 1.
    Number(usize),
}

impl std::str::FromStr for SectionChoice {
    type Err = std::convert::Infallible;

    /// A number is a position, anything else a pass name.
    fn from_str(s: &str) -> Result<SectionChoice, Self::Err> {
        Ok(match s.trim().parse::<usize>() {
            Ok(n) => SectionChoice::Number(n),
            Err(_) => SectionChoice::Pass(s.trim().to_string()),
        })
    }
}

/// The dump to analyse, when `text` holds several; `None` for one dump or
/// a `.lay` file.
pub fn select(text: &str) -> Option<Selection> {
    select_with(text, &SectionChoice::LastTritonGpu).unwrap_or_default()
}

/// The dump `choice` names; an error that lists what there is when the
/// file has no such dump.
pub fn select_with(text: &str, choice: &SectionChoice) -> Result<Option<Selection>, String> {
    let Some(all) = dumps(text) else {
        return match choice {
            SectionChoice::LastTritonGpu => Ok(None),
            _ => Err("this file holds one dump: there is no section to choose".into()),
        };
    };
    let k = match choice {
        SectionChoice::LastTritonGpu => (0..all.len())
            .rev()
            .find(|&k| is_tritongpu(&text[all[k].range.clone()]))
            .unwrap_or(all.len() - 1),
        SectionChoice::Number(n) => {
            if *n == 0 || *n > all.len() {
                return Err(format!(
                    "there is no dump {n}: this file holds {} (1 to {})",
                    all.len(),
                    all.len()
                ));
            }
            n - 1
        }
        SectionChoice::Pass(pass) => match (0..all.len())
            .rev()
            .find(|&k| all[k].pass.as_deref() == Some(pass.as_str()))
        {
            Some(k) => k,
            None => {
                let mut passes: Vec<&str> = Vec::new();
                for p in all.iter().filter_map(|d| d.pass.as_deref()) {
                    if !passes.contains(&p) {
                        passes.push(p);
                    }
                }
                return Err(if passes.is_empty() {
                    format!(
                        "no dump here is printed before `{pass}`: the dumps have no pass names; name one by number (1 to {})",
                        all.len()
                    )
                } else {
                    format!(
                        "no dump here is printed before `{pass}`; the passes are {}",
                        passes.join(", ")
                    )
                });
            }
        },
    };
    let mut chosen = all[k].clone();
    chosen.dumps = all.len();
    chosen.number = k + 1;
    chosen.chosen = !matches!(choice, SectionChoice::LastTritonGpu);
    Ok(Some(chosen))
}

/// Every dump of a multi-dump file, in order (`dumps` and `number` to be
/// filled in); `None` for a file with one dump or none.
fn dumps(text: &str) -> Option<Vec<Selection>> {
    let lines = line_ranges(text);
    let headers: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, r)| text[(*r).clone()].starts_with(HEADER))
        .map(|(i, _)| i)
        .collect();
    if !headers.is_empty() {
        let sections: Vec<(usize, Range<usize>)> = headers
            .iter()
            .enumerate()
            .map(|(k, &h)| {
                let end = headers
                    .get(k + 1)
                    .map_or(text.len(), |&next| lines[next].start);
                (h, lines[h].start..end)
            })
            .collect();
        return Some(
            sections
                .into_iter()
                .map(|(h, range)| {
                    let header = lines[h].clone();
                    let pass = text[header.clone()]
                        .trim_start_matches(HEADER)
                        .split_whitespace()
                        .nth(1)
                        .map(|p| p.trim_end_matches(':').to_string());
                    Selection {
                        kind: SelectionKind::Log,
                        dumps: 0,
                        number: 0,
                        chosen: false,
                        range,
                        header,
                        pass,
                    }
                })
                .collect(),
        );
    }
    let modules: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            let l = &text[(*r).clone()];
            l.starts_with("module ") || l == "module{" || l.starts_with("module{")
        })
        .map(|(i, _)| i)
        .collect();
    // Several modules with functions: pasted dumps (a `.lay` file may
    // repeat a module line, which is not a second dump).
    let with_functions = modules
        .iter()
        .enumerate()
        .filter(|&(k, &m)| {
            let end = modules
                .get(k + 1)
                .map_or(text.len(), |&next| lines[next].start);
            text[lines[m].start..end].contains("tt.func")
        })
        .count();
    if with_functions < 2 {
        return None;
    }
    // A dump prints its aliases, then its leading `#loc`s, then the module
    // (and trailing `#loc`s after it): each dump starts at its first alias.
    let starts: Vec<usize> = modules
        .iter()
        .map(|&m| {
            let line = |s: usize| text[lines[s].clone()].trim();
            let mut s = m;
            while s > 0 && (line(s - 1).starts_with("#loc") || line(s - 1).is_empty()) {
                s -= 1;
            }
            while s > 0 && line(s - 1).starts_with('#') && !line(s - 1).starts_with("#loc") {
                s -= 1;
            }
            s
        })
        .collect();
    Some(
        (0..modules.len())
            .map(|k| {
                let end = starts.get(k + 1).map_or(text.len(), |&s| lines[s].start);
                Selection {
                    kind: SelectionKind::Modules,
                    dumps: 0,
                    number: 0,
                    chosen: false,
                    range: lines[starts[k]].start..end,
                    header: lines[modules[k]].clone(),
                    pass: None,
                }
            })
            .collect(),
    )
}

fn is_tritongpu(section: &str) -> bool {
    section.contains("tt.func") && section.contains("ttg.")
}

/// `text` with everything outside `keep` replaced by spaces, newlines kept:
/// each byte of a blanked character becomes one space, so every offset
/// stays where it was (`keep` starts and ends on character boundaries).
pub fn blank_outside(text: &str, keep: &Range<usize>) -> String {
    let blank = |part: &str| -> Vec<u8> {
        part.bytes()
            .map(|b| if b == b'\n' { b'\n' } else { b' ' })
            .collect()
    };
    let keep = keep.start.min(text.len())..keep.end.clamp(keep.start.min(text.len()), text.len());
    let mut out = blank(&text[..keep.start]);
    out.reserve(text.len() - keep.start);
    out.extend_from_slice(text[keep.clone()].as_bytes());
    out.extend(blank(&text[keep.end..]));
    // Spaces, newlines and a slice of `text` cut at character boundaries.
    String::from_utf8(out).expect("blanking keeps the text UTF-8")
}

/// The text layoutc analyses of a file, and the selection when the file
/// holds several dumps.
pub fn analysed_text(text: &str) -> (std::borrow::Cow<'_, str>, Option<Selection>) {
    match select(text) {
        Some(s) => (blank_outside(text, &s.range).into(), Some(s)),
        None => (text.into(), None),
    }
}

/// Each line's byte range, without its newline.
fn line_ranges(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        out.push(start..start + content.len());
        start += line.len();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "// -----// IR Dump Before Inliner: inline ('builtin.module' operation) //----- //
module {
  tt.func public @k() { tt.return }
}
// -----// IR Dump Before TritonGPURemoveLayoutConversions: tritongpu-remove-layout-conversions ('builtin.module' operation) //----- //
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {\"ttg.num-warps\" = 4 : i32} {
  tt.func public @k() { tt.return }
}
// -----// IR Dump Before ConvertNVVMToLLVMPass: convert-nvvm-to-llvm ('builtin.module' operation) //----- //
module attributes {\"ttg.num-warps\" = 4 : i32} {
  llvm.func @k() { llvm.return }
}
";

    #[test]
    fn a_log_is_read_at_its_last_tritongpu_section() {
        let s = select(LOG).unwrap();
        assert_eq!(s.kind, SelectionKind::Log);
        assert_eq!(s.dumps, 3);
        assert_eq!(s.pass.as_deref(), Some("TritonGPURemoveLayoutConversions"));
        assert!(LOG[s.range.clone()].contains("#blocked"));
        let (text, _) = analysed_text(LOG);
        assert_eq!(text.len(), LOG.len());
        assert_eq!(text.lines().count(), LOG.lines().count());
        assert!(!text.contains("Inliner") && !text.contains("llvm.func"));
    }

    #[test]
    fn pasted_dumps_are_read_at_the_last_one() {
        let two = "#a = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {\"ttg.num-warps\" = 4 : i32} {
  tt.func @x() { tt.return }
}
#loc = loc(\"x.py\":1:1)
#a = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {\"ttg.num-warps\" = 4 : i32} {
  tt.func @y() { tt.return }
}
";
        let s = select(two).unwrap();
        assert_eq!((s.kind, s.dumps), (SelectionKind::Modules, 2));
        assert!(two[s.range.clone()].starts_with("#a = #ttg.blocked<{sizePerThread = [2]"));
        assert!(select("module {\n}\n").is_none());
    }

    #[test]
    fn blanking_keeps_every_offset_and_line() {
        // A two-byte `é` and a three-byte `→` outside what is kept, and
        // inside it.
        let text = "// café → x\nkeep é → y\n// ünd\r\n";
        let keep = text.find("keep").unwrap()..text.find("// ü").unwrap();
        let blanked = blank_outside(text, &keep);
        assert_eq!(blanked.len(), text.len());
        assert_eq!(&blanked[keep.clone()], &text[keep.clone()]);
        let kept_newlines = |t: &str| t.match_indices('\n').map(|(i, _)| i).collect::<Vec<_>>();
        assert_eq!(kept_newlines(&blanked), kept_newlines(text));
        assert!(blanked[..keep.start].trim().is_empty());
        assert!(blanked[keep.end..].trim().is_empty());
        // Out-of-range ends are clamped rather than a panic.
        assert_eq!(blank_outside("ab", &(1..9)), " b");
    }

    #[test]
    fn a_named_section_is_chosen_by_pass_or_number() {
        let by_pass = select_with(LOG, &"Inliner".parse().unwrap())
            .unwrap()
            .unwrap();
        assert_eq!((by_pass.number, by_pass.chosen), (1, true));
        assert!(LOG[by_pass.range.clone()].contains("module {"));
        let by_number = select_with(LOG, &SectionChoice::Number(3))
            .unwrap()
            .unwrap();
        assert_eq!(by_number.pass.as_deref(), Some("ConvertNVVMToLLVMPass"));
        let missing = select_with(LOG, &"Nowhere".parse().unwrap()).unwrap_err();
        assert!(
            missing.contains("Inliner, TritonGPURemoveLayoutConversions, ConvertNVVMToLLVMPass"),
            "{missing}"
        );
        assert!(select_with(LOG, &SectionChoice::Number(4)).is_err());
        assert!(select_with("module {\n}\n", &SectionChoice::Number(1)).is_err());
    }
}
