"""A real ``mtgcontrol serve`` for the tests: started on a free loopback port (``--port
0``: the server prints the one it got), called over HTTP with the standard library,
stopped with SIGTERM."""

from __future__ import annotations

import http.client
import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "mtgcontrol.cli"]
STARTUP = 120  # seconds; generous, the machine may be loaded


@dataclass
class Served:
    process: subprocess.Popen[str]
    port: int
    said: list[str] = field(default_factory=list)
    """What the server wrote on standard error."""

    def call(self, method: str, path: str, body: bytes | Iterable[bytes] | None = None,
             query: dict[str, str] | None = None, headers: dict[str, str] | None = None,
             timeout: float = 300) -> tuple[int, dict[str, str], bytes]:
        """One request on its own connection: status, headers (lower-case), body."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            target = path + ("?" + urlencode(query) if query else "")
            chunked = body is not None and not isinstance(body, bytes)
            conn.request(method, target, body=body, headers=headers or {},
                         encode_chunked=chunked)
            response = conn.getresponse()
            return (response.status, {k.lower(): v for k, v in response.getheaders()},
                    response.read())
        finally:
            conn.close()

    def post(self, path: str, body: bytes | Iterable[bytes], **query: str
             ) -> tuple[int, bytes]:
        status, _, data = self.call("POST", path, body, query or None,
                                    {"content-type": "application/json"})
        return status, data

    def get_json(self, path: str, **query: str) -> tuple[int, Any]:
        status, _, data = self.call("GET", path, None, query or None)
        return status, json.loads(data)

    def stop(self, sig: int = signal.SIGTERM, wait: float = 30) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.process.wait(wait)


def start(*args: str, workers: int = 2) -> Served:
    """``mtgcontrol serve --port 0 --workers N ARGS``, once it listens."""
    process = subprocess.Popen([*CLI, "serve", "--port", "0", "--workers", str(workers),
                                *args], stderr=subprocess.PIPE, text=True, cwd=ROOT)
    assert process.stderr is not None
    said: list[str] = []
    ready = threading.Event()

    def read() -> None:  # keep reading, so that the server never blocks on its stderr
        assert process.stderr is not None
        for line in process.stderr:
            said.append(line)
            ready.set()
        ready.set()

    threading.Thread(target=read, daemon=True).start()
    end = time.monotonic() + STARTUP
    while not ready.wait(0.1):
        if time.monotonic() > end:
            process.kill()
            raise AssertionError("the server did not start")
    if not said or "listening on http://127.0.0.1:" not in said[0]:
        process.kill()
        raise AssertionError(f"the server did not start: {said}")
    port = int(said[0].split("http://127.0.0.1:")[1].split("/")[0])
    return Served(process, port, said)
