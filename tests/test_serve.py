"""``mtgcontrol serve`` over HTTP: a real server on a free loopback port (one for the
module, one more for SIGTERM), every endpoint, the command line's bytes, bad input,
oversized bodies, a runaway snapshot at the CPU limit while others are answered."""

from __future__ import annotations

import json
import random
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import jsonschema
import pytest
from serving import ROOT, Served, start
from test_batch import HOSTILE, SLOW, with_players

from mtgcontrol import catalog
from mtgcontrol.cli import main

sys.path.insert(0, str(ROOT / "benchmarks"))
import make_corpus  # noqa: E402

EXAMPLES = sorted((ROOT / "examples").glob("*.json"))
TIMEOUT = 3
MAX_BODY = 300_000
MAX_BATCH = 4_000_000


@pytest.fixture(scope="module")
def server() -> Iterator[Served]:
    served = start("--timeout", str(TIMEOUT), "--change", f"slow={SLOW}",
                   "--change", str(ROOT / "docs" / "proposals" / "apnap-off.lp"),
                   "--max-body-bytes", str(MAX_BODY), "--max-batch-bytes", str(MAX_BATCH))
    yield served
    assert served.stop() == 143


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def record(data: bytes) -> dict:
    return json.loads(data)


# --- the contract --------------------------------------------------------------------

def test_health_and_openapi(server: Served) -> None:
    status, health = server.get_json("/health")
    assert status == 200 and health["status"] == "ok" and health["workers"] == 2
    assert health["cr_versions"] == [v.name for v in catalog.versions()]
    assert health["proposals"] == ["slow", "apnap-off"]
    assert health["limits"]["timeout"] == TIMEOUT
    status, doc = server.get_json("/openapi.json")
    assert status == 200 and doc["openapi"].startswith("3.1")
    assert set(doc["paths"]) == {"/health", "/openapi.json", "/rules", "/adjudicate",
                                 "/explain", "/check", "/batch"}
    shipped = json.loads((ROOT / "pyapi" / "mtgcontrol" / "schema" /
                          "snapshot.schema.json").read_text())
    assert doc["components"]["schemas"]["Snapshot"] == shipped
    snapshot = jsonschema.Draft202012Validator(doc["components"]["schemas"]["Snapshot"])
    for path in EXAMPLES:
        snapshot.validate(json.loads(path.read_text()))
    assert not snapshot.is_valid({"players": []})
    changes = next(p for p in doc["paths"]["/adjudicate"]["post"]["parameters"]
                   if p["name"] == "changes")
    assert "slow, apnap-off" in changes["description"]


def test_rules_catalog_in_every_language(server: Served) -> None:
    newest = catalog.newest()
    _, en = server.get_json("/rules")
    _, fr = server.get_json("/rules", lang="fr")
    _, it = server.get_json("/rules", lang="it", version="2017-04-28")
    assert en["version"] == newest.name and en["lang"] == "en"
    assert sorted(r["number"] for r in en["rules"]) == sorted(r.number for r in newest.rules)
    assert [r["number"] for r in fr["rules"]] == [r["number"] for r in en["rules"]]
    first = en["rules"][0]
    assert first["number"] == "108.3" and first["group"] and "ownership.lp" in first["encodings"]
    assert fr["rules"][0]["paraphrase"] != first["paraphrase"]
    assert fr["rules"][0]["paraphrase"].startswith("Une carte appartient")
    assert it["version"] == "2017-04-28" and it["rules"][0]["paraphrase"] != first["paraphrase"]
    assert {u["number"] for u in en["unencoded"]} == {u.number for u in newest.unencoded}
    for query, path in (({"version": "1999-01-01"}, "version"), ({"lang": "de"}, "lang"),
                        ({"langs": "fr"}, "langs")):
        status, body = server.get_json("/rules", **query)
        assert status == 400 and body["error"][0]["path"] == path


# --- the command line's bytes ----------------------------------------------------------

