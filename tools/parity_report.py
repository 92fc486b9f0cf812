#!/usr/bin/env python
"""Parity with NumPy, function by function and dtype family by dtype family (issue #3).

Runs the coverage table of tests/coverage/ (the one tests/jitcore/test_numpy_coverage.py runs
under hypothesis) on a fixed, seeded set of cases per (function, family), plus the table's edge
batch (every dtype, the special values and shapes, every layout), and prints

    function | bool | signed | unsigned | float

with, in each cell:

- ``pass``: every drawn case matches NumPy (or both refuse it);
- ``FAIL``: a case differs from NumPy; ``FAIL (id)``: a known bug of the table's ``BUGS``
  (listed under the table, each a strict xfail in the suite) affects this row and family;
- ``unsupported``: jitcore raises ``UnsupportedError`` (or, for ``x.at``, has no such attribute);
- ``n/a``: NumPy itself refuses every case (e.g. ``bitwise_and`` of floats).

Then the totals per family: functions passing out of those NumPy accepts.

    python tools/parity_report.py [--cases N] [--seed S] [--only SUBSTRING] [--markdown]
                                  [--write-docs [PATH]]

``--write-docs`` puts the Markdown version into docs/numpy_support.md (between its
``parity-report`` markers), so the table there comes from the same run.

The measurement runs as pytest tests (tests/coverage/parity_cells.py, in a subprocess, with the
plugin tools/parity_plugin.py writing what each test measured to a JSON file): the table and its
harness stay test code, and no tool imports a test module.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs" / "numpy_support.md"
BEGIN, END = "<!-- parity-report:begin -->", "<!-- parity-report:end -->"
CELLS = "tests/coverage/parity_cells.py"
# The statuses a cell is measured as (tests/coverage/harness.py's ``Outcome``, and FAIL).
PASS, NA, UNSUPPORTED, KNOWN_BUG, FAIL = "pass", "n/a", "unsupported", "known bug", "FAIL"


@dataclass(frozen=True)
class Row:
    name: str
    note: str


def measure(cases: int, seed: int, only: str) -> dict[str, list]:
    """Run the measurement; its records by kind (``families``, ``cell``, ``bug``), in order."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "parity.json"
        command = [sys.executable, "-m", "pytest", CELLS, "-p", "tools.parity_plugin",
                   "-p", "no:cacheprovider", "--parity-json", str(out), "--parity-cases", str(cases),
                   "--parity-seed", str(seed), "--parity-only", only]
        run = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
        if run.returncode != 0 or not out.exists():
            raise SystemExit(f"the measurement failed ({' '.join(command)}):\n"
                               f"{(run.stdout + run.stderr)[-4000:]}")
        records = json.loads(out.read_text())
    by_kind: dict[str, list] = {"families": [], "cell": [], "bug": []}
    for record in records:
        by_kind[record["key"]].append(record["value"])
    return by_kind


def print_table(rows, families, markdown: bool) -> None:
    width = max([len("function")] + [len(c.name) + (2 if markdown else 0) for c, _ in rows])
    cell = max([11] + [len(c) for _, cells in rows for c in cells])
    head = ["function".ljust(width)] + [f.ljust(cell) for f in families]
    if markdown:
        head.append("notes")
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("-" * (len(h) + 2) for h in head) + "|")
    for case, cells in rows:
        name = f"`{case.name}`" if markdown else case.name
        line = [name.ljust(width)] + [c.ljust(cell) for c in cells]
        if markdown:
            line.append(case.note.replace("|", "\\|"))
        print("| " + " | ".join(line) + " |")


