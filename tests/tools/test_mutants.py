"""tools/mutants.py stays usable: every seeded bug still applies to today's code, once."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_every_mutant_applies_exactly_once():
    proc = subprocess.run([sys.executable, "tools/mutants.py", "--check"], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "mutants apply" in proc.stdout


def test_a_mutant_whose_edit_is_gone_is_reported(tmp_path):
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import mutants
    finally:
        sys.path.remove(str(ROOT / "tools"))
    (tmp_path / "f.py").write_text("x = 1\n")
    stale = mutants.Mutant("stale", "f.py", "x = 2", "x = 3", "an edit that no longer applies")
    with pytest.raises(ValueError, match="0 times"):
        stale.apply(tmp_path)