@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_adjudicate_is_the_cli_byte_for_byte(server: Served, path: Path,
                                             capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path) -> None:
    body = path.read_bytes()
    assert server.post("/adjudicate", body) == (200, cli(capsys, "adjudicate", str(path))[1]
                                                .encode())
    status, got = server.post("/adjudicate", body, rules="2017-04-28", changes="apnap-off")
    assert status == 200 and got == cli(capsys, "adjudicate", str(path), "--rules",
                                         "2017-04-28", "--change",
                                         str(ROOT / "docs/proposals/apnap-off.lp"))[1].encode()
    page = tmp_path / "page.html"
    assert cli(capsys, "adjudicate", str(path), "--format", "html", "--lang", "it", "-o",
               str(page))[0] == 0
    assert server.post("/adjudicate", body, format="html", lang="it") == (200, page.read_bytes())


def test_explain_is_the_cli_byte_for_byte(server: Served, capsys: pytest.CaptureFixture[str],
                                          tmp_path: Path) -> None:
    path = ROOT / "examples" / "03-act-of-treason.json"
    body = path.read_bytes()
    for form in ("json", "text"):
        code, out, _ = cli(capsys, "explain", str(path), "bears", "--why-not", "alice",
                           "--format", form, "--lang", "fr")
        assert code == 0
        assert server.post("/explain", body, object="bears", why_not="alice", format=form,
                           lang="fr") == (200, out.encode())
    page = tmp_path / "explain.html"
    cli(capsys, "explain", str(path), "bears", "--fact", "owner", "--format", "html", "-o",
        str(page))
    assert server.post("/explain", body, object="bears", fact="owner", format="html") == (
        200, page.read_bytes())
    status, got = server.post("/explain", body, object="bears")  # json by default
    assert status == 200 and json.loads(got)["format"] == "explanation/1"


