//! A side's making: its node, services and ports, as 4.12 sets them.

use core::time::Duration;
use std::sync::Once;

use iceoryx2::port::listener::Listener;
use iceoryx2::port::notifier::Notifier;
use iceoryx2::port::publisher::Publisher;
use iceoryx2::port::subscriber::Subscriber;
use iceoryx2::port::{BackpressureAction, BackpressureInfo};
use iceoryx2::prelude::*;
use iceoryx2::service::port_factory::event::PortFactory as EventService;
use iceoryx2::service::port_factory::publish_subscribe::PortFactory as PubSubService;

use crate::failure::{io, text, Failure};
use crate::{ipclab_ix2_options, ipclab_ix2_side, Service};

const REQUESTS: &str = "ipclab/requests";
const RESPONSES: &str = "ipclab/responses";
const REQUESTS_EVENT: &str = "ipclab/requests.event";
const RESPONSES_EVENT: &str = "ipclab/responses.event";

pub(crate) struct Services {
    _requests: PubSubService<Service, [u8], ()>,
    _responses: PubSubService<Service, [u8], ()>,
    _events: Option<(EventService<Service>, EventService<Service>)>,
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

pub(crate) fn open(o: &ipclab_ix2_options) -> Result<Box<ipclab_ix2_side>, Failure> {
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

    owner_only_directories(std::path::Path::new(&root));
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

/// Takes group and others off the directories iceoryx2 made under the root path: it makes
/// nodes/, a node's own and services/ with mode 0750 whatever the umask (4.12).
fn owner_only_directories(root: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    let Ok(entries) = std::fs::read_dir(root) else { return };
    for entry in entries.flatten() {
        let Ok(meta) = entry.metadata() else { continue }; // another side's, gone meanwhile
        if !meta.is_dir() {
            continue;
        }
        let mode = meta.permissions().mode();
        if mode & 0o077 != 0 {
            let _ = std::fs::set_permissions(
                entry.path(),
                std::fs::Permissions::from_mode(mode & 0o700),
            );
        }
        owner_only_directories(&entry.path());
    }
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
