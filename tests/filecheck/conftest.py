"""Collects the ``.mlir`` files in this folder as tests: one test per ``// -----`` case.

The format and the check directives are described in ``filecheck.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.filecheck.filecheck import CheckFailure, run_case, split_cases


def pytest_collect_file(parent, file_path: Path):
    if file_path.suffix == ".mlir":
        return MlirFile.from_parent(parent, path=file_path)
    return None


class MlirFile(pytest.File):
    def collect(self):
        cases = split_cases(self.path.read_text(), self.path.name)
        names = [c.name for c in cases]
        for case in cases:
            name = case.name if names.count(case.name) == 1 else f"{case.name}@line{case.line}"
            yield MlirCase.from_parent(self, name=name, case=case)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CheckFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)


class MlirCase(pytest.Item):
    def __init__(self, *, case, **kwargs):
        super().__init__(**kwargs)
        self.case = case

    def runtest(self) -> None:
        run_case(self.case)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CheckFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, self.case.line - 1, f"{self.path.name}::{self.name}"
