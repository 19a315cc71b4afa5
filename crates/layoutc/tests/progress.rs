//! `layoutc check` over many files draws a progress bar on a terminal
//! (stderr is a pty under `script`), and nothing when stderr is a pipe.

use std::process::Command;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn dumps() -> usize {
    std::fs::read_dir(format!("{ROOT}/tests/corpus/ttgir"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "ttgir" || x == "mlir")
        })
        .count()
}

#[test]
fn no_progress_bar_when_stderr_is_not_a_terminal() {
    let o = Command::new(env!("CARGO_BIN_EXE_layoutc"))
        .args(["check", "tests/corpus/ttgir", "--color", "never"])
        .current_dir(ROOT)
        .env_remove("LAYOUTC_NO_PROGRESS")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&o.stderr), "");
}

#[test]
fn a_progress_bar_counts_the_files_on_a_terminal() {
    // util-linux's `script` runs the command on a pseudo-terminal; stdout
    // goes to /dev/null inside, so what comes back is the bar on stderr.
    let command = format!(
        "{} check tests/corpus/ttgir --color never > /dev/null",
        env!("CARGO_BIN_EXE_layoutc")
    );
    let o = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(ROOT)
        .env_remove("LAYOUTC_NO_PROGRESS")
        .output()
        .expect("util-linux `script` runs");
    assert_eq!(o.status.code(), Some(0));
    let tty = String::from_utf8_lossy(&o.stdout);
    assert!(tty.contains("checking"), "{tty:?}");
    assert!(tty.contains(&format!("/{} files", dumps())), "{tty:?}");
}
