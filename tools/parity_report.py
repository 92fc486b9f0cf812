#!/usr/bin/env python
"""Parity with NumPy, function by function and dtype family by dtype family (issue #3).

Runs the table of tests/jitcore/coverage_table.py (the one tests/jitcore/test_numpy_coverage.py
runs under hypothesis) on a fixed, seeded set of cases per (function, family), plus the table's
edge batch (every dtype, the special values and shapes, every layout), and prints

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
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import time
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
DOCS = REPO / "docs" / "numpy_support.md"
BEGIN, END = "<!-- parity-report:begin -->", "<!-- parity-report:end -->"

import numpy as np  # noqa: E402

import jitcore as jc  # noqa: E402
from tests.jitcore.coverage_table import (  # noqa: E402
    BUGS,
    CASES,
    FAMILIES,
    Outcome,
    RandomDraw,
    edge_draws,
    run_case,
)

FAIL = "FAIL"


def measure_cell(case, family: str, n: int, seed: int) -> tuple[str, str]:
    """The cell's status and, for a failure, the first message."""
    seen: list[str] = []
    first_failure = ""
    draws = [RandomDraw(zlib.crc32(f"{seed}/{case.name}/{family}/{i}".encode())) for i in range(n)]
    for draw in draws + edge_draws(case.name, family):
        try:
            arrays, params = case.gen(draw, family)
            seen.append(run_case(case, arrays, params))
        except jc.UnsupportedError as e:
            seen.append(Outcome.UNSUPPORTED)
            first_failure = first_failure or str(e).splitlines()[0]
        except AttributeError as e:
            if family in case.unsupported and case.raises is AttributeError:
                seen.append(Outcome.UNSUPPORTED)
            else:
                seen.append(FAIL)
                first_failure = first_failure or f"AttributeError: {e}"
        except Exception as e:  # noqa: BLE001  (a mismatch or a crash: both are failures)
            seen.append(FAIL)
            first_failure = first_failure or f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
    for status in (FAIL, Outcome.KNOWN_BUG, Outcome.UNSUPPORTED, Outcome.PASS):
        if status in seen:
            return status, first_failure if status == FAIL else ""
    return Outcome.NA, ""


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


def known_bugs() -> dict[str, bool]:
    """Each bug of the table: does its reproducer still fail?"""
    still = {}
    for b in BUGS:
        try:
            b.repro()
        except b.raises:
            still[b.name] = True
        except Exception:  # noqa: BLE001  (it fails differently now: still a bug)
            still[b.name] = True
        else:
            still[b.name] = False
    return still


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
    bugs = known_bugs()
    families = list(FAMILIES)
    rows, failures = [], []
    for case in CASES:
        if args.only and args.only not in case.name:
            continue
        cells = []
        for family in families:
            status, message = measure_cell(case, family, args.cases, args.seed)
            hit = status == Outcome.KNOWN_BUG
            known = [b.name for b in BUGS if case.name in b.cases and family in b.families
                     and bugs[b.name] and (hit or status != Outcome.NA)]
            if known and status in (Outcome.PASS, Outcome.KNOWN_BUG, Outcome.NA):
                status = FAIL + " (" + ", ".join(known) + ")"
            elif status == FAIL:
                failures.append((case.name, family, message))
            cells.append(status)
        rows.append((case, cells))

    print(f"jitcore parity with NumPy {np.__version__}: {args.cases} cases per cell, seed {args.seed}")
    print()
    print_table(rows, families, args.markdown)
    print()
    totals = []
    for j, family in enumerate(families):
        column = [cells[j] for _, cells in rows]
        totals.append((family, column.count(Outcome.PASS), sum(c != Outcome.NA for c in column),
                       column.count(Outcome.UNSUPPORTED), sum(c.startswith(FAIL) for c in column),
                       column.count(Outcome.NA)))
    print_totals(totals, len(rows), args.markdown)
    if failures:
        print()
        print("failures outside the known bugs:")
        for name, family, message in failures:
            print(f"  {name} [{family}]: {message}")
    shown = [b for b in BUGS if not args.only or any(c.name in b.cases for c, _ in rows)]
    if shown:
        print()
        print("known bugs (FAIL (id) above; BUGS in tests/jitcore/coverage_table.py, strict xfails "
              "in the suite):")
        for b in shown:
            state = "" if bugs[b.name] else " [FIXED: remove it from BUGS]"
            print(f"{'- ' if args.markdown else '  '}{'`' + b.name + '`' if args.markdown else b.name}"
                  f"{state}: {b.reason}")
    print()
    print(f"({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
