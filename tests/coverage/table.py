"""The NumPy coverage table of issue #3: every function of item 3, by family, with its known bugs.

Run by tests/jitcore/test_numpy_coverage.py (hypothesis draws the cases, plus the fixed edge batch)
and, through tests/coverage/parity_cells.py, by tools/parity_report.py (a seeded generator draws
them), so that the suite and the measurement run exactly the same table. The package:

- ``draw.py``: the dtype families and ``Draw`` (hypothesis, seeded); ``edges.py``: the edge batch;
- ``compare.py``: ``Tol`` and ``compare``; ``harness.py``: ``Case`` and ``run_case``;
- ``generators.py``: the shared argument generators and shape pools;
- one module of rows per family, below, each with the ``NOTES`` docs/numpy_support.md shows;
- ``bugs.py``: the known bugs, each a strict xfail with a reproducer.
"""

from __future__ import annotations

from tests.coverage import (
    creation,
    everyday,
    float_math,
    indexing,
    products,
    reductions,
    shapes,
    sorting,
    ufuncs,
    updates,
)
from tests.coverage.bugs import BUGS
from tests.coverage.draw import FAMILIES
from tests.coverage.harness import Case

__all__ = ["BUGS", "CASES", "FAMILIES"]

FAMILY_TABLES = (ufuncs, float_math, reductions, indexing, shapes, products, creation, updates, sorting,
                 everyday)

CASES: list[Case] = [row for table in FAMILY_TABLES for row in table.CASES]
_BY_NAME = {row.name: row for row in CASES}
assert len(_BY_NAME) == len(CASES), "two rows share a name"

for _table in FAMILY_TABLES:
    for _name, _note in getattr(_table, "NOTES", {}).items():
        assert _name in _BY_NAME, _name
        _BY_NAME[_name].note = _note

for _bug in BUGS:
    for _name in _bug.cases:
        assert _name in _BY_NAME, _name
        _BY_NAME[_name].bugs.append(_bug)
