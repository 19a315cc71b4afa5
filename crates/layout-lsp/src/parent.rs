//! The client's process, watched: the protocol asks a server to exit when
//! the `processId` it was given is gone, since a client that crashed may
//! leave its end of the pipe open (a shared terminal, a wrapper script).

use std::time::Duration;

/// How often the client's process is looked for.
const INTERVAL: Duration = Duration::from_secs(3);

/// Ends this process (status 1, as for an `exit` without `shutdown`) once
/// process `pid` no longer runs. Where the operating system cannot be asked
/// without unsafe code (not Linux), the server relies on its input closing.
pub fn watch(pid: u32) {
    if !can_ask() || !alive(pid) {
        // An id that never ran here (a client in a container) is not a
        // reason to stop at once.
        return;
    }
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(INTERVAL).await;
            if !alive(pid) {
                eprintln!("layoutc lsp: the client (process {pid}) is gone; exiting");
                std::process::exit(1);
            }
        }
    });
}

fn can_ask() -> bool {
    cfg!(target_os = "linux")
}

/// Whether `pid` names a live process (a zombie is not live).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state is the field after the parenthesised command name.
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn this_process_is_alive_and_a_reaped_child_is_not() {
        if !super::can_ask() {
            return;
        }
        assert!(super::alive(std::process::id()));
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        assert!(!super::alive(pid));
    }
}
