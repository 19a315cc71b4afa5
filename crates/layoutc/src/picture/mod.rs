//! `layoutc render FILE NAME -o OUT.svg|OUT.html|OUT.png`: the picture of
//! one value. layout-ide draws it as data ([`layout_ide::picture`]); this
//! module only writes it: SVG ([`svg_doc`]), PNG rasterised from the SVG
//! ([`png`]), or an HTML page around the SVG that shows a cell's details on
//! hover (`view.html`).

mod png;
pub mod svg_doc;

use std::path::Path;

use layout_ide::picture::{Picture, PictureError};

use crate::Usage;
use crate::files;
use crate::report::{ariadne_report, source_cache};

/// The format of the picture, from the output's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Svg,
    Png,
    Html,
}

impl Format {
    fn of(output: &str) -> Result<Format, Usage> {
        let ext = Path::new(output)
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match ext.as_deref() {
            Some("svg") => Ok(Format::Svg),
            Some("png") => Ok(Format::Png),
            Some("html" | "htm") => Ok(Format::Html),
            _ => Err(Usage(format!(
                "cannot tell the picture's format from `{output}`: name it .svg, .png or .html"
            ))),
        }
    }
}

pub fn render(path: &str, name: &str, output: &str) -> Result<u8, Usage> {
    let format = Format::of(output)?;
    let source = files::read(Path::new(path))?;
    let analysis = layout_ide::Analysis::new(path.to_string(), source.text.clone());
    let report = analysis.report();
    let picture = match analysis.picture(name) {
        Ok(p) => p,
        Err(e @ (PictureError::NoSuchName { .. } | PictureError::NotDrawable(_))) => {
            return Err(Usage(format!("{path}: {e}")));
        }
        Err(e @ PictureError::HasErrors(_)) => {
            let mut cache = source_cache(path, &source.text);
            let mut out = String::new();
            for d in &report.diagnostics {
                out += &ariadne_report(&mut cache, d, false);
            }
            eprint!("{out}");
            eprintln!("layoutc: {path}: {e}");
            return Ok(1);
        }
    };
    let bytes =
        encode(&picture, format).map_err(|e| Usage(format!("cannot draw `{name}`: {e}")))?;
    crate::fmt_cmd::write_atomically(Path::new(output), bytes)
        .map_err(|e| Usage(format!("cannot write {output}: {e}")))?;
    if report.has_errors() {
        // The picture is drawn; the rest of the file still has errors.
        eprintln!("layoutc: {path} has errors elsewhere; `layoutc check {path}` shows them");
        return Ok(1);
    }
    Ok(0)
}

fn encode(p: &Picture, format: Format) -> Result<Vec<u8>, String> {
    let svg = svg_doc::document(p);
    Ok(match format {
        Format::Svg => svg.into_bytes(),
        Format::Png => png::rasterise(&svg)?,
        Format::Html => html(p, &svg).into_bytes(),
    })
}

/// The page: the SVG inline and a panel that shows the hovered cell.
fn html(p: &Picture, svg: &str) -> String {
    const PAGE: &str = include_str!("view.html");
    PAGE.replace("{{title}}", &escape_html(&p.title))
        .replace("{{svg}}", svg)
}

fn escape_html(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
