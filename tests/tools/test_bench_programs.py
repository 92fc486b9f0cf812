"""tools/bench.py --suite programs at a tiny size: every program gets its row, the ones that run
say so, and a wrong answer is marked wrong rather than timed as a win (speed is never asserted)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]

sys.path.insert(0, str(REPO / "tools"))
try:
    import bench_programs as bp
finally:
    sys.path.pop(0)


def test_programs_suite_at_a_tiny_size(tmp_path, monkeypatch, capsys):
    """bench.py --suite programs, in this process with the peers taken as not installed (Numba
    takes tens of seconds to reject a program it cannot type); every program is measured below."""
    monkeypatch.syspath_prepend(str(REPO / "tools"))  # bench.py imports its siblings by their names
    import bench

    monkeypatch.setattr(bench, "_import_peer", lambda name: None)
    path = tmp_path / "programs.json"
    assert bench.main(["--suite", "programs", "--size", "1000", "--repeat", "1", "--only", "kmeans,filter",
                       "--json", str(path)]) == 0
    out = capsys.readouterr().out
    assert "programs (issue #12)" in out and "load average" in out and "2 of 2 run under jit" in out
    rows = [[c.strip() for c in line.split("|")[1:-1]] for line in out.splitlines() if line.startswith("| ")]
    assert rows[0] == bp.PROGRAM_HEADER
    table = {r[0]: dict(zip(rows[0], r, strict=True)) for r in rows[1:]}
    assert set(table) == {p.title for p in bp.PROGRAMS if p.name in ("kmeans", "filter")}
    for row in table.values():
        assert row["runs under jit"] == "yes" and float(row["numpy ms"]) > 0, row
        assert row["numba ms"] == "not installed", row
    (section,) = json.loads(path.read_text())["sections"]
    assert section["key"] == "programs" and len(section["records"]) == 2


def test_every_program_has_its_row_and_the_deterministic_ones_run():
    records = [bp.measure(p, 1, {"numba": None}, scale=1e-4) for p in bp.PROGRAMS]
    rows, notes = bp.program_rows(records)
    assert [r[0] for r in rows] == [p.title for p in bp.PROGRAMS]
    for p, row in zip(bp.PROGRAMS, rows, strict=True):
        cells = dict(zip(bp.PROGRAM_HEADER, row, strict=True))
        assert cells["numba ms"] == "not installed" and float(cells["numpy ms"]) > 0, cells
        if p.random:  # fresh draws per call are another branch's work: either answer is reported
            assert cells["runs under jit"] in ("yes", "wrong"), cells
        else:
            assert cells["runs under jit"] == "yes", (cells, notes)
            assert float(cells["jitcore ms"]) > 0 and cells["numpy/jc"].endswith("x"), cells


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


def test_a_numba_typing_error_is_told_by_its_call_and_reason():
    class TypingError(Exception):
        pass

    call = "median(array(float64, 2d, A), axis=Literal[int](-1))"
    text = "\n".join([
        "Failed in nopython mode pipeline (step: nopython frontend)",
        "\x1b[1mNo implementation of function median found for signature:",
        " ",
        f" >>> {call}",
        "  Rejected as the implementation raised a specific error:",
        "    TypingError: \x1b[1mgot an unexpected keyword argument 'axis'\x1b[0m",
    ])
    assert bp._reason(TypingError(text)) == f"TypingError: {call}: got an unexpected keyword argument 'axis'"
    assert bp._reason(ValueError("one line\nand more")) == "ValueError: one line"
