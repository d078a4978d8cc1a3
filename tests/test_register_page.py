"""The register's read-only lookup page (`chcert register serve`, docs/register.md): its
answers over HTTP in the fast tier; in the slow tier, a real Chromium driven by Playwright
looks a certificate up, follows the certificate page's QR code, and uploads a report."""

from __future__ import annotations

import hashlib
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.cli import main
from harness.register.serve import LookupServer
from harness.register.store import Register
from tests.certs import Lab, make_lab
from tests.registers import report, results
from tests.tools import need


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Lab:
    return make_lab(tmp_path_factory.mktemp("lab"), "Example Lab")


class Book:
    """A register with one certificate, its report, and a test record."""

    def __init__(self, folder: Path, lab: Lab, address: str = "") -> None:
        self.given = str(folder / "register.db")
        extra = ["--address", address] if address else []
        assert (
            main(["register", "init", "--register", self.given, "--trust", str(lab.cert), *extra])
            == 0
        )
        self.pdf = report(folder, lab, results(), name="certificate.pdf")
        assert main(["register", "add", str(self.pdf), "--register", self.given]) == 0
        failed = report(folder, lab, results("FAIL", build=b"build 2"), name="failed.pdf")
        assert main(["register", "add", str(failed), "--register", self.given]) == 0
        self.build = hashlib.sha256(b"build 1").hexdigest()


@pytest.fixture
def served(tmp_path: Path, lab: Lab) -> Iterator[tuple[str, Book]]:
    """The page in a thread of this process, on a free port of loopback."""
    book = Book(tmp_path, lab)
    server = LookupServer(("127.0.0.1", 0), Register(book.given, read_only=True), quiet=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", book
    finally:
        server.shutdown()
        server.server_close()


def _get(
    url: str, method: str = "GET", data: bytes | None = None, kind: str = ""
) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=data, method=method)
    if kind:
        request.add_header("Content-Type", kind)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def _upload(url: str, pdf: bytes) -> tuple[int, str]:
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="report"; '
            f'filename="report.pdf"\r\nContent-Type: application/pdf\r\n\r\n'
        ).encode()
        + pdf
        + f"\r\n--{boundary}--\r\n".encode()
    )
    code, page = _get(url + "/verify", "POST", body, f"multipart/form-data; boundary={boundary}")
    return code, page.decode()


def test_the_page_looks_up_by_number_build_and_report(served: tuple[str, Book]) -> None:
    url, book = served
    code, page = _get(url + "/")
    assert code == 200 and b'action="/lookup"' in page and b'action="/verify"' in page
    report_sha = hashlib.sha256(book.pdf.read_bytes()).hexdigest()
    for key in ("CHC-000001", book.build, report_sha.upper()):
        code, page = _get(f"{url}/lookup?q={key}")
        assert code == 200 and b"VALID: issued and in force" in page, key
    code, page = _get(url + "/certificates/chc-000002")  # a number typed in any case
    assert code == 200 and b"NOT A CERTIFICATE: a test record" in page
    assert b"its verdict is FAIL" in page
    code, pdf = _get(url + "/certificates/CHC-000001/report.pdf")
    assert code == 200 and pdf == book.pdf.read_bytes()
    for missing in ("/certificates/CHC-000099", "/lookup?q=nothing", "/elsewhere"):
        code, page = _get(url + missing)
        assert code == 404 and b"id='error'" in page


