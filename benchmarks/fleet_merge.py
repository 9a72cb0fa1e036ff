#!/usr/bin/env python3
"""`gpuassist fleet` at scale: merging N node reports vs only JSON-parsing the same files, and memory.

Budget (docs/architecture.md §5): 1,000 reports merge in seconds, a small multiple of parsing the files
alone (the merge validates each report with the ingest reader, builds its model, compares ~17 facts and
groups its findings); memory holds a small row per node, never the reports.

    .venv/bin/python benchmarks/fleet_merge.py [--nodes 1000] [--stream 100000]

The fleet is written to a temporary folder as ``diagnose --format json`` writes reports (pretty-printed),
from simulated machines (a mix of healthy 2×A100 nodes, a few that differ in driver branch, PCIe width
or throttling, and some with a CPU-only wheel), each with its own node name. Times are the best of 3
rounds, alternating the two, in this process. Memory: tracemalloc's peak while merging, next to the
peak of holding the parsed reports in a list (what a merge that reads everything first would need).
``--stream N``: also merge N small compact reports from a generated JSON-lines stream (never on disk,
never all in memory) and print the peak, to show it stays flat as N grows.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from gpuassist.fleet import SourceNotes, iter_entries, merge
from gpuassist.fleet.render import render
from gpuassist.sim import simulate

MIX = [
    ("healthy-2x-a100-server", 0.85),
    ("cpu-only-build-rtx4090", 0.05),
    ("pcie-x1-riser", 0.04),
    ("gpu-thermal-slowdown-at-idle", 0.03),
    ("driver-too-old-r470-cu121", 0.03),
]


def write_fleet(folder: Path, nodes: int) -> int:
    templates = {name: simulate(name).to_json() for name, _ in MIX}
    total = 0
    for i in range(nodes):
        pick, acc = MIX[0][0], 0.0
        for name, share in MIX:  # deterministic spread of the mix over the node numbers
            acc += share
            if (i * 0.6180339887) % 1.0 < acc:
                pick = name
                break
        data = json.loads(json.dumps(templates[pick]))
        data["meta"]["node"] = {"name": f"gpu{i:05d}", "source": "slurm", "pseudonym": False, "keyed": False}
        if pick == "healthy-2x-a100-server" and i % 97 == 5:
            data["facts"]["driver.version"] = "535.183.01"
        text = json.dumps(data, indent=2) + "\n"
        (folder / f"{i}.json").write_text(text)
        total += len(text)
    return total


def parse_only(folder: Path) -> int:
    count = 0
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        with open(entry.path, "rb") as f:
            json.loads(f.read())
        count += 1
    return count


def merge_folder(folder: Path) -> Any:
    return merge(iter_entries([str(folder)]))


def best_of(rounds: int, *fns: Callable[[], Any]) -> list[float]:
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - t0)
    return best


def peak_of(fn: Callable[[], Any]) -> tuple[int, Any]:
    tracemalloc.start()
    try:
        value = fn()
        return tracemalloc.get_traced_memory()[1], value
    finally:
        tracemalloc.stop()


def hold_all(folder: Path) -> list[Any]:
    return [json.loads(Path(e.path).read_bytes()) for e in os.scandir(folder)]


class Stream(io.RawIOBase):
    """N compact reports as JSON lines, generated while read."""

    def __init__(self, count: int) -> None:
        self.lines: Iterator[bytes] = (self.report(i) for i in range(count))
        self.pending = b""

    @staticmethod
    def report(i: int) -> bytes:
        finding = {
            "id": "cpu_only_build",
            "severity": "error",
            "title": "CPU-only build",
            "explanation": "",
            "fix": "pip install torch --index-url https://download.pytorch.org/whl/cu124",
            "evidence": [],
        }
        data = {
            "schema": "gpuassist.report/1",
            "facts": {
                "driver.version": "550.54.14" if i % 101 else "535.1",
                "torch.version": "2.5.1+cu124",
                "torch.cuda_build": "12.4",
                "padding": "x" * 2000,
            },
            "findings": [finding] if i % 10 == 0 else [],
            "meta": {"node": {"name": f"gpu{i:06d}"}},
        }
        return json.dumps(data).encode() + b"\n"

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while len(self.pending) < len(buffer):
            line = next(self.lines, None)
            if line is None:
                break
            self.pending += line
        n = min(len(buffer), len(self.pending))
        buffer[:n] = self.pending[:n]
        self.pending = self.pending[n:]
        return n


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--stream", type=int, default=0, metavar="N", help="also merge an N-report JSON-lines stream")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gpuassist-fleet-bench-") as tmp:
        folder = Path(tmp)
        size = write_fleet(folder, args.nodes)
        parse_s, merge_s = best_of(3, lambda: parse_only(folder), lambda: merge_folder(folder))
        result = merge_folder(folder)
        t0 = time.perf_counter()
        for fmt in ("text", "json", "markdown", "html"):
            render(result, fmt)
        render_s = time.perf_counter() - t0
        merge_peak, _ = peak_of(lambda: merge_folder(folder))
        hold_peak, _ = peak_of(lambda: hold_all(folder))
    s = result.summary()
    print(f"fleet              : {args.nodes} reports, {size / 1e6:.1f} MB ({size / args.nodes / 1e3:.0f} kB each)")
    print(f"json-parse only    : {parse_s:.3f} s")
    print(
        f"gpuassist fleet    : {merge_s:.3f} s  = {merge_s / parse_s:.2f} × parsing alone "
        f"({merge_s / args.nodes * 1e3:.2f} ms per report)"
    )
    print(f"render 4 formats   : {render_s:.3f} s")
    print(
        f"verdict            : {s['with_errors']} with errors, {s['with_warnings']} with warnings, "
        f"{len(result.groups)} groups, {len(result.outliers)} outlier facts"
    )
    print(
        f"memory (peak)      : merge {merge_peak / 1e6:.1f} MB vs {hold_peak / 1e6:.1f} MB to hold the parsed "
        f"reports ({merge_peak / args.nodes / 1e3:.1f} kB per node)"
    )
    if args.stream:
        for n in (args.stream // 10, args.stream):
            t0 = time.perf_counter()
            res = merge(iter_entries(["-"], io.BufferedReader(Stream(n)), SourceNotes()))
            took = time.perf_counter() - t0
            peak, _ = peak_of(lambda n=n: merge(iter_entries(["-"], io.BufferedReader(Stream(n)), SourceNotes())))
            print(
                f"stream of {n:>7}   : {res.summary()['reports']} reports ({n * 2.3 / 1e3:.0f} MB of JSON lines, "
                f"generated while read) in {took:.1f} s; peak {peak / 1e6:.1f} MB = {peak / n:.0f} B per node"
            )
    return 0 if merge_s < 10 * max(parse_s, 0.1) and merge_s < 30 else 1


if __name__ == "__main__":
    sys.exit(main())
