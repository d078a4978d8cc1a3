"""`chcert register serve`: the register's read-only lookup page (docs/register.md
#the-lookup-page). A regulator or operator looks a certificate up by its number, by a
build's SHA-256 or by a report's, or uploads a report PDF to have it verified and its
status shown. Only GET and one POST that reads an upload and writes nothing; the register
is opened read-only besides (SQLite's read-only mode, PostgreSQL's read-only
transactions), so no route can change it.
"""

from __future__ import annotations

import hashlib
import html
import re
import tempfile
import threading
from collections.abc import Iterable, Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from harness.errors import UserError
from harness.register.records import ENTRY_PATH, Entry, Event, Kind, Status
from harness.register.store import Register

HTML = "text/html; charset=utf-8"
MOST_UPLOAD = 16 * 1024 * 1024  # bytes: a report with its results.json is a few MB
UPLOADS_AT_ONCE = 2  # verified at once; another is told to try again (memory stays bounded)

# Each status as the page states it, and whether it is in force.
SAID = {
    Status.ISSUED: ("VALID", "issued and in force"),
    Status.SUPERSEDED: ("NOT VALID", "superseded"),
    Status.WITHDRAWN: ("NOT VALID", "withdrawn by the laboratory"),
    Status.REVOKED: ("NOT VALID", "revoked"),
    Status.EXPIRED: ("NOT VALID", "expired"),
    Status.RECORDED: ("NOT A CERTIFICATE", "a test record"),
}

STYLE = """
body { font-family: sans-serif; max-width: 60em; margin: 2em auto; color: #222; }
h1 { font-size: 1.4em; } table { border-collapse: collapse; width: 100%; }
td, th { border: 1px solid #bbb; padding: 0.3em 0.5em; text-align: left; vertical-align: top; }
th { width: 14em; background: #f3f3f3; } code { word-break: break-all; }
.status { font-size: 1.3em; font-weight: bold; padding: 0.4em; color: white; }
.valid { background: #2e7d32; } .invalid { background: #c62828; } .other { background: #8d6e00; }
form { margin: 1em 0; padding: 0.8em; border: 1px solid #ddd; }
"""


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value))


def _page(title: str, body: str) -> bytes:
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{_e(title)}</title><style>{STYLE}</style></head><body>"
        f"<p><a href='/'>Register of certificates</a></p>{body}</body></html>"
    ).encode()


FORMS = """
<form action="/lookup" method="get">
  <label for="q">Report number, or the SHA-256 of a build or of a report PDF</label><br>
  <input id="q" name="q" size="70" required> <button id="lookup" type="submit">Look up</button>
</form>
<form action="/verify" method="post" enctype="multipart/form-data">
  <label for="report">A report PDF, to verify it and show its status</label><br>
  <input id="report" name="report" type="file" accept="application/pdf" required>
  <button id="verify" type="submit">Verify</button>
</form>
"""


def _status(entry: Entry) -> str:
    word, said = SAID[entry.status]
    css = "valid" if word == "VALID" else "invalid" if entry.kind is Kind.CERTIFICATE else "other"
    replaced = (
        f" by <a href='{ENTRY_PATH}{_e(entry.superseded_by)}'>{_e(entry.superseded_by)}</a>"
        if entry.superseded_by
        else ""
    )
    return f"<div class='status {css}' id='status'>{_e(word)}: {_e(said)}{replaced}</div>"


def _audits_html(audits: Sequence[tuple[Event, dict[str, Any]]]) -> str:
    """The production audits that met the entry's build."""
    if not audits:
        return ""
    rows = "".join(
        f"<tr><td>{_e(ev.at)}</td><td>{_e(ev.detail.get('verdict'))}</td>"
        f"<td>{_e(ev.detail.get('profile'))}</td><td>{int(row['rounds']):,}</td>"
        f"<td>{_e(row['coverage'])}</td></tr>"
        for ev, row in audits
    )
    head = "<tr><th>at</th><th>audit verdict</th><th>profile</th><th>rounds</th><th>build</th></tr>"
    return f"<h2>Production audits of its build</h2><table>{head}{rows}</table>"


