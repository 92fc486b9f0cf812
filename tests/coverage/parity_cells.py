"""The measurement behind tools/parity_report.py, as pytest tests: one per (row, family) of the
coverage table, one per known bug, and one for the family list. Each records what it measured
with ``record_property`` under a ``parity_*`` key; the report's plugin (tools/parity_plugin.py)
writes those records to a JSON file, and the report formats them. So the tools import no test
module, and the table stays in one place.

Not named ``test_*``: the suite does not collect it. The report runs it as

    python -m pytest tests/coverage/parity_cells.py -p tools.parity_plugin --parity-json PATH
        [--parity-cases N] [--parity-seed S] [--parity-only SUBSTRING]

(without the plugin it runs too, with 12 cases, seed 0 and every row, and records nowhere).
A test fails only when the measurement itself breaks; a mismatch with NumPy is a measured
``FAIL``, not a failed test.
"""

from __future__ import annotations

import zlib

import jitcore as jc
from tests.coverage.draw import RandomDraw
from tests.coverage.edges import edge_draws
from tests.coverage.harness import Outcome, run_case
from tests.coverage.table import BUGS, CASES, FAMILIES

FAIL = "FAIL"
DEFAULTS = {"parity_cases": 12, "parity_seed": 0, "parity_only": ""}


def _option(config, name):
    value = config.getoption(name, None)
    return DEFAULTS[name] if value is None else value


def pytest_generate_tests(metafunc):
    if "case" in metafunc.fixturenames:
        only = _option(metafunc.config, "parity_only")
        cells = [(c, f) for c in CASES if only in c.name for f in FAMILIES]
        metafunc.parametrize("case, family", cells, ids=[f"{i}-{f}" for i, (_, f) in enumerate(cells)])
    if "bug" in metafunc.fixturenames:
        metafunc.parametrize("bug", BUGS, ids=[b.name for b in BUGS])


def measure_cell(case, family: str, n: int, seed: int) -> tuple[str, str]:
    """The cell's status (``FAIL`` or an ``Outcome``) and, for a failure, the first message:
    ``n`` seeded cases plus the edge batch."""
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


def test_families(record_property):
    record_property("parity_families", list(FAMILIES))


def test_cell(case, family, request, record_property):
    n, seed = _option(request.config, "parity_cases"), _option(request.config, "parity_seed")
    status, message = measure_cell(case, family, n, seed)
    record_property("parity_cell", {"case": case.name, "note": case.note, "family": family,
                                    "status": status, "message": message})


def test_bug(bug, record_property):
    """Does the bug's reproducer still fail (any exception: it may fail differently now)?"""
    try:
        bug.repro()
    except Exception:  # noqa: BLE001
        still = True
    else:
        still = False
    record_property("parity_bug", {"name": bug.name, "cases": list(bug.cases),
                                   "families": list(bug.families), "reason": bug.reason,
                                   "still": still})
