"""Test-wide settings.

Hypothesis profiles (pick one with ``--hypothesis-profile NAME`` or the environment variable
``JITCORE_TEST_PROFILE=NAME``; the command line wins; ``ci`` is the default):

- ``ci``: derandomized, so CI and local runs draw the same cases and a failure found once
  reproduces every time instead of flickering. Tests ask for their counts through
  ``tests.budget.examples(full, ci)`` and run the ``ci`` count, cut to keep CI near ten minutes.
- ``full``: derandomized like ``ci``, with every test's ``full`` count (the counts before the
  CI cut): the nightly run, ``JITCORE_TEST_PROFILE=full python -m pytest``.
- ``thorough``: random draws (``--hypothesis-seed N`` replays one run) and every test's ``full``
  count multiplied by ``THOROUGH_SCALE``. For a local hunt:
  ``python -m pytest --hypothesis-profile thorough --hypothesis-seed 1``.

Markers: ``long`` marks the long random-program runs; they are deselected unless ``--run-long``
is given (CI runs a short slice of the same generator without the marker).
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("full", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("thorough", derandomize=False, deadline=None, print_blob=True)
# The Hypothesis plugin applies --hypothesis-profile after this file is imported, so it wins.
settings.load_profile(os.environ.get("JITCORE_TEST_PROFILE", "").strip() or "ci")


def _draw_independent_of_imported_modules():
    """Hypothesis (6.131+) mixes literal constants from every local module imported so far into
    its draws, so a derandomized test drew different cases depending on which test files ran
    before it in the same process (xdist's split, ``-k``, one file alone). Keep only its
    built-in constants, so the same test draws the same cases in every run."""
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # a Hypothesis without the provider module has no such pool
        return
    if hasattr(providers, "_get_local_constants") and hasattr(providers, "Constants"):
        empty = providers.Constants()
        providers._get_local_constants = lambda: empty


_draw_independent_of_imported_modules()


def pytest_addoption(parser):
    parser.addoption("--run-long", action="store_true", default=False,
                     help="also run tests marked `long` (long random-program runs)")


def pytest_configure(config):
    config.addinivalue_line("markers", "long: long randomized runs, opt-in with --run-long")


# The garbage collector's oldest generation, which a test process scans in full whenever it runs:
# the imports, the collected tests and Hypothesis's state are most of that heap and live for the
# whole run. Frozen after collection (never scanned again), and a full collection after 100
# middle ones instead of 10: about 11% of a compile-heavy slice's CPU was the collector, half
# of it full collections (docs/performance.md, "The test suite's time, session 30"). Cyclic
# garbage (compiled IR's parent links) is still freed, only in fewer, cheaper passes.
GC_THRESHOLDS = (700, 10, 100)


def pytest_collection_finish(session):
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


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
    overflows the stack after about a thousand cases (the NumPy coverage table has more).
    Still needed with Hypothesis 6.155: without it a 3000-case parametrized test fails at case
    ~950 under the ``ci`` profile."""
    fn = getattr(getattr(item, "obj", None), "__func__", getattr(item, "obj", None))
    if fn is None or not hasattr(fn, "_hypothesis_internal_use_settings"):
        return
    original = fn.__dict__.setdefault("_jitcore_unwrapped_settings", fn._hypothesis_internal_use_settings)
    fn._hypothesis_internal_use_settings = original