def _entry_html(entry: Entry, audits: Sequence[tuple[Event, dict[str, Any]]] = ()) -> str:
    rows = [
        ("Report number", _e(entry.number)),
        ("Kind", _e(entry.kind)),
        ("Verdict", _e(entry.verdict)),
        ("Not a certificate because", _e(entry.why_not_certificate) or None),
        ("Game", _e(entry.game)),
        ("Build SHA-256", f"<code>{_e(entry.build_sha256)}</code>" if entry.build_sha256 else None),
        ("Profile", f"{_e(entry.profile)} (SHA-256 <code>{_e(entry.profile_sha256)}</code>)"),
        ("Laboratory", _e(entry.laboratory) or None),
        ("Signed by", _e(entry.signer) or None),
        ("Recorded", _e(entry.issued)),
        (
            "Supersedes",
            f"<a href='{ENTRY_PATH}{_e(entry.supersedes)}'>{_e(entry.supersedes)}</a>"
            if entry.supersedes
            else None,
        ),
        ("Report SHA-256", f"<code>{_e(entry.report_sha256)}</code>"),
        ("results.json SHA-256", f"<code>{_e(entry.results_sha256)}</code>"),
        ("Report", f"<a href='{ENTRY_PATH}{_e(entry.number)}/report.pdf'>report.pdf</a>"),
    ]
    files = "".join(
        f"<li>{_e(a.name)} ({a.bytes:,} bytes) <code>{_e(a.sha256)}</code></li>"
        for a in entry.artifacts
    )
    if files:
        rows.insert(6, ("Build's files", f"<ul>{files}</ul>"))
    table = "".join(f"<tr><th>{label}</th><td>{value}</td></tr>" for label, value in rows if value)
    history = "".join(
        f"<tr><td>{ev.seq}</td><td>{_e(ev.at)}</td><td>{_e(ev.kind)}</td>"
        f"<td>{_e(ev.reason)}</td><td>{_e(ev.by)}</td></tr>"
        for ev in entry.history
    )
    return (
        f"<h1>{_e(entry.number)}</h1>{_status(entry)}<table>{table}</table>"
        "<h2>History</h2><table><tr><th>event</th><th>at</th><th>what</th><th>reason</th>"
        f"<th>by</th></tr>{history}</table>" + _audits_html(audits)
    )


def _listing(entries: Iterable[Entry]) -> str:
    rows = "".join(
        f"<tr><td><a href='{ENTRY_PATH}{_e(e.number)}'>{_e(e.number)}</a></td>"
        f"<td>{_e(SAID[e.status][0])}: {_e(e.status)}</td><td>{_e(e.game)}</td>"
        f"<td>{_e(e.profile)}</td></tr>"
        for e in entries
    )
    head = "<tr><th>number</th><th>status</th><th>game</th><th>profile</th></tr>"
    return f"<table>{head}{rows}</table>"


