"""tools/parity_report.py: it imports no test module (it runs the coverage table as pytest tests,
tests/coverage/parity_cells.py), and it still produces the report."""

from __future__ import annotations

from pathlib import Path

from tests.coverage.harness import Outcome
from tools import parity_report
from tools.import_graph import ROOT, imports_of, module_name


def tool_files() -> list[Path]:
    """Every Python file under tools/, the extensionless scripts (dump-ir) included."""
    def is_python(p: Path) -> bool:
        return p.suffix == ".py" or p.read_bytes().startswith(b"#!/usr/bin/env python")
    return sorted(p for p in (ROOT / "tools").rglob("*") if p.is_file() and is_python(p))


def names_of_test_modules():
    names = {module_name(p) for p in (ROOT / "tests").rglob("*.py")}
    # `import tests` and `from tests import x` name the packages themselves.
    return names | {name.rpartition(".")[0] for name in names} - {""}


def test_no_tool_imports_a_test_module():
    known = names_of_test_modules()
    assert "tests.coverage.table" in known and "tests" in known
    offenders = {module_name(p): sorted(imports_of(p, known)) for p in tool_files()}
    assert "tools.dump-ir" in offenders and "tools.parity_report" in offenders
    assert {tool: found for tool, found in offenders.items() if found} == {}


def test_the_reader_sees_imports_of_test_modules():
    # The check above must be able to fail: a test that imports the table is seen doing so.
    test = ROOT / "tests" / "jitcore" / "test_numpy_coverage.py"
    assert "tests.coverage.table" in imports_of(test, names_of_test_modules())


def test_the_report_reads_the_statuses_the_cells_record():
    assert (parity_report.PASS, parity_report.NA, parity_report.UNSUPPORTED, parity_report.KNOWN_BUG) == (
        Outcome.PASS, Outcome.NA, Outcome.UNSUPPORTED, Outcome.KNOWN_BUG)


def test_the_report_runs_on_a_subset(tmp_path, capsys):
    doc = tmp_path / "support.md"
    doc.write_text(f"head\n{parity_report.BEGIN}\nold table\n{parity_report.END}\ntail\n")
    assert parity_report.main(["--only", "np.add(", "--cases", "2", "--write-docs", str(doc)]) == 0
    out = capsys.readouterr().out
    assert "| `np.add(x, y)`" in out and "| all |" in out, out
    text = doc.read_text()
    assert text.startswith(f"head\n{parity_report.BEGIN}\njitcore parity with NumPy"), text
    assert "old table" not in text and text.endswith(f"{parity_report.END}\ntail\n"), text
