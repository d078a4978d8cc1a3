"""Just enough PDF reading for tests: the text drawn on the pages of a reportlab PDF."""

from __future__ import annotations

import base64
import re
import zlib
from pathlib import Path

_STREAM = re.compile(
    rb"/Filter \[ /ASCII85Decode /FlateDecode \][^>]*>>\s*stream\r?\n(.*?)endstream", re.S
)
_SHOW = re.compile(rb"\((.*?)(?<!\\)\)\s*Tj")


def pdf_text(path: Path) -> str:
    """Concatenated strings of every `(...) Tj` in the (ASCII85 + Flate) content streams."""
    chunks: list[str] = []
    for raw in _STREAM.findall(path.read_bytes()):
        body = raw.strip()
        body = body[:-2] if body.endswith(b"~>") else body
        data = zlib.decompress(base64.a85decode(body))
        chunks += [m.decode("latin-1") for m in _SHOW.findall(data)]
    return "\n".join(chunks)