def test_check_gives_the_violations_and_their_causes(server: Served, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    doc = json.loads((ROOT / "examples" / "01-mind-control.json").read_text())
    doc["claims"] = [{"object": "bear", "controller": "alice"}]
    path = tmp_path / "claims.json"
    path.write_text(json.dumps(doc))
    ruling = json.loads(cli(capsys, "adjudicate", str(path))[1])
    status, got = server.post("/check", path.read_bytes())
    assert status == 200 and json.loads(got) == {"id": None, "rules": ruling["rules"],
                                                 "violations": ruling["violations"]}
    assert ruling["violations"]
    code, out, _ = cli(capsys, "check", "--causes", str(path))
    assert code == 1
    causes = [line.split("minimal cause: ")[1].split(", ") for line in out.splitlines()
              if "minimal cause" in line]
    status, got = server.post("/check", path.read_bytes(), causes="true")
    assert status == 200 and [v["causes"] for v in json.loads(got)["violations"]] == causes
    status, got = server.post("/check", (ROOT / "examples" / "02-token-for-an-opponent.json")
                              .read_bytes())
    assert status == 200 and json.loads(got)["violations"] == []


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    """A 1,000-line corpus of make_corpus.py (some lines broken), and batch's output."""
    folder = tmp_path_factory.mktemp("corpus")
    rng = random.Random(11)
    lines = []
    for i in range(1000):
        doc = make_corpus.Builder(rng, i + 1).build()
        lines.append(make_corpus.broken(rng, doc) if rng.random() < 0.04 else json.dumps(doc))
    source = folder / "in.jsonl"
    source.write_text("\n".join(lines) + "\n")
    out = folder / "out.jsonl"
    assert main(["batch", str(source), "-o", str(out), "--workers", "2"]) == 1
    return source, out.read_bytes()


def test_batch_is_the_cli_byte_for_byte_on_a_corpus(server: Served,
                                                    corpus: tuple[Path, bytes]) -> None:
    source, expected = corpus
    body = source.read_bytes()
    assert server.post("/batch", body) == (200, expected)
    # lines sent in pieces that cut them anywhere, without a length; CRLF line ends
    part = b"\r\n".join(body.splitlines()[:150])
    pieces = (part[i:i + 7919] for i in range(0, len(part), 7919))
    status, headers, got = server.call("POST", "/batch", pieces)
    assert (status, got.splitlines()) == (200, expected.splitlines()[:150])
    assert headers["content-type"].startswith("application/x-ndjson")
    assert server.post("/batch", b"") == (200, b"")


def test_adjudicate_answers_each_corpus_line_as_batch_does(server: Served,
                                                           corpus: tuple[Path, bytes]) -> None:
    """Concurrent requests (judged together by the workers) each get their own line's
    ruling; a bad line gets batch's error record (without its line number), a 400."""
    source, expected = corpus
    lines = source.read_bytes().splitlines()[:64]
    answers = expected.splitlines()[:64]
    with ThreadPoolExecutor(8) as clients:
        replies = list(clients.map(lambda line: server.post("/adjudicate", line), lines))
    for (status, got), answer in zip(replies, answers, strict=True):
        want = json.loads(answer)
        if "error" in want:
            del want["line"]
            assert (status, json.loads(got)) == (400, want)
        else:
            assert status == 200
            assert got.decode() == json.dumps(want, indent=2, ensure_ascii=False) + "\n"
    _, health = server.get_json("/health")
    assert health["jobs"] < health["answered"]  # requests were judged together


# --- bad input ----------------------------------------------------------------------------

def test_bad_input_gets_the_cli_error_record(server: Served,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    bad = ROOT / "examples" / "invalid" / "bad.json"
    code, _, err = cli(capsys, "adjudicate", str(bad))
    assert code == 2
    status, got = server.post("/adjudicate", bad.read_bytes())
    problem = record(got)["error"][0]
    assert status == 400 and err.strip() == f"mtgcontrol: {bad}: {problem['path']}: " \
                                            f"expected {problem['expected']}"
    for endpoint in ("/adjudicate", "/check", "/explain?object=x"):
        path, _, query = endpoint.partition("?")
        status, got = server.post(path, b"{oops", **dict([query.split("=")] if query else []))
        assert status == 400 and record(got)["error"][0]["path"] == "$"


def test_hostile_snapshots_get_batch_records(server: Served, tmp_path: Path) -> None:
    source = tmp_path / "hostile.jsonl"
    source.write_bytes(b"\n".join(HOSTILE) + b"\n")
    out = tmp_path / "out.jsonl"
    main(["batch", str(source), "-o", str(out)])
    for line, answer in zip(HOSTILE, out.read_bytes().splitlines(), strict=True):
        status, got = server.post("/adjudicate", line)
        want = json.loads(answer)
        del want["line"]
        assert (status, record(got)) == (400, want), line[:40]


@pytest.mark.parametrize("path, query, where", [
    ("/adjudicate", {"rules": "1999-01-01"}, "rules"),
    ("/adjudicate", {"rule": "2017-04-28"}, "rule"),
    ("/adjudicate", {"format": "xml"}, "format"),
    ("/adjudicate", {"lang": "de"}, "lang"),
    ("/explain", {}, "object"),
    ("/explain", {"object": "nothing"}, "object"),
    ("/explain", {"object": "bear", "why_not": "zed"}, "why_not"),
    ("/explain", {"object": "bear", "fact": "may-activate"}, "fact"),
    ("/explain", {"object": "bear", "fact": "colour"}, "fact"),
    ("/check", {"causes": "maybe"}, "causes"),
])
def test_bad_parameters_are_400(server: Served, path: str, query: dict[str, str],
                                where: str) -> None:
    status, got = server.post(path, (ROOT / "examples" / "01-mind-control.json").read_bytes(),
                              **query)
    assert status == 400 and record(got)["error"][0]["path"] == where, got


def test_no_request_text_becomes_program_text(server: Served) -> None:
    body = (ROOT / "examples" / "01-mind-control.json").read_bytes()
    for attempt in ('off("111.2").', "slow,owner(1,1,1).", "../../tests/data/slow.lp",
                    str(SLOW), "#include \"/etc/passwd\"."):
        status, got = server.post("/adjudicate", body, changes=attempt)
        assert status == 400, attempt
        assert record(got)["error"][0]["path"] == "changes"
        assert "slow, apnap-off" in record(got)["error"][0]["expected"]
    # ids that read as ASP are only names: the same ruling as with plain ids
    doc = json.loads(body)
    weird = 'bear). owner(S,O,P) :- obj(S,O). %'
    text = body.decode().replace('"bear"', json.dumps(weird))
    status, got = server.post("/adjudicate", text.encode())
    assert status == 200
    ruling = json.loads(got)
    plain = json.loads(server.post("/adjudicate", body)[1])
    assert ruling["objects"][weird]["controller"] == plain["objects"]["bear"]["controller"]
    assert set(ruling["objects"]) == {weird, doc["objects"][1]["id"]}


def test_unknown_paths_and_methods(server: Served) -> None:
    status, _, got = server.call("GET", "/nothing")
    assert status == 404 and record(got)["error"][0]["path"] == "path"
    status, _, got = server.call("GET", "/adjudicate")
    assert status == 405 and record(got)["error"][0]["path"] == "method"
    status, _, got = server.call("GET", "/batch")
    assert status == 405 and record(got)["error"][0]["path"] == "method"


def test_oversized_bodies_are_413(server: Served) -> None:
    # Declared too long: refused before the body is read.
    status, _, got = server.call("POST", "/adjudicate", b"{}", headers={
        "content-length": str(MAX_BODY + 1)})
    assert status == 413
    assert record(got)["error"][0]["expected"].startswith(
        f"a request body of at most {MAX_BODY} bytes (--max-body-bytes)")
    # Sent without a length, and too long.
    status, _, got = server.call("POST", "/check", iter([b" " * 200_000] * 2))
    assert status == 413
    status, _, got = server.call("POST", "/batch", b"{}", headers={
        "content-length": str(MAX_BATCH + 1)})
    assert status == 413 and "--max-batch-bytes" in record(got)["error"][0]["expected"]
    # A /batch body that grows over its limit: the lines read are answered, then a record.
    line = (ROOT / "examples" / "01-mind-control.json").read_bytes().replace(b"\n", b" ")
    lines = MAX_BATCH // (len(line) + 1) + 5
    status, _, got = server.call("POST", "/batch", iter([(line + b"\n") * lines]))
    out = got.splitlines()
    assert status == 200 and len(out) == MAX_BATCH // (len(line) + 1) + 1
    last = json.loads(out[-1])
    assert last["line"] == len(out) and "--max-batch-bytes" in last["error"][0]["expected"]
    assert all("error" not in json.loads(x) for x in out[:-1])


def test_a_runaway_snapshot_hits_the_cpu_limit_while_others_are_answered(
        server: Served) -> None:
    example = json.loads((ROOT / "examples" / "01-mind-control.json").read_text())
    runaway = json.dumps(with_players(example, 6, "forever")).encode()
    result: dict[str, object] = {}

    def ask() -> None:
        started = time.monotonic()
        result["reply"] = server.post("/adjudicate", runaway, changes="slow")
        result["seconds"] = time.monotonic() - started

    thread = threading.Thread(target=ask)
    thread.start()
    body = (ROOT / "examples" / "02-token-for-an-opponent.json").read_bytes()
    answered = 0
    while thread.is_alive():
        assert server.post("/adjudicate", body)[0] == 200
        answered += 1
    thread.join()
    status, got = result["reply"]  # type: ignore[misc]
    assert status == 422
    assert record(got) == {"id": "forever", "error": [{"path": "$", "expected": (
        f"a snapshot judged within the time limit (--timeout {TIMEOUT} s of CPU time)")}]}
    assert answered >= 3 and result["seconds"] >= TIMEOUT  # type: ignore[operator]
    status, health = server.get_json("/health")
    assert status == 200 and health["workers"] == 2
    assert server.post("/adjudicate", body)[0] == 200


# --- the command line and SIGTERM -----------------------------------------------------

def test_serve_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        code, _, err = cli(capsys, "serve", "--port", str(taken.getsockname()[1]))
        assert code == 2 and "--host/--port: expected an address and port" in err
    broken = tmp_path / "broken.lp"
    broken.write_text("owner(S,O,P) :- \n")
    code, _, err = cli(capsys, "serve", "--change", str(broken))
    assert code == 2 and f"{broken}: line 2: expected valid ASP (clingo: " in err, err
    code, _, err = cli(capsys, "serve", "--change", str(ROOT / "examples" / "01-mind-control.json"))
    assert code == 2 and "01-mind-control.json: line 1: expected valid ASP" in err, err
    code, _, err = cli(capsys, "serve", "--change", str(tmp_path / "missing.lp"))
    assert code == 2 and "a readable proposal file" in err
    code, _, err = cli(capsys, "serve", "--change", f"a={SLOW}", "--change", f"a={broken}")
    assert code == 2 and "distinct names" in err
    for workers in ("0", "99999"):  # batch's cap
        with pytest.raises(SystemExit):
            main(["serve", "--workers", workers])
        assert "expected an integer from 1 to" in capsys.readouterr().err


def test_sigterm_finishes_or_fails_requests_in_flight_and_exits_within_5_s() -> None:
    served = start("--workers", "1", "--timeout", "60", "--change", f"slow={SLOW}",
                   workers=1)
    try:
        example = json.loads((ROOT / "examples" / "01-mind-control.json").read_text())
        runaway = json.dumps(with_players(example, 6, "forever")).encode()
        replies: dict[str, tuple[int, bytes]] = {}
        stuck = threading.Thread(target=lambda: replies.__setitem__(
            "runaway", served.post("/adjudicate", runaway, changes="slow")))
        stuck.start()
        time.sleep(0.5)  # the runaway holds the one worker
        quick = threading.Thread(target=lambda: replies.__setitem__(
            "quick", served.post("/adjudicate", (ROOT / "examples" / "03-act-of-treason.json")
                                 .read_bytes())))
        quick.start()
        time.sleep(0.5)
        served.process.send_signal(signal.SIGTERM)
        sent = time.monotonic()
        time.sleep(0.3)
        with pytest.raises(OSError):  # no longer listening
            served.call("GET", "/health", timeout=5)
        code = served.process.wait(10)
        took = time.monotonic() - sent
        stuck.join(5)
        quick.join(5)
    finally:
        if served.process.poll() is None:
            served.process.kill()
    assert code == 143 and took < 5, (code, took)
    for name in ("runaway", "quick"):
        status, got = replies[name]
        assert status == 503
        assert record(got)["error"][0]["expected"] == (
            "a request answered before the server stopped (SIGTERM); send it again")
    assert "stopped by SIGTERM" in "".join(served.said)


def test_sigterm_lets_a_request_in_flight_finish() -> None:
    """A /batch whose body is still coming when SIGTERM arrives is read and answered
    to its end (within the grace period); then the server exits."""
    served = start(workers=1)
    try:
        line = (ROOT / "examples" / "01-mind-control.json").read_bytes().replace(b"\n", b" ")

        def chunk(data: bytes) -> bytes:
            return f"{len(data):x}\r\n".encode() + data + b"\r\n"

        with socket.create_connection(("127.0.0.1", served.port), timeout=60) as conn:
            conn.sendall(b"POST /batch HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n"
                         + chunk(line + b"\n" + line + b"\n"))
            stream = conn.makefile("rb")
            assert stream.readline().startswith(b"HTTP/1.1 200")
            while stream.readline() != b"\r\n":  # the headers
                pass
            first = stream.readline()  # the first piece of the streamed body: its size
            assert int(first, 16) > 0
            sent = time.monotonic()
            served.process.send_signal(signal.SIGTERM)
            time.sleep(0.5)
            conn.sendall(chunk((line + b"\n") * 3) + chunk(b""))
            rest = stream.read()
        code = served.process.wait(10)
        assert code == 143 and time.monotonic() - sent < 5
        body = stream_lines(first, rest)
        assert len(body) == 5 and all(json.loads(x)["objects"]["bear"]["controller"] == "bob"
                                      for x in body)
    finally:
        if served.process.poll() is None:
            served.process.kill()


def stream_lines(first: bytes, rest: bytes) -> list[bytes]:
    """The lines of a chunked body whose first size line was ``first``."""
    data, size, rest = b"", int(first, 16), rest
    while size:
        data += rest[:size]
        rest = rest[size + 2:]
        head, _, rest = rest.partition(b"\r\n")
        size = int(head, 16)
    return data.splitlines()
