//! Stopping a long enumeration that nobody waits for any more.
//!
//! Counting the bank conflicts of a 4096x4096 tensor walks sixteen million
//! elements; an editor that has since changed the file wants it stopped.
//! The algebra knows nothing of editors or databases, so a caller installs
//! a poll for the duration of a call ([`with_poll`]) and the long loops ask
//! it now and then ([`check`]), returning [`LayoutError::Interrupted`] once
//! it says stop. The caller must then discard whatever the call returned:
//! an interrupted count may have been turned into another error on the way
//! out.

use std::cell::{Cell, RefCell};

use crate::error::{LayoutError, Result};

type Poll = Box<dyn Fn() -> bool>;

thread_local! {
    static POLL: RefCell<Option<Poll>> = const { RefCell::new(None) };
    static FIRED: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with `poll` asked by [`check`]; returns its result and whether
/// the poll stopped it (then the result is no answer). Nested calls keep
/// the outer poll's verdict too.
pub fn with_poll<T>(poll: impl Fn() -> bool + 'static, f: impl FnOnce() -> T) -> (T, bool) {
    struct Restore(Option<Poll>, bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            POLL.with(|p| *p.borrow_mut() = self.0.take());
            FIRED.with(|fired| fired.set(self.1));
        }
    }
    let outer = POLL.with(|p| p.borrow_mut().replace(Box::new(poll)));
    let outer_fired = FIRED.with(|fired| fired.replace(false));
    let mut restore = Restore(outer, outer_fired);
    let out = f();
    let fired = FIRED.with(|fired| fired.get());
    // An outer scope sees this one's stop as its own; outside every scope
    // nothing is stopped.
    restore.1 |= fired && restore.0.is_some();
    drop(restore);
    (out, fired)
}

/// `Err(Interrupted)` once the installed poll says stop (and from then on
/// within the same [`with_poll`]); `Ok` when none is installed.
pub fn check() -> Result<()> {
    if FIRED.with(|fired| fired.get()) {
        return Err(LayoutError::Interrupted);
    }
    let stop = POLL.with(|p| p.borrow().as_ref().is_some_and(|poll| poll()));
    if stop {
        FIRED.with(|fired| fired.set(true));
        return Err(LayoutError::Interrupted);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_poll_stops_the_loop_that_asks_it_and_says_so() {
        let asked = std::rc::Rc::new(Cell::new(0));
        let counter = asked.clone();
        let (result, fired) = with_poll(
            move || {
                counter.set(counter.get() + 1);
                counter.get() >= 3
            },
            || (0..10).try_for_each(|_| check()),
        );
        assert_eq!(result, Err(LayoutError::Interrupted));
        assert!(fired);
        assert_eq!(asked.get(), 3);
        // Outside the scope nothing is installed.
        assert_eq!(check(), Ok(()));
    }

    #[test]
    fn without_a_stop_the_call_runs_to_the_end() {
        let (result, fired) = with_poll(|| false, || (0..10).try_for_each(|_| check()));
        assert_eq!(result, Ok(()));
        assert!(!fired);
    }
}
