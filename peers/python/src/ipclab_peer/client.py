"""`drive`: time round trips against a server, validate them, write the outputs
(PROTOCOL.md sections 2, 3, 7, 8). What to drive comes from the tables: the mechanism from
mechanisms.py, the pattern's driver for its family from patterns.py."""
from . import result, variants
from .errors import IoError, PeerError, Unsupported, describe_os_error, report, report_error
from .mechanisms import MECHANISMS, RPC
from .patterns import PATTERNS, driver_of


def drive(config):
    driver = Driver(config)
    try:
        driver.run()
    except PeerError as err:
        return driver.finish(err)
    except OSError as err:
        return driver.finish(IoError(describe_os_error(err)))
    except MemoryError:
        return driver.finish(PeerError("out of memory"))
    except KeyboardInterrupt:
        return driver.finish(PeerError("interrupted"))
    return driver.finish()


def supported(config):
    """(mechanism, pattern driver) for the configuration, or Unsupported saying why."""
    mechanism = MECHANISMS.get(config.mechanism)
    if mechanism is None or mechanism.connect is None:
        raise Unsupported(f"mechanism {config.mechanism!r} is not implemented")
    if config.payload != "bytes" and mechanism.family != RPC:
        raise Unsupported(f"structured payload {config.payload!r} needs an RPC mechanism, "
                          f"not {config.mechanism!r}")
    run_pattern = driver_of(mechanism, config.pattern)
    if run_pattern is None:
        raise Unsupported(f"pattern {config.pattern!r} is not implemented for "
                          f"{config.mechanism!r}")
    variants.check_drive(config, mechanism)
    if config.pattern == "stream":
        largest, limit, what = config.message_size, mechanism.max_message(), "message"
    else:
        largest = max(config.request_size, config.response_size)
        limit, what = mechanism.max_payload(), "payload"
    if largest > limit:
        raise Unsupported(f"{config.mechanism} carries at most {limit} {what} bytes here, "
                          f"not {largest}")
    return mechanism, run_pattern


class Driver:
    def __init__(self, config):
        self.config = config
        self.recorder = result.Recorder()

    def run(self):
        config = self.config
        mechanism, run_pattern = supported(config)
        warmup, measured = PATTERNS[config.pattern].samples(config)
        self.recorder = result.Recorder(warmup, measured,
                                        keep_warmup=config.warmup_samples_file is not None)
        run_pattern(config, mechanism, self.recorder)

    def finish(self, error=None):
        """Writes samples and result (also after an error) and returns the exit code."""
        config = self.config
        if error is not None:
            report_error(error)
        samples, warmup_samples = self.recorder.samples(), self.recorder.warmup_samples()
        try:
            result.write_samples(config.samples_file, samples)
            if config.warmup_samples_file is not None:
                result.write_samples(config.warmup_samples_file, warmup_samples)
            result.write_result(config.result_file, result.record(
                config, len(samples), len(warmup_samples), error, self.recorder.fields))
        except OSError as err:
            report("io", f"cannot write the outputs: {describe_os_error(err)}")
            return error.code if error is not None else IoError.code
        return error.code if error is not None else 0
