"""A game that answers instantly: the reference game's replies, recorded once, replayed.

    python benchmarks/instant_game.py record TRANSCRIPT [--profile NAME|PATH]
    python benchmarks/instant_game.py replay TRANSCRIPT

For the harness's ceiling (benchmarks/bench_scaling.py): certified through
`--adapter "subprocess:PYTHON benchmarks/instant_game.py replay TRANSCRIPT"`, a run
costs what the harness costs and next to nothing more.

`record` serves the bundled reference game (harness/reference/, the table it
declares by default) over JSON Lines and appends every request it answers to
TRANSCRIPT, with its reply: one line per request, the request without its id, a
tab, and the reply without its id. Record with `chcert certify -n 0`, so that one
game process answers every request of the run and its round ids are unique.

`replay` answers each request with the reply the reference gave to the very same
request (every byte of it but the id): a dictionary look-up on the raw line, no
JSON parsed, one write per read, so its replies cost next to nothing. A run with
the same seed, budget, profile and selection sends the same requests, whatever
its workers or hosts (each shard draws its own rounds; the reply to `round`
carries the recorded round id, so the acts and result that follow match too). A
request not in the transcript, or one the reference answered in two ways, gets an
`internal` error, which the harness counts against the game: a replay can pass
only with the reference's own replies. The transcript is read whole when the first
request other than `hello` comes (hello, its first line, is answered without it),
so a connection that only says hello, as the controller's, reads one line.

The harness writes every request as `{"id":N,"op":...}` with the id first
(harness/adapters/subprocess.py), which is what both modes rely on to set the id
apart.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import deque
from typing import IO

PREFIX = b'{"id":'
BYE = b'"op":"bye"}'
AMBIGUOUS = b""  # a request the reference answered in two ways: never replayed


def split_id(line: bytes) -> tuple[bytes, bytes] | None:
    """(the id, the rest after its comma) of a request or reply line; None without one."""
    if not line.startswith(PREFIX):
        return None
    comma = line.find(b",", len(PREFIX))
    return None if comma < 0 else (line[len(PREFIX) : comma], line[comma + 1 :])


def record(transcript: str, profile_name: str | None) -> int:
    """Serve the reference game, appending each request and its reply to the transcript."""
    from harness.defaults import DEFAULT_PROFILE
    from harness.protocol import serve_json_lines, take_stdio
    from harness.reference.engine import ReferenceGame
    from harness.rules.profiles import load_profile

    channel_in, channel_out = take_stdio()
    game = ReferenceGame(load_profile(profile_name or DEFAULT_PROFILE))
    fd = os.open(transcript, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    tee = _Tee(channel_in)
    serve_json_lines(game, tee, _Recorder(channel_out, fd, tee), native=True)
    os.close(fd)
    return 0


class _Tee:
    """stdin for serve_json_lines, keeping the request lines it reads, in order."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream
        self.pending: deque[bytes] = deque()  # complete request lines not yet answered
        self._partial = b""

    def read1(self, size: int) -> bytes:
        chunk = self.stream.read1(size)  # type: ignore[attr-defined]
        *lines, self._partial = (self._partial + chunk).split(b"\n")
        self.pending += [line for line in lines if line.strip()]
        return chunk


class _Recorder:
    """stdout for serve_json_lines: each reply written, and recorded beside its request."""

    def __init__(self, stream: IO[bytes], fd: int, tee: _Tee) -> None:
        self.stream = stream
        self.fd = fd
        self.tee = tee

    def write(self, data: bytes) -> int:
        entries = []
        for reply in data.rstrip(b"\n").split(b"\n"):
            if not self.tee.pending:  # a last line without its newline, at the end of input
                break
            request = self.tee.pending.popleft()
            asked, answered = split_id(request), split_id(reply)
            if asked is not None and answered is not None and asked[0] == answered[0]:
                entries.append(asked[1] + b"\t" + answered[1] + b"\n")
        if entries:
            os.write(self.fd, b"".join(entries))  # O_APPEND: whole lines, in order
        return self.stream.write(data)

    def flush(self) -> None:
        self.stream.flush()


def load(transcript: str) -> dict[bytes, bytes]:
    """Request (without id) -> reply (without id); AMBIGUOUS where two replies differ."""
    table: dict[bytes, bytes] = {}
    with open(transcript, "rb") as file:
        for line in file.read().split(b"\n"):
            key, tab, reply = line.partition(b"\t")
            if not tab:
                continue
            if table.setdefault(key, reply) != reply:
                table[key] = AMBIGUOUS
    return table


def replay(transcript: str) -> int:
    """Answer every request with its recorded reply, until `bye` or end of input."""
    with open(transcript, "rb") as file:
        hello_key, _, hello_reply = file.readline().rstrip(b"\n").partition(b"\t")
    table: dict[bytes, bytes] | None = None
    partial = b""
    while chunk := os.read(0, 1 << 16):
        *lines, partial = (partial + chunk).split(b"\n")
        out = []
        done = False
        for line in lines:
            split = split_id(line)
            if split is None:
                out.append(b'{"id":null,' + _internal(b"a request without its id first"))
                continue
            rid, key = split
            if key == hello_key:
                reply = hello_reply
            else:
                if table is None:
                    table = load(transcript)
                reply = table.get(key) or _internal(b"request not in the transcript")
            out.append(PREFIX + rid + b"," + reply)
            if key == BYE:
                done = True
                break
        if out:
            data = memoryview(b"\n".join(out) + b"\n")
            while data:
                data = data[os.write(1, data) :]
        if done:
            break
    return 0


def _internal(message: bytes) -> bytes:
    return b'"error":{"code":"internal","message":"instant_game: ' + message + b'"}}'


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    rec = sub.add_parser("record", help="serve the reference game, recording its replies")
    rec.add_argument("transcript")
    rec.add_argument("--profile", help="profile the reference plays (default: standard)")
    rep = sub.add_parser("replay", help="answer with the recorded replies")
    rep.add_argument("transcript")
    args = parser.parse_args()
    if args.mode == "record":
        return record(args.transcript, args.profile)
    return replay(args.transcript)


if __name__ == "__main__":
    sys.exit(main())
