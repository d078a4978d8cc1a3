"""HTTP adapter: POST each request as JSON to `<base URL>/<op>`; the body is the reply."""

from __future__ import annotations

import itertools
import json
import urllib.error
import urllib.request
from collections.abc import Sequence
from typing import Any

from harness.adapters.base import Answer, check_reply, exchange_sequentially
from harness.errors import ProtocolViolation


class HttpAdapter:
    def __init__(self, base_url: str, *, timeout: float) -> None:
        self.spec = base_url
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self._ids = itertools.count(1)

    def request(self, op: str, **params: Any) -> dict[str, Any]:
        request = {"id": next(self._ids), "op": op, **params}
        body = json.dumps(request).encode("utf-8")
        http_request = urllib.request.Request(
            f"{self.base_url}/{op}", data=body, headers={"Content-Type": "application/json"}
        )
        evidence: dict[str, Any] = {"url": f"{self.base_url}/{op}"}
        try:
            with urllib.request.urlopen(http_request, timeout=self.timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as exc:
            raw = exc.read()
            evidence["http_status"] = exc.code
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            raise ProtocolViolation(
                f"HTTP request failed: {exc}", {**evidence, "request": request}
            ) from exc
        try:
            reply = json.loads(raw)
        except ValueError as exc:
            evidence["raw"] = raw[:2000].decode("utf-8", "replace")
            raise ProtocolViolation(
                "HTTP reply is not JSON", {**evidence, "request": request}
            ) from exc
        return check_reply(request, reply, evidence)

    def exchange(self, requests: Sequence[tuple[str, dict[str, Any]]]) -> list[Answer]:
        return exchange_sequentially(self, requests)

    def close(self) -> None:
        pass
