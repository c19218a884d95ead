//! ipclab's C binding of iceoryx2 0.10 (PROTOCOL.md 4.12): the calls of
//! include/ipclab_iceoryx2.h, each a thin layer over the iceoryx2 crate. One `Side` is one node
//! with its services and ports; the C++ peer (src/iceoryx2/) drives it. Every call catches a
//! panic at the boundary and turns it, like every error, into a code and a message: failure.rs
//! holds that boundary's codes and errors, side.rs a side's making (node, services, ports).

#![allow(non_camel_case_types)] // the C names of include/ipclab_iceoryx2.h

mod failure;
mod side;

use core::ffi::{c_char, c_int};
use core::mem::MaybeUninit;
use core::time::Duration;
use std::ffi::CString;
use std::time::Instant;

use iceoryx2::port::listener::{Listener, ListenerWaitError};
use iceoryx2::port::notifier::Notifier;
use iceoryx2::port::publisher::Publisher;
use iceoryx2::port::subscriber::Subscriber;
use iceoryx2::port::{ReceiveError, SendError};
use iceoryx2::prelude::*;
use iceoryx2::sample::Sample;
use iceoryx2::sample_mut_uninit::SampleMutUninit;
use iceoryx2_bb_elementary::package_version::PackageVersion;

use failure::{guarded, io, Failure, INTERNAL, LAST_ERROR, OK, TIMEOUT};
use side::{open, Services};

/// How many polls a spinning receive makes between two looks at the clock.
const POLLS_PER_CLOCK: u32 = 64;

type Service = ipc::Service;

#[repr(C)]
pub struct ipclab_ix2_options {
    server: c_int,
    spin: c_int,
    root: *const c_char,
    prefix: *const c_char,
    initial_slice_len: usize,
    send_timeout_ns: i64,
}

/// One side: its fields drop in this order, so the samples go before the ports, the ports
/// before their services and everything before the node.
pub struct ipclab_ix2_side {
    loaned: Option<SampleMutUninit<Service, [MaybeUninit<u8>], ()>>,
    received: Option<Sample<Service, [u8], ()>>,
    publisher: Publisher<Service, [u8], ()>,
    subscriber: Subscriber<Service, [u8], ()>,
    notifier: Option<Notifier<Service>>,
    listener: Option<Listener<Service>>,
    _services: Services,
    _node: Node<Service>,
    server: bool,
    prefix: String,
}

fn side<'a>(p: *mut ipclab_ix2_side) -> Result<&'a mut ipclab_ix2_side, Failure> {
    unsafe { p.as_mut() }.ok_or(Failure { code: INTERNAL, message: "no side".into() })
}

fn receive_error(e: ReceiveError) -> Failure {
    io(format!("receive on the subscriber: {e:?}"))
}

/// Takes the next sample into `s.received`: true if one came within timeout_ns.
fn next_sample(s: &mut ipclab_ix2_side, timeout_ns: i64) -> Result<bool, Failure> {
    s.received = None;
    if let Some(sample) = s.subscriber.receive().map_err(receive_error)? {
        s.received = Some(sample);
        return Ok(true);
    }
    if timeout_ns == 0 {
        return Ok(false);
    }
    let start = Instant::now();
    let limit = (timeout_ns > 0).then(|| Duration::from_nanos(timeout_ns as u64));
    match &s.listener {
        None => loop {
            // iceoryx2-spin: poll, the clock read every POLLS_PER_CLOCK polls.
            for _ in 0..POLLS_PER_CLOCK {
                if let Some(sample) = s.subscriber.receive().map_err(receive_error)? {
                    s.received = Some(sample);
                    return Ok(true);
                }
            }
            if limit.is_some_and(|l| start.elapsed() >= l) {
                return Ok(false);
            }
        },
        Some(listener) => loop {
            // iceoryx2: wait for a notification (a stale one only costs a look), then look.
            let woken = match limit {
                None => listener.blocking_wait(|_| {}),
                Some(l) => {
                    let spent = start.elapsed();
                    if spent >= l {
                        return Ok(false);
                    }
                    listener.timed_wait(|_| {}, l - spent)
                }
            };
            match woken {
                // A signal (the server's stop) only interrupts the wait.
                Ok(_) | Err(ListenerWaitError::InterruptSignal) => {}
                Err(e) => return Err(io(format!("wait on the listener: {e:?}"))),
            }
            if let Some(sample) = s.subscriber.receive().map_err(receive_error)? {
                s.received = Some(sample);
                return Ok(true);
            }
        },
    }
}

