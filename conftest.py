"""Test-wide settings.

Hypothesis profiles (pick one with ``--hypothesis-profile NAME``; ``ci`` is the default):

- ``ci``: derandomized, so CI and local runs draw the same cases and a failure found once
  reproduces every time instead of flickering. Every test keeps the example count it asks for.
- ``thorough``: random draws (``--hypothesis-seed N`` replays one run) and every test's example
  count multiplied by ``THOROUGH_SCALE`` (tests ask through ``tests.budget.examples``). For a local
  hunt: ``python -m pytest --hypothesis-profile thorough --hypothesis-seed 1``.

Markers: ``long`` marks the long random-program runs; they are deselected unless ``--run-long``
is given (CI runs a short slice of the same generator without the marker).
"""

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("thorough", derandomize=False, deadline=None, print_blob=True)
settings.load_profile("ci")


def pytest_addoption(parser):
    parser.addoption("--run-long", action="store_true", default=False,
                     help="also run tests marked `long` (long random-program runs)")


def pytest_configure(config):
    config.addinivalue_line("markers", "long: long randomized runs, opt-in with --run-long")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--run-long"):
        return
    kept = [item for item in items if "long" not in item.keywords]
    if len(kept) != len(items):
        config.hook.pytest_deselected(items=[item for item in items if "long" in item.keywords])
        items[:] = kept


def pytest_runtest_setup(item):
    """Undo the Hypothesis pytest plugin's wrapping of a parametrized test's settings before
    each of its cases: the plugin gives the shared test function new settings whose parent is
    the previous case's, so the chain grows by one per case, and reading a setting through it
    overflows the stack after about a thousand cases (the NumPy coverage table has more)."""
    fn = getattr(getattr(item, "obj", None), "__func__", getattr(item, "obj", None))
    if fn is None or not hasattr(fn, "_hypothesis_internal_use_settings"):
        return
    original = fn.__dict__.setdefault("_jitcore_unwrapped_settings", fn._hypothesis_internal_use_settings)
    fn._hypothesis_internal_use_settings = original
