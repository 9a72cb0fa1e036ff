#!/usr/bin/env python3
"""Reading a long log with ``gpuassist diagnose --from``: the symptom-pattern pass, with and without the needle
prefilter (gpuassist/ingest/needles.py), and the whole ``--from`` read.

    .venv/bin/python benchmarks/ingest_speed.py [--lines 20000] [--repeat 3]

The log is every real text of the corpus (tests/data/pastes, tests/data/errors) concatenated and repeated to
``--lines`` lines: dense in error messages, so an upper bound on the pattern work of a real log. The reference
is the same code trying every pattern on every line (``match_lines(..., prefilter=False)``), run in this
process; the two must return identical matches (the script fails otherwise). Prints the best of ``--repeat``
runs of each and the ratio.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from gpuassist.ingest import load
from gpuassist.ingest.errors import match_lines
from gpuassist.ingest.text import clean_lines

ROOT = Path(__file__).resolve().parents[1]


def corpus_log(n_lines: int) -> str:
    lines: list[str] = []
    for name in ("errors", "pastes"):
        for path in sorted((ROOT / "tests" / "data" / name).glob("*.txt")):
            lines += path.read_text(encoding="utf-8", errors="replace").splitlines()
    out: list[str] = []
    while len(out) < n_lines:
        out += lines
    return "\n".join(out[:n_lines])


def best_of(repeat: int, fn: Callable[[], object]) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    text = corpus_log(args.lines)
    lines = clean_lines(text)
    match_lines(lines[:10])  # compile the patterns and needles outside the timing
    ref_s, ref = best_of(args.repeat, lambda: match_lines(lines, prefilter=False))
    new_s, new = best_of(args.repeat, lambda: match_lines(lines))
    load_s, _ = best_of(args.repeat, lambda: load(text.encode(), label="log"))
    print(f"log: {len(lines)} lines, {len(text) / 1e6:.1f} MB")
    print(f"pattern pass, every pattern on every line (reference): {ref_s:7.3f} s")
    print(f"pattern pass, needle prefilter:                        {new_s:7.3f} s   ratio {new_s / ref_s:.3f}")
    print(f"whole --from read (load) with the prefilter:           {load_s:7.3f} s")
    if new != ref:
        print("FAIL: the prefiltered pass returned different matches than the reference")
        return 1
    print("matches identical to the reference")
    return 0


if __name__ == "__main__":
    sys.exit(main())
