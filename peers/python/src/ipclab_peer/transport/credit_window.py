"""The stream's window of the servers that keep whatever is pushed or drop what a slow reader
cannot take (Redis, PROTOCOL.md 4.10; NATS, 4.11): one definition for both sides of both."""

WINDOW_BUDGET, WINDOW_MOST = 64 << 20, 1000


def stream_window(size):
    """W(S): at most this many S-byte messages sent and not yet taken."""
    return min(WINDOW_MOST, max(1, WINDOW_BUDGET // size)) if size else WINDOW_MOST


def credit_every(window):
    """K(S) = ceil(W / 2): a credit per this many messages taken."""
    return (window + 1) // 2
