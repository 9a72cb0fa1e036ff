"""How often gpuassist names the right cause: every simulated scenario and every real paste / error text.

    .venv/bin/python benchmarks/verdict_accuracy.py [--verbose]

Scenarios (gpuassist.sim) are checked against their own ``expect`` (first id, ids, absent, no_error); the
corpora tests/data/pastes and tests/data/errors against their index.json (the verdict each public thread
established). Prints one row per expected id: how many cases of each kind expect it and how many came out
right ("healthy" = cases where no error may be claimed), then the totals; then the real texts' score per kind
of input (collect_env, kernel log, nvidia-smi, container, install session, REPL, ...: the index's ``kind``,
assigned by hand, not by gpuassist) and per collection batch (``batch``: texts collected after the rules
were written are held out from rule-writing), and every miss.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

from gpuassist.ingest.corpus import check, entries, held_out_scores

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("scenarios", "pastes", "errors")


def _batch_order(batch: str) -> tuple[int, str]:
    """Batches in collection order: by the first integer in the name (after-rules-9 before after-rules-10)."""
    number = re.search(r"\d+", batch)
    return (int(number.group()) if number else -1, batch)


def _scenarios() -> list[tuple[str, bool, str]]:
    from gpuassist.findings import Severity
    from gpuassist.sim import list_scenarios, simulate

    out = []
    for s in list_scenarios():
        exp = s.expect
        key = exp.get("first") or "(healthy)"
        try:
            report = simulate(s.name)
        except Exception as exc:  # a broken scenario is a miss, not a crash of the benchmark
            out.append((key, False, f"{s.name}: {type(exc).__name__}: {exc}"))
            continue
        ids = [f.id for f in report.findings]
        problems = []
        if exp.get("first") and (not ids or ids[0] != exp["first"]):
            problems.append(f"first {ids[:3]}")
        problems += [f"missing {i}" for i in exp.get("ids", []) if i not in ids]
        problems += [f"claims {i}" for i in exp.get("absent", []) if i in ids]
        if exp.get("no_error") and any(f.severity is Severity.ERROR for f in report.findings):
            problems.append("claims an error")
        out.append((key, not problems, f"{s.name}: {', '.join(problems)}"))
    return out


CORPUS_ROWS: list[tuple[str, str, bool]] = []  # (input kind, batch, right) of every real text


def _corpus(name: str) -> list[tuple[str, bool, str]]:
    directory = ROOT / "tests" / "data" / name
    out = []
    for e in entries(directory):
        v = check(directory, e)
        key = e.get("expect_first") or ("(rejected)" if e.get("reject") else "(healthy)")
        note = "; ".join(v.problems) + (f" [known rule bug: {v.known_rule_bug}]" if v.known_rule_bug else "")
        out.append((key, v.ok, f"{e['file']}: {note}"))
        CORPUS_ROWS.append((str(e.get("kind", name)), str(e.get("batch", "before-rules")), v.ok))
    return out


def _print_breakdown(title: str, rows: list[tuple[str, bool]]) -> None:
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for key, ok in rows:
        counts[key][0] += 1
        counts[key][1] += int(ok)
    print(f"\n{title}")
    for key in sorted(counts):
        n, right = counts[key]
        print(f"  {key:24} {right:>4}/{n:<4} {100 * right / n:5.1f} %")
    n, right = len(rows), sum(ok for _, ok in rows)
    if n:
        print(f"  {'all':24} {right:>4}/{n:<4} {100 * right / n:5.1f} %")


def _print_held_out() -> None:
    """The score each held-out batch got when it was collected, before any rule was changed because of it (recorded
    in the corpus indexes at that moment; today's score of the same batch is in the tables above and is no longer
    held out). Per kind of input too, over all batches, since the goal is per kind."""
    recorded = {
        **held_out_scores(ROOT / "tests" / "data" / "pastes"),
        **held_out_scores(ROOT / "tests" / "data" / "errors"),
    }
    if not recorded:
        return
    print("\nheld-out batches, scored when collected (before any change made because of them):")
    per_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    right = total = 0
    for batch, scores in sorted(recorded.items(), key=lambda kv: _batch_order(kv[0])):
        if "before_fixes" not in scores:
            print(f"  {batch:24} not scored yet")
            continue
        for kind, cell in scores["before_fixes"].items():
            r, n = (int(x) for x in str(cell).split()[0].split("/"))
            if kind == "all":
                right, total = right + r, total + n
                print(f"  {batch:24} {r:>4}/{n:<4} {100 * r / n:5.1f} %")
            else:
                per_kind[kind][0] += r
                per_kind[kind][1] += n
    print(f"  {'all':24} {right:>4}/{total:<4} {100 * right / total:5.1f} %")
    print("\nheld-out, by kind of input (all batches, scored when collected):")
    for kind in sorted(per_kind):
        r, n = per_kind[kind]
        print(f"  {kind:24} {r:>4}/{n:<4} {100 * r / n:5.1f} %")


def main(argv: list[str]) -> int:
    results = {"scenarios": _scenarios(), "pastes": _corpus("pastes"), "errors": _corpus("errors")}
    table: dict[str, dict[str, list[int]]] = defaultdict(lambda: {k: [0, 0] for k in KINDS})
    for kind, rows in results.items():
        for key, ok, _ in rows:
            table[key][kind][0] += 1
            table[key][kind][1] += int(ok)

    def cell(c: list[int]) -> str:
        return f"{c[1]}/{c[0]}" if c[0] else "-"

    width = max(len(k) for k in table) + 2
    print(f"{'expected first id':{width}} {'scenarios':>10} {'pastes':>8} {'errors':>8} {'right':>8}")
    print("-" * (width + 38))
    for key in sorted(table, key=lambda k: (k.startswith("("), k)):
        row = table[key]
        total = [sum(row[k][0] for k in KINDS), sum(row[k][1] for k in KINDS)]
        print(
            f"{key:{width}} {cell(row['scenarios']):>10} {cell(row['pastes']):>8} {cell(row['errors']):>8} "
            f"{cell(total):>8}"
        )
    print("-" * (width + 38))
    totals = {k: [len(results[k]), sum(ok for _, ok, _ in results[k])] for k in KINDS}
    grand = [sum(t[0] for t in totals.values()), sum(t[1] for t in totals.values())]
    print(
        f"{'total':{width}} {cell(totals['scenarios']):>10} {cell(totals['pastes']):>8} "
        f"{cell(totals['errors']):>8} {cell(grand):>8}"
    )
    _print_breakdown("real texts by kind of input (all batches):", [(k, ok) for k, _, ok in CORPUS_ROWS])
    _print_breakdown("real texts by collection batch:", [(b, ok) for _, b, ok in CORPUS_ROWS])
    for batch in sorted({b for _, b, _ in CORPUS_ROWS} - {"before-rules"}, key=_batch_order):
        _print_breakdown(f"batch {batch} by kind of input:", [(k, ok) for k, b, ok in CORPUS_ROWS if b == batch])
    _print_held_out()
    misses = [(kind, note) for kind, rows in results.items() for _, ok, note in rows if not ok]
    if misses:
        print("\nmisses:")
        for kind, note in misses:
            print(f"  [{kind}] {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
