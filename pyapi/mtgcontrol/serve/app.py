"""The web application (Starlette): the endpoints, their limits and error records.

Every answer that judges a snapshot comes from a worker process (pool.py, tasks.py);
this process only reads requests, checks their query parameters and sizes, and writes
the replies.  Bad input is a 400 whose body is the error record of ``mtgcontrol
batch`` (``{"id", "error": [{"path", "expected"}]}``, a query parameter named as the
path where the command line names its option); a body over its limit is a 413, a
snapshot over the CPU or memory limit a 422, a request while the server stops or
while too many wait a 503.  docs/serve.md documents the API.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.datastructures import QueryParams
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Message, Receive, Scope, Send

from .. import catalog
from ..batch.judge import DEFAULT_MAX_EFFECTS, DEFAULT_MAX_OBJECTS
from ..batch.lines import CHUNK_BYTES, DEFAULT_MAX_LINE_BYTES, Line, LongLine
from ..engine.api import ErrorRecord
from ..engine.validate import InputProblem, shown
from ..present.lang import codes
from .contract import FACTS, openapi, package_version, rules_document
from .pool import JudgePool, pool_state
from .tasks import Options, Reply, Task, WorkerSettings, error_reply

JSON = "application/json"
NDJSON = "application/x-ndjson"
MEDIA = {"json": JSON, "html": "text/html; charset=utf-8", "text": "text/plain; charset=utf-8"}
# Pages from the workbench's own address only; no script but its own file; the ruling
# pages it shows have no script at all (and are framed sandboxed, without scripts).
POLICY = ("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
          "img-src 'self' data:; connect-src 'self'; frame-src 'self'; "
          "base-uri 'none'; form-action 'none'; frame-ancestors 'self'")
HEADERS = [(b"content-security-policy", POLICY.encode()),
           (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer")]


@dataclass(frozen=True)
class ServeConfig:
    """``mtgcontrol serve``'s settings (docs/serve.md, Limits)."""

    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    timeout: float = 10.0
    """CPU seconds a request's snapshot may take (a /batch chunk: then line by line)."""
    max_body_bytes: int = DEFAULT_MAX_LINE_BYTES
    max_batch_bytes: int = 1 << 30
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    max_objects: int = DEFAULT_MAX_OBJECTS
    max_effects: int = DEFAULT_MAX_EFFECTS
    max_memory: int | None = 2048
    """Megabytes of data memory a worker may hold (RLIMIT_DATA)."""
    worker_memory: int = 120
    """Megabytes of peak memory after which a worker is replaced."""
    max_waiting: int = 1000
    """Requests waiting for a worker at most; more: 503."""
    batch_size: int = 100
    grace: float = 3.0
    """Seconds requests in flight have to finish after SIGTERM (then: 503)."""
    proposals: tuple[tuple[str, str], ...] = ()
    """(name, program text) of each ``--change`` file."""
    access_log: bool = False

    def limits(self) -> dict[str, Any]:
        keys = ("timeout", "max_body_bytes", "max_batch_bytes", "max_line_bytes",
                "max_objects", "max_effects", "max_memory", "worker_memory", "max_waiting")
        return {k: v for k, v in asdict(self).items() if k in keys}


@dataclass
class Service:
    """The application's state: its settings and its pool of judging processes."""

    config: ServeConfig
    pool: JudgePool = field(init=False)

    def __post_init__(self) -> None:
        c = self.config
        self.pool = JudgePool(c.workers, WorkerSettings(c.proposals, c.max_objects,
                                                        c.max_effects, c.max_memory,
                                                        os.getpid()),
                              timeout=c.timeout, memory_limit=c.worker_memory << 20,
                              ceiling=None if c.max_memory is None else c.max_memory << 20)

    def begin_stop(self, signame: str) -> None:
        """A signal came: requests in flight have ``grace`` seconds, then fail (503)."""
        loop = self.pool._loop
        reason = f"a request answered before the server stopped ({signame}); send it again"
        loop.call_soon_threadsafe(loop.call_later, self.config.grace, self.pool.stop, reason)


class Refused(Exception):
    """A request refused before judging: its status and problems."""

    def __init__(self, status: int, path: str, expected: str) -> None:
        super().__init__(expected)
        self.status, self.problem = status, InputProblem("request", path, expected)

    def reply(self) -> Reply:
        return error_reply(ErrorRecord("request", [self.problem]), self.status)


# --- requests -------------------------------------------------------------------------

def parameters(params: QueryParams, allowed: tuple[str, ...]) -> dict[str, str]:
    """The query parameters, each at most once (``changes`` may repeat: joined)."""
    for name in params:
        if name not in allowed:
            raise Refused(400, name, f"a query parameter among {', '.join(allowed)}, "
                                     f"got {shown(name)}")
    out = {}
    for name in dict.fromkeys(params):
        values = params.getlist(name)
        if len(values) > 1 and name != "changes":
            raise Refused(400, name, f"one value, got {len(values)}")
        out[name] = ",".join(values)
    return out


