//! Panics caught on purpose. The corruption tests open thousands of damaged inputs and count a panic as a
//! failure that names its input; [`catch`] keeps the panic hook from printing each one, on the calling
//! thread only, so a test that fails elsewhere in the same binary still prints its message.

use std::any::Any;
use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    static CATCHING: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f`, turning a panic into `Err` with its message, which the panic hook does not print.
pub fn catch<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !CATCHING.get() {
                previous(info)
            }
        }));
    });
    let outer = CATCHING.replace(true);
    let outcome = catch_unwind(AssertUnwindSafe(f));
    CATCHING.set(outer);
    outcome.map_err(|payload| message(&*payload))
}

/// A panic payload's message: the `&str` or `String` that `panic!` and the assertions carry.
pub fn message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caught_panic_gives_its_message_and_later_panics_still_unwind() {
        assert_eq!(catch(|| 7), Ok(7));
        assert_eq!(catch(|| panic!("at row {}", 3)), Err::<(), _>("at row 3".to_string()));
        assert_eq!(catch(|| -> () { panic!("static") }), Err("static".to_string()));
        // Nested: the inner catch restores the outer one's silence, not the default.
        let nested = catch(|| {
            let inner = catch(|| panic!("inner"));
            assert!(CATCHING.get());
            inner
        });
        assert_eq!(nested, Ok(Err("inner".to_string())));
        assert!(!CATCHING.get());
        assert!(std::panic::catch_unwind(|| panic!("uncaught")).is_err());
    }
}