class LookupPage(BaseHTTPRequestHandler):
    """One request to the lookup page; the register is the server's."""

    server: LookupServer
    server_version = "chcert-register"
    timeout = 30.0  # seconds a client may stay silent: a slow one never holds a thread for good

    def log_message(self, format: str, *args: Any) -> None:
        if not self.server.quiet:
            super().log_message(format, *args)

    def _send(self, status: HTTPStatus, body: bytes, kind: str = HTML) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
        self.end_headers()
        self.wfile.write(body)

    def _answer(self, status: HTTPStatus, title: str, body: str) -> None:
        self._send(status, _page(title, body))

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        path = unquote(url.path)
        try:
            if path == "/":
                return self._answer(HTTPStatus.OK, "Register of certificates",
                                    "<h1>Register of certificates</h1>" + FORMS)  # fmt: skip
            if path == "/lookup":
                query = (parse_qs(url.query).get("q") or [""])[0]
                return self._lookup(query)
            if path.startswith(ENTRY_PATH) and path.endswith("/report.pdf"):
                number = self.server.register.entry(path[len(ENTRY_PATH) : -len("/report.pdf")])
                return self._send(HTTPStatus.OK, self.server.register.document(number.number),
                                  "application/pdf")  # fmt: skip
            if path.startswith(ENTRY_PATH):
                return self._lookup(path[len(ENTRY_PATH) :], exact=True)
        except UserError as exc:
            return self._answer(HTTPStatus.NOT_FOUND, "Not found", f"<p id='error'>{_e(exc)}</p>")
        return self._answer(HTTPStatus.NOT_FOUND, "Not found", "<p id='error'>No such page.</p>")

    def _lookup(self, key: str, exact: bool = False) -> None:
        entries = self.server.register.lookup(key)
        if exact:
            entries = [e for e in entries if e.number.upper() == key.strip().upper()]
        if not entries:
            said = f"<p id='error'>Nothing in this register is numbered or hashed {_e(key)}.</p>"
            return self._answer(HTTPStatus.NOT_FOUND, "Not found", said + FORMS)
        if len(entries) == 1:
            entry = entries[0]
            build = entry.build_sha256
            audits = self.server.register.audits_of(build) if build else []
            return self._answer(HTTPStatus.OK, entry.number, _entry_html(entry, audits))
        body = f"<h1>{len(entries)} entries for {_e(key)}</h1>" + _listing(entries)
        return self._answer(HTTPStatus.OK, key, body)

    def do_POST(self) -> None:
        if urlsplit(self.path).path != "/verify":
            return self._refuse()
        self.close_connection = True  # whatever is left of a refused body is not read
        given = (self.headers.get("Content-Length") or "").strip()
        if not (given.isascii() and given.isdigit()):  # none, "-1", "²": nothing is read
            said = "<p id='error'>An upload states its length (Content-Length).</p>"
            return self._answer(HTTPStatus.LENGTH_REQUIRED, "Length required", said)
        if int(given) > MOST_UPLOAD:
            said = f"<p id='error'>A report is at most {MOST_UPLOAD:,} bytes.</p>"
            return self._answer(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "Too large", said)
        if not self.server.uploads.acquire(blocking=False):
            said = "<p id='error'>Other reports are being verified: try again shortly.</p>"
            return self._answer(HTTPStatus.SERVICE_UNAVAILABLE, "Busy", said)
        try:
            body = self.rfile.read(int(given))
            pdf = _uploaded(self.headers.get("Content-Type", ""), body)
            if pdf is None:
                said = "<p id='error'>No report PDF was uploaded.</p>" + FORMS
                return self._answer(HTTPStatus.BAD_REQUEST, "No report", said)
            return self._answer(HTTPStatus.OK, "Verification", self._verified(pdf))
        finally:
            self.server.uploads.release()

    def _verified(self, pdf: bytes) -> str:
        """What the uploaded report is: the entry it is (by its SHA-256), and whether its
        signature and attachment hold against the register's trusted signers."""
        from harness.register.reports import read_report

        digest = hashlib.sha256(pdf).hexdigest()
        with tempfile.TemporaryDirectory(prefix="chcert-upload-") as folder:
            path = Path(folder) / "report.pdf"
            path.write_bytes(pdf)
            try:
                reading = read_report(path, self.server.register.anchors())  # as trusted now
                check = "<p id='signature'>Signature and attached results.json: verified.</p>"
                stated = reading.stated
            except UserError as exc:
                said = str(exc).replace(str(path), "the uploaded report")
                check = f"<p id='signature'>NOT VERIFIED: {_e(said)}</p>"
                stated = None
        found = [e for e in self.server.register.lookup(digest) if e.report_sha256 == digest]
        if found:
            head = f"<p id='match'>This is the report recorded as {_e(found[0].number)}.</p>"
            return head + check + _entry_html(found[0])
        claimed = f" It states the number {_e(stated)}." if stated else ""
        return (
            f"<p id='match'>This report (SHA-256 <code>{digest}</code>) is not in this "
            f"register: it is not a report the laboratory recorded.{claimed}</p>" + check
        )

    def _refuse(self) -> None:
        self.send_response(HTTPStatus.METHOD_NOT_ALLOWED)
        self.send_header("Allow", "GET, POST /verify")
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_PUT = do_DELETE = do_PATCH = _refuse


BOUNDARY = re.compile(r'boundary="?([^";\s]{1,200})"?', re.IGNORECASE)
HEAD_END = re.compile(rb"\r?\n\r?\n")


def _uploaded(content_type: str, body: bytes) -> bytes | None:
    """The first non-empty file of a multipart/form-data body (RFC 7578; its type and
    parameter names in any case, its lines ended by CRLF or, as some clients send, LF),
    or None: cut out of the body by its boundary, never copied part by part."""
    multipart = content_type.lower().startswith("multipart/")
    found = BOUNDARY.search(content_type) if multipart else None
    if found is None:
        return None
    dashes = b"--" + found[1].encode("latin-1")
    at = body.find(dashes)
    while at >= 0:
        head_end = HEAD_END.search(body, at)
        if head_end is None:
            return None
        end = body.find(b"\n" + dashes, head_end.end())
        if end < 0:
            return None
        content = body[head_end.end() : end - 1 if body[end - 1 : end] == b"\r" else end]
        if b"filename=" in body[at : head_end.start()].lower() and content:
            return content
        at = end + 1
    return None


class LookupServer(ThreadingHTTPServer):
    """The page's server, with the register (opened read-only)."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], register: Register, quiet: bool) -> None:
        super().__init__(address, LookupPage)
        self.uploads = threading.BoundedSemaphore(UPLOADS_AT_ONCE)
        self.register = register
        self.quiet = quiet
