"""tools/bench.py --suite programs at a tiny size: every program gets its row, the ones that run
say so, and a wrong answer is marked wrong rather than timed as a win (speed is never asserted)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]

sys.path.insert(0, str(REPO / "tools"))
try:
    import bench_programs as bp
finally:
    sys.path.pop(0)


def test_programs_suite_at_a_tiny_size(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [str(REPO), env.get("PYTHONPATH", "")] if p)
    path = tmp_path / "programs.json"
    command = [sys.executable, "tools/bench.py", "--suite", "programs", "--size", "1000", "--repeat", "1",
               "--json", str(path)]
    result = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "tools/bench.py --suite programs --size 1000 --repeat 1" in out and "load average" in out
    rows = [[c.strip() for c in line.split("|")[1:-1]] for line in out.splitlines() if line.startswith("| ")]
    assert rows[0] == bp.PROGRAM_HEADER
    table = {r[0]: dict(zip(rows[0], r, strict=True)) for r in rows[1:]}
    assert set(table) == {p.title for p in bp.PROGRAMS}
    for p in bp.PROGRAMS:
        row = table[p.title]
        if p.random:  # fresh draws per call are another branch's work: either answer is reported
            assert row["runs under jit"] in ("yes", "wrong"), row
        else:
            assert row["runs under jit"] == "yes", row
            assert float(row["jitcore ms"]) > 0 and row["numpy/jc"].endswith("x"), row
        assert float(row["numpy ms"]) > 0, row
        assert row["numba ms"] in ("not installed", "n/a") or float(row["numba ms"].split()[0]) > 0, row
    (section,) = json.loads(path.read_text())["sections"]
    assert section["key"] == "programs" and len(section["records"]) == len(bp.PROGRAMS)


def test_a_wrong_answer_is_not_the_same_result():
    x = np.linspace(0, 1, 5)
    assert bp.same_result((x, np.float64(2.0)), (x.copy(), np.float64(2.0)))
    assert not bp.same_result((x, np.float64(2.0)), (x, np.float64(2.0 + 1e-6)))
    assert not bp.same_result(x.astype(np.float32), x)  # dtype
    assert not bp.same_result(x[:4], x)  # shape
    assert not bp.same_result((x,), (x, x))  # number of results
    assert bp.same_result(np.array([np.nan, 1.0]), np.array([np.nan, 1.0]))


def test_a_random_program_that_repeats_its_draws_is_wrong():
    """What the bench sees of a jitted Monte-Carlo whose draws were frozen at trace time."""
    program = next(p for p in bp.PROGRAMS if p.random)
    np.random.seed(bp.SEED)
    frozen = program.fn(1000)  # the first call's draws, as tracing makes them
    reference = bp._two_calls(program.fn, [1000], random=True)
    repeated = bp._two_calls(lambda n: frozen, [1000], random=True)
    assert bp.same_result(repeated[0], reference[0])
    assert not bp.same_result(repeated[1], reference[1])
