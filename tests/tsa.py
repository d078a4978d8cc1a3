"""A timestamp authority on 127.0.0.1 for tests: RFC 3161 over HTTP, as a laboratory's
offline authority would answer (docs/signing.md). Tests never use the network beyond
the loopback interface."""

from __future__ import annotations

import contextlib
import datetime
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from asn1crypto import keys as asn1_keys  # type: ignore[import-untyped]
from asn1crypto import tsp  # type: ignore[import-untyped]
from asn1crypto import x509 as asn1_x509  # type: ignore[import-untyped]
from cryptography.hazmat.primitives import serialization
from pyhanko.sign.timestamps.dummy_client import DummyTimeStamper
from pyhanko_certvalidator.registry import SimpleCertificateStore

from tests.certs import Authority

REPLY_TYPE = "application/timestamp-reply"


def _stamper(authority: Authority, at: datetime.datetime | None) -> Any:
    """pyHanko's DummyTimeStamper with the authority's key and certificate; its clock
    says `at` when given (an authority that stamped long ago), else now."""
    der = serialization.Encoding.DER
    key = authority.key.private_bytes(
        der, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return DummyTimeStamper(
        tsa_cert=asn1_x509.Certificate.load(authority.cert.public_bytes(der)),
        tsa_key=asn1_keys.PrivateKeyInfo.load(key),
        certs_to_embed=SimpleCertificateStore.from_certs(  # type: ignore[no-untyped-call]
            [asn1_x509.Certificate.load(c.public_bytes(der)) for c in authority.chain]
        ),
        fixed_dt=at,
    )


def _handler(answer: Any) -> type[BaseHTTPRequestHandler]:
    """A request handler that POSTs each body to `answer` (bytes in, (type, bytes) out)."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            kind, reply = answer(body)
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: pytest shows stderr of failing tests, and this would be noise."""

    return Handler


@contextlib.contextmanager
def _serving(answer: Any) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(answer))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/tsa"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@contextlib.contextmanager
def serve_authority(authority: Authority, at: datetime.datetime | None = None) -> Iterator[str]:
    """The URL of a timestamp authority answering on loopback while the block runs."""
    stamper = _stamper(authority, at)

    def answer(body: bytes) -> tuple[str, bytes]:
        response = stamper.request_tsa_response(tsp.TimeStampReq.load(body))
        return REPLY_TYPE, bytes(response.dump())

    with _serving(answer) as url:
        yield url


@contextlib.contextmanager
def serve_garbage(kind: str = REPLY_TYPE, reply: bytes = b"not a timestamp") -> Iterator[str]:
    """The URL of a server that answers every request with `reply`, labelled `kind`."""
    with _serving(lambda _body: (kind, reply)) as url:
        yield url


def closed_url() -> str:
    """A loopback URL nobody listens on: a port just bound, then released."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/tsa"
