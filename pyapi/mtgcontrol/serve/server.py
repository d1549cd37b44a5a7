"""Running the application under uvicorn: the socket, the start-up line, the stop.

One server process reads and writes HTTP (uvicorn with httptools and uvloop where
installed); ``workers`` judging processes do the rest (pool.py).  On SIGTERM or SIGINT
the server stops taking connections and requests, gives the requests in flight
``grace`` seconds to finish, answers those still unfinished with a 503 error record,
stops its workers and exits (within ``grace`` + 1 s; code 143 or 130, as every
command stopped by a signal).
"""

from __future__ import annotations

import signal
import socket
import sys
from types import FrameType
from typing import Any

from .app import ServeConfig, Service, create_app
from .pool import WorkersFailed


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to ``host``:``port`` (0: any free port); OSError if it cannot be."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def run(config: ServeConfig, sock: socket.socket) -> int:
    """Serve until a signal stops the server (then the signal's exit code is raised by
    uvicorn as the signal itself: the command line turns it into 130 or 143)."""
    import uvicorn

    service = Service(config)

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if not self.should_exit:
                host, port = sock.getsockname()[:2]
                where = f"[{host}]" if ":" in host else host
                print(f"mtgcontrol serve: listening on http://{where}:{port}/ "
                      f"({config.workers} worker(s); workbench at /, API at /openapi.json)",
                      file=sys.stderr, flush=True)

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            if not self.should_exit:
                service.begin_stop(signal.Signals(sig).name)
            super().handle_exit(sig, frame)

    log: dict[str, Any] = {"log_config": None} if not config.access_log else {}
    server = Server(uvicorn.Config(
        create_app(service), lifespan="on", log_level="info" if config.access_log else "error",
        access_log=config.access_log,
        timeout_graceful_shutdown=int(config.grace) + 1,
        server_header=False, proxy_headers=False, **log))
    try:
        server.run(sockets=[sock])
    except SystemExit:  # uvicorn's word for a start-up that failed (it said why)
        return 2
    except WorkersFailed as err:
        print(f"mtgcontrol serve: {err}", file=sys.stderr)
        return 2
    finally:
        sock.close()
    return 0
