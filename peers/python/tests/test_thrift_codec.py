"""The thrift codecs: the C codec (fastbinary) for both protocols since thrift 0.23, as
`capabilities` says, in the client and the server, carrying records across buffer refills."""
import json

import pytest
from peers import run_peer
from test_rpc import check_ok as check_rpc_ok, drive as rpc_drive
from test_rpc import servers  # noqa: F401 (the module's RPC servers, a fixture)


def test_capabilities_say_both_thrift_protocols_use_the_c_codec():
    answer = json.loads(run_peer(["capabilities"]).stdout)
    for name in ("thrift-binary", "thrift-compact"):
        assert answer["mechanisms"][name]["codec"] == "C (fastbinary)"
    assert "codec" not in answer["mechanisms"]["grpc"]


@pytest.mark.parametrize("protocol,decode", [("binary", "decode_binary"),
                                             ("compact", "decode_compact")])
def test_thrift_client_and_server_use_the_c_codec(protocol, decode):
    """The client's protocol and the server factory's protocols decode with fastbinary (the
    generated code calls `_fast_decode` when it is set, on a TBufferedTransport)."""
    from thrift.protocol import fastbinary
    from thrift.transport import TTransport

    from ipclab_peer.rpc import Framework
    client_protocol, factory = Framework("thrift_rpc").load().PROTOCOLS[protocol]
    transport = TTransport.TBufferedTransport(TTransport.TMemoryBuffer())
    for made in (client_protocol(transport, fallback=False),
                 factory(fallback=False).getProtocol(transport)):
        assert made._fast_decode is getattr(fastbinary, decode)
        assert made._fast_encode is getattr(fastbinary, decode.replace("de", "en", 1))
    assert isinstance(transport, TTransport.CReadableTransport)


def test_the_compact_c_codec_carries_records_across_buffer_refills(servers, workdir):
    """thrift 0.22's C compact decoder raised SystemError (PY_SSIZE_T_CLEAN) on a message
    that spanned a refill of the 4 KiB read buffer; a large record of 2000-element sequences
    spans many, both ways."""
    server = servers.get("thrift-compact")
    run = rpc_drive(workdir, "thrift-compact", server.endpoint, "--payload", "large",
                    "--sequence-length", "2000", "--records", "per-call", iterations=3)
    check_rpc_ok(run, "thrift-compact", "large", (0, 0), 2000, 3)
    assert server.drain_stderr() == []