def options(service: Service, query: dict[str, str]) -> Options:
    """The CR version and proposals a request names (proposals only by the names the
    server was started with: no request text becomes program text)."""
    rules = query.get("rules") or None
    if rules is not None:
        try:
            catalog.resolve(rules)
        except catalog.UnknownVersion as err:
            raise Refused(400, "rules", str(err)) from None
    known = [name for name, _ in service.config.proposals]
    names = tuple(n.strip() for n in query.get("changes", "").split(",") if n.strip())
    for name in names:
        if name not in known:
            raise Refused(400, "changes", "names of proposals this server was started with "
                          f"({', '.join(known) or 'none: serve --change FILE.lp'}), "
                          f"got {shown(name)}")
    return Options(rules, names)


def choice(query: dict[str, str], name: str, values: tuple[str, ...], default: str) -> str:
    value = query.get(name, default)
    if value not in values:
        raise Refused(400, name, f"one of {', '.join(values)}, got {shown(value)}")
    return value


async def body_of(request: Request, limit: int) -> bytes:
    """The request's body; over ``limit`` bytes a 413 (as soon as that is known)."""
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > limit:
        raise too_large(limit, "--max-body-bytes", int(length))
    parts, size = [], 0
    async for part in request.stream():
        size += len(part)
        if size > limit:
            raise too_large(limit, "--max-body-bytes")
        parts.append(part)
    return b"".join(parts)


def too_large(limit: int, option: str, size: int | None = None) -> Refused:
    got = "" if size is None else f", got {size}"
    return Refused(413, "$", f"a request body of at most {limit} bytes ({option}){got}")


def response(reply: Reply, media: str = JSON) -> Response:
    status, text = reply
    return Response(text.encode("utf-8", "backslashreplace"), status,
                    media_type=media if status == 200 else JSON)


# --- endpoints ----------------------------------------------------------------------------

def judging(kind_of: Callable[[dict[str, str]], tuple[str, str, tuple[tuple[str, Any], ...]]],
            allowed: tuple[str, ...]) -> Callable[[Request], Awaitable[Response]]:
    """An endpoint that judges the request's snapshot: ``kind_of(query)`` gives the task's
    kind, the answer's format and the task's own parameters."""

    async def endpoint(request: Request) -> Response:
        service: Service = request.app.state.service
        query = parameters(request.query_params, allowed)
        opts = options(service, query)
        kind, form, extra = kind_of(query)
        if service.pool.waiting() >= service.config.max_waiting:
            raise Refused(503, "$", f"a server with fewer than {service.config.max_waiting} "
                                    "requests waiting; send it again later")
        body = await body_of(request, service.config.max_body_bytes)
        reply = await service.pool.submit(opts, Task(kind, body, extra=extra))[0]
        return response(reply, MEDIA[form])

    return endpoint


def _adjudicate(query: dict[str, str]) -> tuple[str, str, tuple[tuple[str, Any], ...]]:
    form = choice(query, "format", ("json", "html"), "json")
    lang = choice(query, "lang", tuple(codes()), "en")
    return ("page" if form == "html" else "ruling"), form, (("lang", lang),)


def _explain(query: dict[str, str]) -> tuple[str, str, tuple[tuple[str, Any], ...]]:
    if not query.get("object"):
        raise Refused(400, "object", "an object or ability id of the snapshot (?object=ID)")
    form = choice(query, "format", ("json", "text", "html"), "json")
    fact = choice(query, "fact", FACTS, "controller")
    return "explain", form, (("object", query["object"]), ("fact", fact),
                             ("why_not", query.get("why_not") or None), ("format", form),
                             ("lang", choice(query, "lang", tuple(codes()), "en")))


def _check(query: dict[str, str]) -> tuple[str, str, tuple[tuple[str, Any], ...]]:
    causes = choice(query, "causes", ("true", "false"), "false") == "true"
    return "check", "json", (("causes", causes),)


async def health(request: Request) -> Response:
    import clingo

    service: Service = request.app.state.service
    body = {"status": "stopping" if service.pool.stopping else "ok",
            "mtgcontrol": package_version(), "clingo": clingo.__version__,
            "cr_versions": [v.name for v in catalog.versions()],
            "default_version": catalog.newest().name, "languages": codes(),
            "proposals": [name for name, _ in service.config.proposals],
            **pool_state(service.pool), "limits": service.config.limits()}
    return Response(json.dumps(body, indent=2) + "\n", 503 if service.pool.stopping else 200,
                     media_type=JSON)


