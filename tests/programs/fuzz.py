"""The long random-program run as a command: draw programs from tests/programs/generator.py
with a seed, check each against NumPy and the unfused pipeline (tests/programs/differential.py),
and log every failure (its program and error) instead of stopping at the first one.

    PYTHONPATH=. python -m tests.programs.fuzz --seed 1 --count 500 [--max-statements 12] [--log F]
        [--order-visible] [--favour unrolled,lanes]

Unlike the hypothesis test, a failure is not shrunk: the log holds the whole program (its
``describe(full=True)``, every input element), to be cut down by hand or replayed through
``test_random_programs._program``.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback

from hypothesis import HealthCheck, given, settings
from hypothesis import seed as hseed

from tests.programs.differential import check
from tests.programs.generator import _Builder, programs


def main(argv=None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--count", type=int, default=200)
    p.add_argument("--max-statements", type=int, default=8)
    p.add_argument("--log", default=None, help="append failures here (default: stdout)")
    p.add_argument("--order-visible", action="store_true",
                   help="float inputs of mixed magnitudes too: sums whose order shows in their bits")
    p.add_argument("--favour", default="",
                   help="statement kinds (comma-separated) drawn four times as often as the others")
    p.add_argument("--slow", type=float, default=None,
                   help="also log each program that takes longer than this many seconds")
    a = p.parse_args(argv)
    favoured = tuple(k for k in a.favour.split(",") if k)
    statements = _Builder.STATEMENTS + favoured * 3 if favoured else None
    out = open(a.log, "a") if a.log else sys.stdout
    stats = {"ran": 0, "failed": 0}
    start = time.time()

    @hseed(a.seed)
    @settings(max_examples=a.count, database=None, deadline=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(programs(max_statements=a.max_statements, order_visible=a.order_visible, statements=statements))
    def one(program):
        stats["ran"] += 1
        began = time.time()
        try:
            check(program)
            if a.slow is not None and time.time() - began > a.slow:
                print(f"=== SLOW seed={a.seed} #{stats['ran']} {time.time() - began:.1f} s\n"
                      f"{program.describe()}", file=out, flush=True)
        except Exception as e:  # every failure is logged; the run goes on
            stats["failed"] += 1
            kind = type(e).__name__
            last = str(e).strip().splitlines()[-1][:300] if str(e).strip() else ""
            print(f"=== FAILURE seed={a.seed} #{stats['ran']} {kind}: {last}\n{program.describe(full=True)}\n"
                  f"{''.join(traceback.format_exception(e)[-6:])}", file=out, flush=True)

    one()
    print(f"seed {a.seed}: {stats['ran']} programs, {stats['failed']} failures, "
          f"{time.time() - start:.0f} s", file=out, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
