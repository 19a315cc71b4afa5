//! Text exactly as the real systems print it pastes without error, and
//! means what the systems say it means. The corpora in tests/corpus/ were
//! produced by Triton 3.9 (TTGIR dumps of real kernels), CuTe's C++
//! `cute::print` (CUTLASS 4.2 headers) and XLA's own tests; each folder has
//! the script that made it.

use layout_db::{Database, Severity, SourceFile, Value, check_file, named_values};

fn corpus(dir: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus")
        .join(dir)
}

fn errors(text: &str) -> Vec<String> {
    let mut db = Database::default();
    let file = SourceFile::open(&mut db, "pasted.lay".into(), text.into());
    check_file(&db, file)
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| {
            let line = text[..d.span.start].matches('\n').count() + 1;
            format!("line {line}: {} {}", d.code.as_str(), d.message)
        })
        .collect()
}

#[test]
fn every_ttgir_dump_pastes_whole_and_line_by_line() {
    let mut dumps: Vec<_> = std::fs::read_dir(corpus("ttgir"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ttgir"))
        .collect();
    dumps.sort();
    assert!(dumps.len() >= 27, "the corpus has {} dumps", dumps.len());
    let mut failures = Vec::new();
    for path in &dumps {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(path).unwrap();
        for e in errors(&text) {
            failures.push(format!("{name} {e}"));
        }
        // Every line on its own parses (a line that only closes a region
        // continues the line before it, so it is pasted with it).
        for (i, line) in text.lines().enumerate() {
            let t = line.trim_start();
            if t.is_empty() || t.starts_with('}') || t.starts_with(')') {
                continue;
            }
            for e in layout_syntax::parse(line).errors {
                failures.push(format!("{name} line {} alone: {}", i + 1, e.message));
            }
        }
        // Every conversion and shared-memory access became a value with its
        // analysis, none was skipped as an unknown operation.
        let analysed = text
            .lines()
            .filter(|l| {
                ["convert_layout", "local_alloc", "local_store", "local_load"]
                    .iter()
                    .any(|op| l.contains(&format!("ttg.{op} ")))
            })
            .count();
        let parsed = layout_syntax::parse(&text);
        let items = parsed
            .items
            .iter()
            .filter(|i| {
                matches!(
                    i.kind,
                    layout_syntax::ItemKind::Convert { .. }
                        | layout_syntax::ItemKind::MemoryOp { .. }
                )
            })
            .count();
        if items != analysed {
            failures.push(format!(
                "{name}: {analysed} conversion/access lines but {items} analysed items"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `what \t printed \t size \t cosize \t table` rows of `cute::print`.
fn cute_rows() -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(corpus("cute").join("print.tsv")).unwrap();
    text.lines()
        .skip(1)
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

#[test]
fn cute_print_output_pastes_and_evaluates_as_cute_computes_it() {
    let rows: Vec<Vec<String>> = cute_rows()
        .into_iter()
        // A bare basis element (`_1@0`) is no layout; coordinate layouts
        // (`(_4,_8):(_1@0,_1@1)`) and GMMA's `smem_ptr[16b]` atoms are.
        .filter(|r| !r[1].contains('@') || r[1].contains(':'))
        .collect();
    assert!(rows.len() > 200, "{} rows", rows.len());
    let mut text = String::new();
    for (i, r) in rows.iter().enumerate() {
        let printed = &r[1];
        // A shape or coordinate prints as a tuple; a layout has a `:` or a swizzle.
        let is_tuple = !printed.contains(':') && !printed.starts_with("Sw<") || printed == "_";
        if is_tuple {
            text += &format!("let r{i} = {printed}\n");
        } else {
            text += &format!("layout r{i} = cute {printed}\n");
        }
    }
    let mut db = Database::default();
    let file = SourceFile::open(&mut db, "cute.lay".into(), text.clone());
    let report = check_file(&db, file);
    let mut failures: Vec<String> = report
        .diagnostics
        .iter()
        .map(|d| {
            let line = text[..d.span.start].matches('\n').count();
            format!(
                "{} ({}): {} {}",
                rows[line][1],
                rows[line][0],
                d.code.as_str(),
                d.message
            )
        })
        .collect();
    let table_of = |r: &Vec<String>| -> Vec<i64> {
        r.get(4)
            .filter(|t| !t.is_empty())
            .map(|t| t.split(',').map(|x| x.parse().unwrap()).collect())
            .unwrap_or_default()
    };
    let mut compared = 0;
    for (i, v) in named_values(&db, file).into_iter().enumerate() {
        let r = &rows[i];
        let size: Option<i64> = r[2].parse().ok();
        let cosize: Option<i64> = r.get(3).and_then(|c| c.parse().ok());
        let want = table_of(r);
        let (got_size, got_cosize, got) = match &v.value {
            Some(Value::Cute(l)) => (l.size(), Some(l.cosize()), l.table()),
            // GMMA's atoms print no table; their swizzle acts on bytes, so
            // the value is the same function in elements.
            Some(Value::Swizzled(s)) if r[1].contains("smem_ptr") => {
                (s.layout.size(), None, Vec::new())
            }
            Some(Value::Swizzled(s)) => (s.layout.size(), Some(s.layout.cosize()), s.table()),
            Some(Value::CuteCoord(l)) => (l.size(), None, Vec::new()),
            Some(Value::Swizzle(sw)) => {
                // `Swizzle<..>{} @ 16*i`: the table holds sw(16 i).
                let step: i64 = r[0]
                    .split("@ ")
                    .nth(1)
                    .and_then(|s| s.split('*').next())
                    .and_then(|s| s.trim().parse().ok())
                    .unwrap_or(1);
                (64, None, (0..64).map(|i| sw.apply(step * i)).collect())
            }
            // `_` (Underscore) and tiles have no table of their own.
            Some(Value::Underscore) | Some(Value::Tiler(_)) => continue,
            Some(t @ Value::Tuple(_)) | Some(t @ Value::Int(_)) => {
                let product = t.as_int_tuple().map_or(-1, |t| t.product());
                (product, None, Vec::new())
            }
            other => {
                failures.push(format!("{}: evaluated to {other:?}", r[1]));
                continue;
            }
        };
        if size.is_some_and(|s| s != got_size) {
            failures.push(format!("{}: size {got_size}, CuTe says {}", r[1], r[2]));
        }
        if let (Some(want), Some(got)) = (cosize, got_cosize)
            && want != got
        {
            failures.push(format!("{}: cosize {got}, CuTe says {want}", r[1]));
        }
        if !want.is_empty() {
            compared += 1;
            if got[..want.len().min(got.len())] != want[..] {
                failures.push(format!(
                    "{}: table {:?}, CuTe says {want:?}",
                    r[1],
                    &got[..want.len().min(got.len())]
                ));
            }
        }
    }
    assert!(compared > 150, "only {compared} tables compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_hlo_shape_of_xlas_tests_parses() {
    let text = std::fs::read_to_string(corpus("xla").join("shapes.txt")).unwrap();
    let mut failures = Vec::new();
    for line in text.lines() {
        let shape = line.split('\t').next().unwrap();
        let src = format!("layout x = xla {shape}\n");
        // Syntax: every shape, with every suffix, is one `xla` value.
        for e in layout_syntax::parse(&src).errors {
            failures.push(format!("{shape}: {}", e.message));
        }
        // Values: all but the non-arrays (opaque, token) and the unbounded
        // dynamic dim `?`, whose refusals must say why.
        let errs = errors(&src);
        let refused =
            shape.starts_with("opaque") || shape.starts_with("token") || shape.contains('?');
        if refused {
            if errs.len() != 1 || !errs[0].contains("E0311") {
                failures.push(format!("{shape}: expected one E0311, got {errs:?}"));
            }
        } else if !errs.is_empty() {
            failures.push(format!("{shape}: {errs:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