async def openapi_json(request: Request) -> Response:
    service: Service = request.app.state.service
    doc = openapi(service.config.limits(), [n for n, _ in service.config.proposals],
                  package_version())
    return Response(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", media_type=JSON)


async def rules(request: Request) -> Response:
    query = parameters(request.query_params, ("version", "lang"))
    version = query.get("version") or None
    try:
        name = catalog.resolve(version).name
    except catalog.UnknownVersion as err:
        raise Refused(400, "version", str(err)) from None
    lang = choice(query, "lang", tuple(codes()), "en")
    return Response(json.dumps(rules_document(name, lang), indent=2, ensure_ascii=False) + "\n",
                    media_type=JSON)


# --- /batch: JSON Lines, streamed --------------------------------------------------------

class BodyOver(Exception):
    """The body went over its limit while line ``number`` was read."""

    def __init__(self, number: int) -> None:
        self.number = number


class ClientGone(Exception):
    """The client closed the connection."""


async def body_lines(receive: Receive, max_line: int, limit: int
                     ) -> AsyncIterator[list[Line]]:
    """The body's lines, numbered from 1, as ``batch.lines.numbered`` reads a file: every
    line (a blank one too; a last one without its line end too), without its ``\\n`` or
    ``\\r\\n``; a line over ``max_line`` bytes given as a `LongLine` (not held).  The
    lines each piece of the body completes come together, as soon as it arrives."""
    buffer = bytearray()
    number = total = long_length = 0
    long_head: bytes | None = None
    more = True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientGone
        body: bytes = message.get("body", b"")
        more = message.get("more_body", False)
        over = total + len(body) > limit
        if over:  # the lines that end within the limit are read; then the record
            body, more = body[:limit - total], True
        total += len(body)
        lines: list[Line] = []
        start = 0
        while start <= len(body):
            end = body.find(b"\n", start)
            piece = body[start:] if end < 0 else body[start:end]
            if long_head is not None:
                long_length += len(piece)
            else:
                buffer += piece
                if len(buffer) > max_line:
                    long_head, long_length = bytes(buffer[:200]), len(buffer)
                    buffer.clear()
            if end < 0:
                break
            number += 1
            if long_head is not None:
                lines.append((number, LongLine(long_head, long_length, max_line)))
                long_head = None
            else:
                lines.append((number, bytes(buffer).removesuffix(b"\r")))
                buffer.clear()
            start = end + 1
        yield lines
        if over:
            raise BodyOver(number + 1)
    if long_head is not None:
        yield [(number + 1, LongLine(long_head, long_length, max_line))]
    elif buffer:
        yield [(number + 1, bytes(buffer).removesuffix(b"\r"))]


Chunk = list[asyncio.Future[Reply]]


class BatchStream:
    """``POST /batch``: one output line per body line, in order, each written as soon as
    its lines are judged; the bytes of ``mtgcontrol batch`` for the same lines.  Lines
    go to the workers in chunks of up to ``batch_size`` (fewer when the body pauses), at
    most two chunks' worth per worker ahead of what is written (memory stays flat)."""

    def __init__(self, service: Service) -> None:
        self.service = service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        config = self.service.config
        request = Request(scope)
        try:
            if request.method != "POST":
                raise Refused(405, "method", f"POST, got {request.method}")
            opts = options(self.service, parameters(request.query_params,
                                                    ("rules", "changes")))
            length = request.headers.get("content-length", "")
            if length.isdigit() and int(length) > config.max_batch_bytes:
                raise too_large(config.max_batch_bytes, "--max-batch-bytes", int(length))
        except Refused as refused:
            await response(refused.reply())(scope, receive, send)
            return
        chunks: asyncio.Queue[Chunk | BodyOver | None] = asyncio.Queue()
        ahead = asyncio.Semaphore(2 * config.workers * config.batch_size)
        reader = asyncio.create_task(self._read(receive, opts, chunks, ahead))
        try:
            await self._write(send, chunks, ahead)
        except (OSError, ClientGone):  # the client left: its lines are not judged
            pass
        finally:
            reader.cancel()
            while not chunks.empty():
                item = chunks.get_nowait()
                for future in item if isinstance(item, list) else ():
                    future.cancel()

    async def _read(self, receive: Receive, opts: Options,
                    out: asyncio.Queue[Chunk | BodyOver | None],
                    ahead: asyncio.Semaphore) -> None:
        config, pool = self.service.config, self.service.pool
        tasks: list[Task] = []

        async def submit() -> None:
            for _ in tasks:
                await ahead.acquire()
            out.put_nowait(pool.submit(opts, *tasks))
            tasks.clear()

        try:
            async for lines in body_lines(receive, config.max_line_bytes,
                                          config.max_batch_bytes):
                held = 0
                for number, raw in lines:
                    tasks.append(Task("line", raw, number))
                    held += len(raw)
                    if len(tasks) >= config.batch_size or held >= CHUNK_BYTES:
                        await submit()
                        held = 0
                if tasks:  # the body pauses here: judge what came
                    await submit()
            out.put_nowait(None)
        except BodyOver as over:
            out.put_nowait(over)
        except ClientGone:
            out.put_nowait(None)

    async def _write(self, send: Send, chunks: asyncio.Queue[Chunk | BodyOver | None],
                     ahead: asyncio.Semaphore) -> None:
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", NDJSON.encode())]})
        while (item := await chunks.get()) is not None:
            if isinstance(item, BodyOver):
                limit = self.service.config.max_batch_bytes
                record = ErrorRecord("request", [InputProblem("request", "$", (
                    f"a request body of at most {limit} bytes (--max-batch-bytes); the rest "
                    "of the body was not read"))], item.number)
                await send({"type": "http.response.body", "more_body": True,
                            "body": (record.to_json() + "\n").encode()})
                break
            replies = [await future for future in item]
            for _ in item:
                ahead.release()
            body = b"".join(text.encode("utf-8", "backslashreplace") + b"\n"
                            for _, text in replies)
            await send({"type": "http.response.body", "body": body, "more_body": True})
            if any(status == 503 for status, _ in replies):
                break  # the server is stopping: the lines after these are not judged
        await send({"type": "http.response.body", "body": b"", "more_body": False})


# --- the workbench --------------------------------------------------------------------

@cache
def examples() -> dict[str, bytes]:
    """The package's example snapshots, by file name."""
    root = resources.files("mtgcontrol.examples")
    return {e.name: e.read_bytes() for e in sorted(root.iterdir(), key=lambda e: e.name)
            if e.name.endswith(".json")}


async def example_list(request: Request) -> Response:
    return Response(json.dumps(list(examples())) + "\n", media_type=JSON)


async def example(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in examples():
        raise Refused(404, "name", f"an example among {', '.join(examples())}, got {shown(name)}")
    return Response(examples()[name], media_type=JSON)


@cache
def static(name: str) -> bytes:
    return (resources.files("mtgcontrol.serve") / "static" / name).read_bytes()


async def static_file(request: Request) -> Response:
    name = request.path_params["name"]
    kinds = {"workbench.js": "text/javascript; charset=utf-8",
             "workbench.css": "text/css; charset=utf-8"}
    if name not in kinds:
        raise Refused(404, "path", f"a file among {', '.join(kinds)}, got {shown(name)}")
    return Response(static(name), media_type=kinds[name],
                    headers={"cache-control": "no-cache"})


async def workbench(request: Request) -> Response:
    from ..present.lang import language
    from ..present.pages import render

    service: Service = request.app.state.service
    page = render("workbench.html.j2", language("en"), title="mtgcontrol workbench",
                  versions=[v.name for v in catalog.versions()], languages=codes(),
                  examples=list(examples()), facts=FACTS,
                  proposals=[n for n, _ in service.config.proposals])
    return Response(page, media_type=MEDIA["html"])


# --- the application --------------------------------------------------------------------

async def refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Refused)
    return response(exc.reply())


async def not_found(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    what = {404: ("path", "one of the paths of /openapi.json"),
            405: ("method", "a method the path takes (/openapi.json)")}
    path, expected = what.get(exc.status_code, ("$", exc.detail))
    got = request.url.path if exc.status_code == 404 else request.method
    return response(Refused(exc.status_code, path, f"{expected}, got {shown(got)}").reply())


def secure(app: Any) -> Any:
    """Every response with the headers that keep pages from running foreign scripts."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *HEADERS]}
            await send(message)

        await app(scope, receive, sending)

    return wrapped


def create_app(service: Service) -> Any:
    """The ASGI application of ``service``."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await service.pool.start()
        try:
            yield
        finally:
            service.pool.stop("a request answered before the server stopped")

    post = ["POST"]
    routes = [
        Route("/", workbench, methods=["GET"]),
        Route("/static/{name}", static_file, methods=["GET"]),
        Route("/examples", example_list, methods=["GET"]),
        Route("/examples/{name}", example, methods=["GET"]),
        Route("/health", health, methods=["GET"]),
        Route("/openapi.json", openapi_json, methods=["GET"]),
        Route("/rules", rules, methods=["GET"]),
        Route("/adjudicate", judging(_adjudicate, ("rules", "changes", "format", "lang")),
              methods=post),
        Route("/explain", judging(_explain, ("object", "fact", "why_not", "format", "lang",
                                             "rules", "changes")), methods=post),
        Route("/check", judging(_check, ("rules", "changes", "causes")), methods=post),
        Route("/batch", BatchStream(service)),
    ]
    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={Refused: refused, HTTPException: not_found})
    app.state.service = service
    return secure(app)