/// "iceoryx2 0.10.0".
#[no_mangle]
pub extern "C" fn ipclab_ix2_version() -> *const c_char {
    static VERSION: std::sync::OnceLock<CString> = std::sync::OnceLock::new();
    VERSION
        .get_or_init(|| CString::new(format!("iceoryx2 {}", PackageVersion::get())).unwrap())
        .as_ptr()
}

#[no_mangle]
pub extern "C" fn ipclab_ix2_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// # Safety
/// `options` points to valid options and `out` to where the side goes.
#[no_mangle]
pub unsafe extern "C" fn ipclab_ix2_open(
    options: *const ipclab_ix2_options,
    out: *mut *mut ipclab_ix2_side,
) -> c_int {
    guarded(|| {
        let o = unsafe { options.as_ref() }
            .ok_or(Failure { code: INTERNAL, message: "no options".into() })?;
        if out.is_null() {
            return Err(Failure { code: INTERNAL, message: "nowhere to put the side".into() });
        }
        let s = open(o)?;
        unsafe { *out = Box::into_raw(s) };
        Ok(OK)
    })
}

/// # Safety
/// `side` comes from ipclab_ix2_open; `data` is where the sample's address goes.
#[no_mangle]
pub unsafe extern "C" fn ipclab_ix2_loan(
    side_: *mut ipclab_ix2_side,
    n: usize,
    data: *mut *mut u8,
) -> c_int {
    guarded(|| {
        let s = side(side_)?;
        s.loaned = None;
        let mut sample = s
            .publisher
            .loan_slice_uninit(n)
            .map_err(|e| io(format!("loan a sample of {n} bytes: {e:?}")))?;
        unsafe { *data = sample.payload_mut().as_mut_ptr().cast::<u8>() };
        s.loaned = Some(sample);
        Ok(OK)
    })
}

/// # Safety
/// `side` comes from ipclab_ix2_open, and its loaned sample has been written.
#[no_mangle]
pub unsafe extern "C" fn ipclab_ix2_send_loaned(side_: *mut ipclab_ix2_side) -> c_int {
    guarded(|| {
        let s = side(side_)?;
        let sample = s
            .loaned
            .take()
            .ok_or(Failure { code: INTERNAL, message: "send without a loaned sample".into() })?;
        let sample = unsafe { sample.assume_init() };
        match sample.send() {
            Ok(_) => {}
            Err(SendError::UnableToDeliver) => {
                return Err(Failure {
                    code: TIMEOUT,
                    message: "the subscriber's buffer stayed full (a send waits at most \
                              --io-timeout)"
                        .into(),
                })
            }
            Err(e) => return Err(io(format!("send a sample: {e:?}"))),
        }
        if let Some(notifier) = &s.notifier {
            notifier.notify().map_err(|e| io(format!("notify the other side: {e:?}")))?;
        }
        Ok(OK)
    })
}

/// # Safety
/// `side` comes from ipclab_ix2_open; `data` and `n` are where the sample's bytes are told.
#[no_mangle]
pub unsafe extern "C" fn ipclab_ix2_receive(
    side_: *mut ipclab_ix2_side,
    timeout_ns: i64,
    data: *mut *const u8,
    n: *mut usize,
) -> c_int {
    guarded(|| {
        let s = side(side_)?;
        if !next_sample(s, timeout_ns)? {
            return Err(Failure { code: TIMEOUT, message: "no sample within the timeout".into() });
        }
        let payload = s.received.as_ref().map(|sample| sample.payload()).unwrap_or(&[]);
        unsafe {
            *data = payload.as_ptr();
            *n = payload.len();
        }
        Ok(OK)
    })
}

/// # Safety
/// `side` comes from ipclab_ix2_open.
#[no_mangle]
pub unsafe extern "C" fn ipclab_ix2_release(side_: *mut ipclab_ix2_side) {
    guarded(|| {
        side(side_)?.received = None;
        Ok(OK)
    });
}

/// Removes every /dev/shm/<prefix>* (what a server's node leaves behind, 4.12).
fn remove_shared_memory(prefix: &str) {
    let Ok(entries) = std::fs::read_dir("/dev/shm") else { return };
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with(prefix) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// # Safety
/// `side` comes from ipclab_ix2_open (or is NULL) and is not used after.
#[no_mangle]
pub unsafe extern "C" fn ipclab_ix2_close(side_: *mut ipclab_ix2_side) {
    if side_.is_null() {
        return;
    }
    guarded(|| {
        let s = unsafe { Box::from_raw(side_) };
        let (server, prefix) = (s.server, s.prefix.clone());
        drop(s); // the node last
        if server && !prefix.is_empty() {
            remove_shared_memory(&prefix);
        }
        Ok(OK)
    });
}
