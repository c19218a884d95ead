//! ipclab's C binding of iceoryx2 0.10 (PROTOCOL.md 4.12): the calls of
//! include/ipclab_iceoryx2.h, each a thin layer over the iceoryx2 crate. One `Side` is one node
//! with its services and ports; the C++ peer (src/iceoryx2/) drives it. Every call catches a
//! panic at the boundary and turns it, like every error, into a code and a message.

#![allow(non_camel_case_types)] // the C names of include/ipclab_iceoryx2.h

use core::ffi::{c_char, c_int};
use core::mem::MaybeUninit;
use core::time::Duration;
use std::cell::RefCell;
use std::ffi::{CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;
use std::time::Instant;

use iceoryx2::port::listener::{Listener, ListenerWaitError};
use iceoryx2::port::notifier::Notifier;
use iceoryx2::port::publisher::Publisher;
use iceoryx2::port::subscriber::Subscriber;
use iceoryx2::port::{BackpressureAction, BackpressureInfo, ReceiveError, SendError};
use iceoryx2::prelude::*;
use iceoryx2::sample::Sample;
use iceoryx2::sample_mut_uninit::SampleMutUninit;
use iceoryx2::service::port_factory::event::PortFactory as EventService;
use iceoryx2::service::port_factory::publish_subscribe::PortFactory as PubSubService;
use iceoryx2_bb_elementary::package_version::PackageVersion;

const OK: c_int = 0;
const TIMEOUT: c_int = 1;
const IO: c_int = 2;
const INTERNAL: c_int = 3;

const REQUESTS: &str = "ipclab/requests";
const RESPONSES: &str = "ipclab/responses";
const REQUESTS_EVENT: &str = "ipclab/requests.event";
const RESPONSES_EVENT: &str = "ipclab/responses.event";

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

struct Services {
    _requests: PubSubService<Service, [u8], ()>,
    _responses: PubSubService<Service, [u8], ()>,
    _events: Option<(EventService<Service>, EventService<Service>)>,
}

struct Failure {
    code: c_int,
    message: String,
}

fn io(message: String) -> Failure {
    Failure { code: IO, message }
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn remember(message: &str) {
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = text);
}

/// Runs `f`, a panic caught: its code, the failure's message remembered.
fn guarded<F: FnOnce() -> Result<c_int, Failure>>(f: F) -> c_int {
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

fn text(p: *const c_char, what: &str) -> Result<String, Failure> {
    if p.is_null() {
        return Err(Failure { code: INTERNAL, message: format!("no {what} given") });
    }
    unsafe { CStr::from_ptr(p) }
        .to_str()
        .map(str::to_owned)
        .map_err(|_| io(format!("the {what} is not UTF-8")))
}

fn service_name(name: &str) -> Result<ServiceName, Failure> {
    ServiceName::new(name).map_err(|e| io(format!("the service name {name}: {e:?}")))
}

/// A publish-subscribe service of byte slices: created with 4.12's settings (buffer, subscribers
/// and publishers as given), or opened as it is.
fn pub_sub(
    node: &Node<Service>,
    name: &str,
    create: Option<(usize, usize, usize)>,
) -> Result<PubSubService<Service, [u8], ()>, Failure> {
    let builder = node.service_builder(&service_name(name)?).publish_subscribe::<[u8]>();
    match create {
        Some((buffer, subscribers, publishers)) => builder
            .history_size(0)
            .subscriber_max_buffer_size(buffer)
            .subscriber_max_borrowed_samples(1)
            .enable_safe_overflow(false)
            .max_subscribers(subscribers)
            .max_publishers(publishers)
            .max_nodes(8)
            .create()
            .map_err(|e| io(format!("create the service {name}: {e:?}"))),
        None => builder
            .open()
            .map_err(|e| io(format!("open the service {name}: {e:?}"))),
    }
}

/// An event service with the library's defaults: created, or opened.
fn event(node: &Node<Service>, name: &str, create: bool) -> Result<EventService<Service>, Failure> {
    let builder = node.service_builder(&service_name(name)?).event();
    if create {
        builder.create().map_err(|e| io(format!("create the service {name}: {e:?}")))
    } else {
        builder.open().map_err(|e| io(format!("open the service {name}: {e:?}")))
    }
}

fn publisher(
    service: &PubSubService<Service, [u8], ()>,
    name: &str,
    o: &ipclab_ix2_options,
) -> Result<Publisher<Service, [u8], ()>, Failure> {
    let mut builder = service
        .publisher_builder()
        .initial_max_slice_len(o.initial_slice_len.max(1))
        .allocation_strategy(AllocationStrategy::PowerOfTwo)
        .backpressure_strategy(BackpressureStrategy::RetryUntilDelivered)
        .max_loaned_samples(1);
    if o.send_timeout_ns >= 0 {
        // RetryUntilDelivered, bounded: past the limit the send fails (UnableToDeliver).
        let limit = Duration::from_nanos(o.send_timeout_ns as u64);
        builder = builder.set_backpressure_handler(move |info: &BackpressureInfo| {
            if info.elapsed_time >= limit {
                BackpressureAction::DiscardDataAndFail
            } else {
                BackpressureAction::Retry
            }
        });
    }
    builder.create().map_err(|e| io(format!("a publisher on {name}: {e:?}")))
}

fn subscriber(
    service: &PubSubService<Service, [u8], ()>,
    name: &str,
) -> Result<Subscriber<Service, [u8], ()>, Failure> {
    service
        .subscriber_builder()
        .create()
        .map_err(|e| io(format!("a subscriber on {name}: {e:?}")))
}

fn listener(service: &EventService<Service>, name: &str) -> Result<Listener<Service>, Failure> {
    service
        .listener_builder()
        .create()
        .map_err(|e| io(format!("a listener on {name}: {e:?}")))
}

fn notifier(service: &EventService<Service>, name: &str) -> Result<Notifier<Service>, Failure> {
    service
        .notifier_builder()
        .create()
        .map_err(|e| io(format!("a notifier on {name}: {e:?}")))
}

fn open(o: &ipclab_ix2_options) -> Result<Box<ipclab_ix2_side>, Failure> {
    static LOG_LEVEL: Once = Once::new();
    LOG_LEVEL.call_once(|| set_log_level(LogLevel::Warn));
    let root = text(o.root, "root path")?;
    let prefix = text(o.prefix, "prefix")?;
    let mut config = Config::default();
    config.global.set_root_path(
        &Path::new(root.as_bytes()).map_err(|e| io(format!("the root path {root}: {e:?}")))?,
    );
    config.global.prefix =
        FileName::new(prefix.as_bytes()).map_err(|e| io(format!("the prefix {prefix}: {e:?}")))?;
    let node = NodeBuilder::new()
        .config(&config)
        .signal_handling_mode(SignalHandlingMode::Disabled) // the peer's own (section 5)
        .create::<Service>()
        .map_err(|e| io(format!("an iceoryx2 node in {root}: {e:?}")))?;
    owner_only_shared_memory(&prefix);

    let server = o.server != 0;
    let spin = o.spin != 0;
    let (requests, responses) = if server {
        (pub_sub(&node, REQUESTS, Some((16, 1, 4)))?, pub_sub(&node, RESPONSES, Some((2, 2, 1)))?)
    } else {
        (pub_sub(&node, REQUESTS, None)?, pub_sub(&node, RESPONSES, None)?)
    };
    let events = if spin {
        None
    } else {
        Some((event(&node, REQUESTS_EVENT, server)?, event(&node, RESPONSES_EVENT, server)?))
    };

    // The ports in 4.12's order: what receives first, then what sends.
    let (subscriber, listener, publisher, notifier) = if server {
        let subscriber = subscriber(&requests, REQUESTS)?;
        let publisher = publisher(&responses, RESPONSES, o)?;
        let (listener, notifier) = match &events {
            Some((req, resp)) => {
                (Some(listener(req, REQUESTS_EVENT)?), Some(notifier(resp, RESPONSES_EVENT)?))
            }
            None => (None, None),
        };
        (subscriber, listener, publisher, notifier)
    } else {
        let subscriber = subscriber(&responses, RESPONSES)?;
        let listener = match &events {
            Some((_, resp)) => Some(listener(resp, RESPONSES_EVENT)?),
            None => None,
        };
        let publisher = publisher(&requests, REQUESTS, o)?;
        let notifier = match &events {
            Some((req, _)) => Some(notifier(req, REQUESTS_EVENT)?),
            None => None,
        };
        (subscriber, listener, publisher, notifier)
    };

    Ok(Box::new(ipclab_ix2_side {
        loaned: None,
        received: None,
        publisher,
        subscriber,
        notifier,
        listener,
        _services: Services { _requests: requests, _responses: responses, _events: events },
        _node: node,
        server,
        prefix,
    }))
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

/// Takes group and others off every /dev/shm/<prefix>*: the umask does not reach the node-global
/// management segment, which iceoryx2 makes for global access (it sets mode 0666 itself).
fn owner_only_shared_memory(prefix: &str) {
    use std::os::unix::fs::PermissionsExt;
    let Ok(entries) = std::fs::read_dir("/dev/shm") else { return };
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().starts_with(prefix) {
            continue;
        }
        if let Ok(meta) = entry.metadata() {
            let mode = meta.permissions().mode();
            if mode & 0o077 != 0 {
                let _ = std::fs::set_permissions(
                    entry.path(),
                    std::fs::Permissions::from_mode(mode & 0o700),
                );
            }
        }
    }
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