def test_an_uploaded_report_is_verified_and_matched(
    served: tuple[str, Book], tmp_path: Path
) -> None:
    url, book = served
    code, page = _upload(url, book.pdf.read_bytes())
    assert code == 200 and "This is the report recorded as CHC-000001" in page
    assert "Signature and attached results.json: verified" in page
    changed = bytearray(book.pdf.read_bytes())
    changed[len(changed) // 2] ^= 1
    code, page = _upload(url, bytes(changed))
    assert code == 200 and "is not in this register" in page and "NOT VERIFIED" in page
    assert str(tmp_path) not in page  # the server's own paths stay its own
    code, page = _upload(url, b"")
    assert code == 400


def test_an_upload_without_a_sound_length_is_refused_unread(served: tuple[str, Book]) -> None:
    """A length of -1, or none a number, would read until the client stops; one above the
    bound is refused before a byte of it is read."""
    url, _ = served
    host, port = url.removeprefix("http://").split(":")
    refused = [("-1", b"411"), ("abc", b"411"), ("\u00b2", b"411"), (str(10**12), b"413")]
    for length, status in refused:
        with socket.create_connection((host, int(port)), timeout=30) as connection:
            connection.sendall(
                f"POST /verify HTTP/1.1\r\nHost: x\r\nContent-Length: {length}\r\n"
                "Content-Type: multipart/form-data; boundary=b\r\n\r\n--b\r\n".encode("latin-1")
            )
            answer = connection.recv(200)
        assert answer.split()[1] == status, (length, answer)


def test_a_silent_client_gives_its_upload_slot_back(
    served: tuple[str, Book], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Clients that promise a body and never send it hold no slot past the timeout."""
    from harness.register.serve import UPLOADS_AT_ONCE, LookupPage

    monkeypatch.setattr(LookupPage, "timeout", 1.0)
    url, book = served
    host, port = url.removeprefix("http://").split(":")
    silent = [socket.create_connection((host, int(port))) for _ in range(UPLOADS_AT_ONCE)]
    try:
        for connection in silent:
            connection.sendall(
                b"POST /verify HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n"
                b"Content-Type: multipart/form-data; boundary=b\r\n\r\n--b"
            )
        pdf = book.pdf.read_bytes()
        give_up = time.monotonic() + 60  # a bound on a hang, not a speed asserted
        code, page = _upload(url, pdf)
        while code != 503 and time.monotonic() < give_up:  # until the silent hold both
            code, page = _upload(url, pdf)
        assert code == 503, page
        while code == 503 and time.monotonic() < give_up:  # until the timeout frees them
            time.sleep(0.2)
            code, page = _upload(url, pdf)
        assert code == 200 and "recorded as CHC-000001" in page
    finally:
        for connection in silent:
            connection.close()


FILE = 'Content-Disposition: form-data; name="report"; filename="r.pdf"'
FIELD = 'Content-Disposition: form-data; name="a"'
EMPTY = 'Content-Disposition: form-data; name="e"; filename=""'


def _form(parts: list[tuple[str, str]], end: str = "\r\n") -> bytes:
    """A multipart/form-data body of (headers, content) parts, boundary XY."""
    body = "".join(f"--XY{end}{head}{end}{end}{content}{end}" for head, content in parts)
    return (body + f"--XY--{end}").encode()


@pytest.mark.parametrize(
    ("kind", "body"),
    [
        ("multipart/form-data; boundary=XY", _form([(FIELD, "x"), (FILE, "PDF")])),
        ('Multipart/Form-Data; Boundary="XY"', _form([(FILE, "PDF")])),
        ("multipart/form-data; boundary=XY", _form([(FILE, "PDF")], end="\n")),
        ("multipart/form-data; boundary=XY", _form([(EMPTY, ""), (FILE, "PDF")])),
    ],
    ids=["a field first", "type and parameter in capitals", "LF line ends", "an empty file first"],
)
def test_the_uploaded_file_is_cut_out_of_any_sound_form(kind: str, body: bytes) -> None:
    from harness.register.serve import _uploaded

    assert _uploaded(kind, body) == b"PDF"


def test_the_page_has_no_route_that_writes(served: tuple[str, Book]) -> None:
    url, book = served
    before = Register(book.given).head()
    for method in ("PUT", "DELETE", "PATCH"):
        assert _get(url + "/certificates/CHC-000001", method, b"x")[0] == 405
    assert _get(url + "/certificates/CHC-000001", "POST", b"status=revoked")[0] == 405
    assert Register(book.given).head() == before
    # and the register it holds refuses a write whatever asks it
    from harness.errors import UserError

    with pytest.raises(UserError, match=r"readonly|read-only"):
        Register(book.given, read_only=True).allocate("x")


# ------------------------------------------------------------------ in a real browser


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow  # a real Chromium
@pytest.mark.timeout(300)
def test_the_page_in_chromium(tmp_path: Path, lab: Lab, monkeypatch: pytest.MonkeyPatch) -> None:
    """A regulator holding a certificate: scans its QR code (read back from the printed
    page with zbarimg), sees the status, looks the build up, uploads the PDF."""
    need("chromium", "chromium")
    need("zbarimg", "zbar-tools")
    need("pdftoppm", "poppler-utils")
    from playwright.sync_api import sync_playwright

    port = _free_port()
    address = f"http://127.0.0.1:{port}"
    book = Book(tmp_path, lab, address)
    # the certificate page a run numbered by this register prints, with its QR code
    from tests import runs
    from tests.certs import PASSPHRASE

    monkeypatch.setenv("LAB_PASSPHRASE", PASSPHRASE.decode())
    build = tmp_path / "game.tgz"
    build.write_bytes(b"build 3")
    runs.certify(
        tmp_path / "out", "-k", "declared", "--artifact", str(build), "--register", book.given,
        "--sign-key", str(lab.key), "--sign-cert", str(lab.cert),
        "--sign-passphrase-env", "LAB_PASSPHRASE", *runs.QUICK_SAMPLES,
    )  # fmt: skip
    printed = tmp_path / "out" / "report.pdf"
    subprocess.run(
        [
            "pdftoppm",
            "-r",
            "200",
            "-f",
            "1",
            "-l",
            "1",
            "-png",
            str(printed),
            str(tmp_path / "page"),
        ],
        check=True,
    )
    scanned = subprocess.run(
        ["zbarimg", "-q", "--raw", str(tmp_path / "page-1.png")], capture_output=True, text=True
    ).stdout.strip()
    assert scanned == f"{address}/certificates/CHC-000003"
    server = subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "register", "serve", "--register", book.given,
         "--port", str(port), "--quiet"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert server.stdout is not None
        assert re.search(r"read-only, at http://127\.0\.0\.1:\d+/", server.stdout.readline())
        with sync_playwright() as play:
            browser = play.chromium.launch(
                executable_path=shutil.which("chromium"),
                args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                      "--disable-component-update", "--disable-sync", "--no-first-run"],
            )  # fmt: skip
            page = browser.new_page()
            page.goto(scanned)
            assert page.locator("#status").inner_text() == "NOT A CERTIFICATE: a test record"
            page.goto(address + "/")
            page.fill("#q", book.build)
            page.click("#lookup")
            assert page.locator("#status").inner_text() == "VALID: issued and in force"
            assert "CHC-000001" in page.locator("h1").inner_text()
            page.screenshot(path=str(tmp_path / "entry.png"), full_page=True)
            page.goto(address + "/")
            page.set_input_files("#report", str(book.pdf))
            page.click("#verify")
            assert "recorded as CHC-000001" in page.locator("#match").inner_text()
            assert "verified" in page.locator("#signature").inner_text()
            page.screenshot(path=str(tmp_path / "verified.png"), full_page=True)
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
