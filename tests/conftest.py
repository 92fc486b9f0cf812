"""The test run's disk cache: a temporary directory, empty at the start of every test.

Set before jitcore is imported (``JITCORE_CACHE_DIR``, which subprocesses that tests start
inherit too), so the suite neither reads the user's cache nor leaves files in it. Emptied
before each test: a plan stored by one test (compiled with a threshold it patched, say) is
never loaded by another. Removed when the run ends.
"""

import os
import shutil
import tempfile

import pytest

CACHE_DIR = tempfile.mkdtemp(prefix="jitcore-test-cache-")
os.environ["JITCORE_CACHE_DIR"] = CACHE_DIR
os.environ.pop("JITCORE_CACHE", None)  # on, as users have it


@pytest.fixture(autouse=True)
def _empty_disk_cache():
    os.makedirs(CACHE_DIR, mode=0o700, exist_ok=True)
    with os.scandir(CACHE_DIR) as found:
        for item in found:
            if item.is_dir(follow_symlinks=False):
                shutil.rmtree(item.path, ignore_errors=True)
            else:
                os.unlink(item.path)
    yield


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(CACHE_DIR, ignore_errors=True)
