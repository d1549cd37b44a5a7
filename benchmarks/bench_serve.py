"""Load on ``mtgcontrol serve`` against ``mtgcontrol batch`` on the same snapshots.

    python benchmarks/bench_serve.py [--requests 2000] [--clients 8] [--workers 2]
                                     [--rounds 2] [--seed 5] [--realistic]
    python benchmarks/bench_serve.py --costs   # a grounding's fixed cost, in-process

A bounded load test on loopback only: the server is started here on a free port of
127.0.0.1 and stopped at the end.  Each round runs, alternated:

1. ``mtgcontrol serve --port 0 --workers W``; once it listens, ``--clients`` clients
   (keep-alive connections, one request at a time each) send the ``--requests``
   snapshots of the corpus, each once, as ``POST /adjudicate``; every answer must be
   a 200 whose ruling equals batch's for the same line (else it counts as an error);
   then SIGTERM.  Figures: errors, p50/p90/p99/max latency, throughput (snapshots/s
   over the load, from the first request sent to the last answer), CPU seconds of
   the server's processes during the load and over their whole life, and of the
   clients.
2. ``mtgcontrol batch CORPUS -o OUT --workers W``: wall time of the whole command
   (start-up included, as a user runs it), snapshots/s, CPU seconds of its processes.

The corpus is ``make_corpus.py REQUESTS SEED`` (mixed 3-12-object snapshots; with
``--realistic`` the 20-object ``realistic`` ones).  CPU time is read from /proc and
from this process's reaped children (it adopts orphans as a subreaper, so the fork
servers' and workers' time counts), so a loaded machine changes the CPU figures less
than the wall-clock ones; the load average is printed with each round.  Figures only:
no assertion but correctness (a non-200 or a differing ruling is an error).
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import importlib.util
import json
import os
import random
import resource
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
TICKS = os.sysconf("SC_CLK_TCK")
PR_SET_CHILD_SUBREAPER = 36


def corpus(n: int, seed: int, realistic: bool) -> list[bytes]:
    spec = importlib.util.spec_from_file_location("make_corpus", HERE / "make_corpus.py")
    assert spec is not None and spec.loader is not None
    make = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make)
    rng = random.Random(seed)
    docs = [make.realistic(rng, i + 1) if realistic else make.Builder(rng, i + 1).build()
            for i in range(n)]
    return [json.dumps(d).encode() for d in docs]


def command() -> list[str]:
    exe = Path(sys.executable).with_name("mtgcontrol")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "mtgcontrol.cli"]


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def tree_cpu(root: int, alone: bool = False) -> float:
    """CPU seconds of ``root`` and its living descendants, with the children each reaped
    (``alone``: of ``root`` itself only)."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry)] = int(fields[1])
        times[int(entry)] = sum(int(x) for x in fields[11:15]) / TICKS
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += times.get(pid, 0.0)
        if not alone:
            todo += [p for p, parent in parents.items() if parent == pid]
    return total


def reaped_cpu() -> float:
    """CPU seconds of every child this process has reaped, orphans adopted included."""
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG) == (0, 0):
                break
        except ChildProcessError:
            break
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def wait_all_children(deadline: float = 30.0) -> None:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.05)