def print_totals(totals, n_rows: int, markdown: bool) -> None:
    if markdown:
        print("| family | pass | of (NumPy accepts) | unsupported | failing | n/a |")
        print("|---|---|---|---|---|---|")
        for family, passed, applicable, unsupported, failing, na in totals:
            print(f"| {family} | {passed} | {applicable} | {unsupported} | {failing} | {na} |")
        print(f"| all | {sum(t[1] for t in totals)} | {sum(t[2] for t in totals)} | "
              f"{sum(t[3] for t in totals)} | {sum(t[4] for t in totals)} | {sum(t[5] for t in totals)} |")
        return
    print("totals (functions passing / functions NumPy accepts for the family; unsupported, failing):")
    for family, passed, applicable, unsupported, failing, na in totals:
        print(f"  {family:<9} {passed:>4} / {applicable:<4} pass   {unsupported:>3} unsupported   "
              f"{failing:>3} failing   {na:>3} n/a")
    print(f"  {'all':<9} {sum(t[1] for t in totals):>4} / {sum(t[2] for t in totals):<4} pass   "
          f"({n_rows} functions)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=12, help="cases per function and family")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", default="", help="only functions whose name contains this")
    parser.add_argument("--markdown", action="store_true", help="a Markdown table (for the docs)")
    parser.add_argument("--write-docs", metavar="PATH", nargs="?", const=str(DOCS), default=None,
                        help=f"put the Markdown tables into PATH (default {DOCS.relative_to(REPO)}) "
                             f"between its {BEGIN!r} and {END!r} lines")
    args = parser.parse_args(argv)
    if args.write_docs:
        args.markdown = True
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            status = report(args)
        text = buffer.getvalue()
        print(text, end="")
        path = Path(args.write_docs)
        doc = path.read_text()
        head, _, rest = doc.partition(BEGIN + "\n")
        _, _, tail = rest.partition(END + "\n")
        body = "\n".join(line for line in text.splitlines() if not line.startswith("("))
        path.write_text(f"{head}{BEGIN}\n{body.strip()}\n{END}\n{tail}")
        print(f"wrote {path}")
        return status
    return report(args)


def report(args) -> int:
    start = time.perf_counter()
    measured = measure(args.cases, args.seed, args.only)
    families = measured["families"][0]
    bugs = measured["bug"]
    rows, failures = [], []
    for cell in measured["cell"]:
        if not rows or rows[-1][0].name != cell["case"]:
            rows.append((Row(cell["case"], cell["note"]), []))
        status, family = cell["status"], cell["family"]
        hit = status == KNOWN_BUG
        known = [b["name"] for b in bugs if cell["case"] in b["cases"] and family in b["families"]
                 and b["still"] and (hit or status != NA)]
        if known and status in (PASS, KNOWN_BUG, NA):
            status = FAIL + " (" + ", ".join(known) + ")"
        elif status == FAIL:
            failures.append((cell["case"], family, cell["message"]))
        rows[-1][1].append(status)

    print(f"jitcore parity with NumPy {np.__version__}: {args.cases} cases per cell, seed {args.seed}")
    print()
    print_table(rows, families, args.markdown)
    print()
    totals = []
    for j, family in enumerate(families):
        column = [cells[j] for _, cells in rows]
        totals.append((family, column.count(PASS), sum(c != NA for c in column),
                       column.count(UNSUPPORTED), sum(c.startswith(FAIL) for c in column),
                       column.count(NA)))
    print_totals(totals, len(rows), args.markdown)
    if failures:
        print()
        print("failures outside the known bugs:")
        for name, family, message in failures:
            print(f"  {name} [{family}]: {message}")
    shown = [b for b in bugs if not args.only or any(row.name in b["cases"] for row, _ in rows)]
    if shown:
        print()
        print("known bugs (FAIL (id) above; BUGS in tests/coverage/bugs.py, strict xfails "
              "in the suite):")
        for b in shown:
            state = "" if b["still"] else " [FIXED: remove it from BUGS]"
            name = f"`{b['name']}`" if args.markdown else b["name"]
            print(f"{'- ' if args.markdown else '  '}{name}{state}: {b['reason']}")
    print()
    print(f"({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
