//! The FFI boundary's failures: the result codes, a failure's code and message, the thread's last
//! error, a call's panic caught, and C strings read.

use core::ffi::{c_char, c_int};
use std::cell::RefCell;
use std::ffi::{CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

pub(crate) const OK: c_int = 0;
pub(crate) const TIMEOUT: c_int = 1;
pub(crate) const IO: c_int = 2;
pub(crate) const INTERNAL: c_int = 3;

pub(crate) struct Failure {
    pub(crate) code: c_int,
    pub(crate) message: String,
}

pub(crate) fn io(message: String) -> Failure {
    Failure { code: IO, message }
}

thread_local! {
    pub(crate) static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn remember(message: &str) {
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = text);
}

/// Runs `f`, a panic caught: its code, the failure's message remembered.
pub(crate) fn guarded<F: FnOnce() -> Result<c_int, Failure>>(f: F) -> c_int {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(code)) => code,
        Ok(Err(failure)) => {
            remember(&failure.message);
            failure.code
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_string());
            remember(&format!("iceoryx2 panicked: {what}"));
            INTERNAL
        }
    }
}

pub(crate) fn text(p: *const c_char, what: &str) -> Result<String, Failure> {
    if p.is_null() {
        return Err(Failure { code: INTERNAL, message: format!("no {what} given") });
    }
    unsafe { CStr::from_ptr(p) }
        .to_str()
        .map(str::to_owned)
        .map_err(|_| io(format!("the {what} is not UTF-8")))
}
