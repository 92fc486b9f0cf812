"""A pytest plugin for tools/parity_report.py: collects what the tests of
tests/coverage/parity_cells.py record (``record_property`` under a ``parity_*`` key) and writes
it, in the order the tests ran, to the JSON file ``--parity-json`` names.

    python -m pytest tests/coverage/parity_cells.py -p tools.parity_plugin --parity-json PATH

It also declares the options the measurement reads (``--parity-cases``, ``--parity-seed``,
``--parity-only``). It knows nothing of the table: the records are plain JSON values.
"""

from __future__ import annotations

import json
from pathlib import Path

PREFIX = "parity_"


def pytest_addoption(parser):
    group = parser.getgroup("parity", "parity report (tools/parity_report.py)")
    group.addoption("--parity-json", default=None, help="write the parity_* records here")
    group.addoption("--parity-cases", type=int, default=None, help="seeded cases per cell")
    group.addoption("--parity-seed", type=int, default=None, help="seed of the cases")
    group.addoption("--parity-only", default=None, help="only rows whose name contains this")


def pytest_configure(config):
    path = config.getoption("parity_json")
    if path:
        config.pluginmanager.register(Recorder(Path(path)), "parity-recorder")


class Recorder:
    def __init__(self, path: Path):
        self.path, self.records = path, []

    def pytest_runtest_logreport(self, report):
        if report.when == "call":
            self.records += [{"key": key[len(PREFIX):], "value": value}
                             for key, value in report.user_properties if key.startswith(PREFIX)]

    def pytest_sessionfinish(self):
        self.path.write_text(json.dumps(self.records))