async def client(host: str, port: int, bodies: list[bytes], expected: list[object],
                 order: list[int], latencies: list[float], errors: list[str]) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    try:
        while order:
            i = order.pop()
            body = bodies[i]
            head = (f"POST /adjudicate HTTP/1.1\r\nhost: {host}\r\ncontent-type: "
                    f"application/json\r\ncontent-length: {len(body)}\r\n\r\n").encode()
            start = time.perf_counter()
            writer.write(head + body)
            await writer.drain()
            status = int((await reader.readline()).split()[1])
            length = 0
            while (line := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            answer = await reader.readexactly(length)
            latencies.append(time.perf_counter() - start)
            if status != 200:
                errors.append(f"snapshot {i + 1}: HTTP {status}: {answer[:200]!r}")
            elif json.loads(answer) != expected[i]:
                errors.append(f"snapshot {i + 1}: a ruling other than batch's")
    finally:
        writer.close()


def start_server(workers: int) -> tuple[subprocess.Popen[str], int]:
    server = subprocess.Popen([*command(), "serve", "--port", "0", "--workers", str(workers)],
                              stderr=subprocess.PIPE, text=True)
    assert server.stderr is not None
    line = server.stderr.readline()
    if "listening on" not in line:
        raise SystemExit(f"the server did not start: {line}")
    port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
    return server, port


def serve_round(bodies: list[bytes], expected: list[object], clients: int,
                workers: int) -> dict[str, object]:
    cpu_before = reaped_cpu()
    server, port = start_server(workers)
    try:
        latencies: list[float] = []
        errors: list[str] = []
        warm = list(range(min(2 * workers, len(bodies))))
        asyncio.run(client("127.0.0.1", port, bodies, expected, warm, [], errors))
        order = list(range(len(bodies)))[::-1]
        mine = resource.getrusage(resource.RUSAGE_SELF)
        busy = tree_cpu(server.pid)
        own = tree_cpu(server.pid, alone=True)
        start = time.perf_counter()

        async def run() -> None:
            await asyncio.gather(*(client("127.0.0.1", port, bodies, expected, order,
                                          latencies, errors) for _ in range(clients)))

        asyncio.run(run())
        seconds = time.perf_counter() - start
        busy = tree_cpu(server.pid) - busy
        own = tree_cpu(server.pid, alone=True) - own
        after = resource.getrusage(resource.RUSAGE_SELF)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health") as answer:
            health = json.load(answer)
        client_cpu = (after.ru_utime + after.ru_stime) - (mine.ru_utime + mine.ru_stime)
    finally:
        server.send_signal(signal.SIGTERM)
        stopping = time.perf_counter()
        code = server.wait(30)
        stopped = time.perf_counter() - stopping
        wait_all_children()
    latencies.sort()

    def pct(p: float) -> float:
        return 1000 * latencies[min(len(latencies) - 1, int(p * len(latencies)))]

    return {"requests": len(latencies), "errors": len(errors), "first_errors": errors[:3],
            "seconds": seconds, "per_second": len(latencies) / seconds,
            "p50_ms": pct(0.50), "p90_ms": pct(0.90), "p99_ms": pct(0.99),
            "max_ms": 1000 * latencies[-1], "server_cpu_load": busy, "http_cpu": own,
            "per_grounding": health["answered"] / max(health["jobs"], 1),
            "server_cpu_life": reaped_cpu() - cpu_before, "client_cpu": client_cpu,
            "exit": code, "stop_seconds": stopped}


def batch_round(path: Path, out: Path, workers: int, n: int) -> dict[str, object]:
    cpu_before = reaped_cpu()
    start = time.perf_counter()
    subprocess.run([*command(), "batch", str(path), "-o", str(out), "--workers", str(workers)],
                   check=False, stderr=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    wait_all_children()
    return {"seconds": seconds, "per_second": n / seconds, "cpu": reaped_cpu() - cpu_before}


def grounding_costs(bodies: list[bytes], n: int = 100) -> tuple[float, float]:
    """CPU milliseconds per snapshot in this process, warm: judged one per grounding (as
    a lone request is) and ``n`` per grounding (as a batch chunk is), on distinct
    snapshots (the engine's cache never answers)."""
    from mtgcontrol.batch.judge import Settings, judge_lines

    lines = [(i + 1, b) for i, b in enumerate(bodies)]
    judge_lines(lines[-10:], Settings())  # warm: the program parsed
    start = time.process_time()
    for line in lines[:n]:
        judge_lines([line], Settings())
    alone = (time.process_time() - start) / n
    start = time.process_time()
    judge_lines(lines[n:2 * n], Settings(batch_size=n))
    together = (time.process_time() - start) / n
    return 1000 * alone, 1000 * together


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--realistic", action="store_true")
    parser.add_argument("--costs", action="store_true",
                        help="only the engine's CPU time per snapshot, one and 100 per "
                             "grounding (what a request costs alone and in a batch chunk)")
    args = parser.parse_args(argv)
    if args.costs:
        alone, together = grounding_costs(corpus(max(args.requests, 300), args.seed,
                                                 args.realistic))
        print(f"CPU per snapshot: {alone:.1f} ms judged alone, {together:.1f} ms 100 per "
              f"grounding; load {load()}")
        return 0
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    bodies = corpus(args.requests, args.seed, args.realistic)
    with tempfile.TemporaryDirectory() as tmp:
        path, out = Path(tmp) / "corpus.jsonl", Path(tmp) / "out.jsonl"
        path.write_bytes(b"".join(b + b"\n" for b in bodies))
        print(f"{args.requests} snapshots ({'realistic' if args.realistic else 'mixed'}, "
              f"seed {args.seed}), {args.clients} clients, {args.workers} workers; "
              f"load {load()}", flush=True)
        batch_round(path, out, args.workers, len(bodies))  # the reference rulings
        expected = [json.loads(line) for line in out.read_bytes().splitlines()]
        for r in range(1, args.rounds + 1):
            s = serve_round(bodies, expected, args.clients, args.workers)
            print(f"round {r} serve: {s['requests']} requests, {s['errors']} errors, "
                  f"{s['per_second']:.1f}/s in {s['seconds']:.2f} s; latency p50 "
                  f"{s['p50_ms']:.1f} ms, p90 {s['p90_ms']:.1f}, p99 {s['p99_ms']:.1f}, max "
                  f"{s['max_ms']:.1f}; {s['per_grounding']:.1f} snapshots per grounding; "
                  f"CPU server {s['server_cpu_load']:.1f} s during the load (HTTP process "
                  f"{s['http_cpu']:.1f} s; {s['server_cpu_life']:.1f} s in its life), clients "
                  f"{s['client_cpu']:.1f} s; SIGTERM: exit {s['exit']} in "
                  f"{s['stop_seconds']:.2f} s; load {load()}", flush=True)
            for e in s["first_errors"]:  # type: ignore[attr-defined]
                print(f"  error: {e}")
            b = batch_round(path, out, args.workers, len(bodies))
            print(f"round {r} batch: {b['per_second']:.1f}/s in {b['seconds']:.2f} s "
                  f"(start-up included); CPU {b['cpu']:.1f} s; load {load()}; serve/batch "
                  f"throughput {s['per_second'] / b['per_second']:.2f}", flush=True)  # type: ignore[operator]
    return 0


if __name__ == "__main__":
    sys.exit(main())
