"""A pytest plugin that measures which special inputs actually reach jitted calls, per test.

    python -m pytest tests/jitcore/test_numpy_coverage.py -p tests.special_reach \
        [--special-reach-json PATH]

At load it wraps ``jitcore.api.JitFunction.__call__``; for every array argument of every jitted
call (arrays nested in tuples, lists and dicts included) it records, under the running test's
node id, the features below. At the end of the session it prints how many tests reached each
feature: float features counted over the tests that passed a real float array to a jitted call,
complex ones (either part) over those that passed a complex array, integer ones over those
that passed a signed or unsigned integer array, shapes and layouts also over all tests
that passed any array. ``--special-reach-json`` also writes the per-test sets.

It measures what the tests hand to jitcore, not what they claim to draw (see TESTS-AUDIT.md,
defects 4-6): a strategy that promises NaN but never draws one shows up here as a gap.
"""

from __future__ import annotations

import json

import numpy as np

FLOAT_FEATURES = ("nan", "+inf", "-inf", "-0.0", "subnormal")
INT_FEATURES = ("int min", "int max")
SHAPE_FEATURES = ("size 0", "0-d")
LAYOUT_FEATURES = ("non-contiguous", "negative stride", "Fortran-only", "stride 0", "unaligned")

_reached: dict[str, set[str]] = {}
_current: list[str] = []  # the running test's node id (empty outside a test)


def features(a: np.ndarray) -> set[str]:
    """The special values and layouts of one array argument."""
    found = {"any array"}
    if a.size == 0:
        found.add("size 0")
    if a.ndim == 0:
        found.add("0-d")
    if not a.flags.c_contiguous and not a.flags.f_contiguous:
        found.add("non-contiguous")
    if any(s < 0 for s, n in zip(a.strides, a.shape) if n > 1):
        found.add("negative stride")
    if a.flags.f_contiguous and not a.flags.c_contiguous:
        found.add("Fortran-only")
    if any(s == 0 for s, n in zip(a.strides, a.shape) if n > 1):
        found.add("stride 0")
    if not a.flags.aligned:
        found.add("unaligned")
    kind = a.dtype.kind
    if kind == "c":  # complex: the specials of either part
        found.add("complex array")
        found |= {f"complex {f}" for f in features(np.concatenate([a.real.ravel(), a.imag.ravel()]))
                  if f in FLOAT_FEATURES}
    if kind == "f" and a.size:
        found.add("float array")
        with np.errstate(all="ignore"):
            if np.isnan(a).any():
                found.add("nan")
            if (a == np.inf).any():
                found.add("+inf")
            if (a == -np.inf).any():
                found.add("-inf")
            if ((a == 0) & np.signbit(a)).any():
                found.add("-0.0")
            if ((a != 0) & (np.abs(a) < np.finfo(a.dtype).tiny)).any():
                found.add("subnormal")
    elif kind == "f":
        found.add("float array")
    if kind in "iu":
        found.add("int array")
        info = np.iinfo(a.dtype)
        if a.size and (a == info.min).any():
            found.add("int min")
        if a.size and (a == info.max).any():
            found.add("int max")
    return found


def _arrays(value):
    if isinstance(value, np.ndarray):
        yield value
    elif isinstance(value, np.generic):
        yield np.asarray(value)
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _arrays(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _arrays(v)


def _record(args, kwargs) -> None:
    if not _current:
        return
    seen = _reached.setdefault(_current[-1], set())
    for a in _arrays((args, kwargs)):
        seen |= features(a)


def _install() -> None:
    from jitcore import api

    call = api.JitFunction.__call__
    if getattr(call, "_special_reach", False):
        return

    def __call__(self, *args, **kwargs):
        try:
            _record(args, kwargs)
        except Exception:  # noqa: BLE001  (measuring must never change a test's outcome)
            pass
        return call(self, *args, **kwargs)

    __call__._special_reach = True
    api.JitFunction.__call__ = __call__


def pytest_addoption(parser):
    parser.addoption("--special-reach-json", default=None, metavar="PATH",
                     help="write the special inputs reached per test node id to PATH")


def pytest_configure(config):
    _install()


def pytest_runtest_call(item):
    _current[:] = [item.nodeid]


def pytest_runtest_teardown(item):
    _current.clear()


GROUPS = (("float", "float array", FLOAT_FEATURES + SHAPE_FEATURES + LAYOUT_FEATURES),
          ("complex", "complex array", tuple(f"complex {f}" for f in FLOAT_FEATURES)),
          ("int", "int array", INT_FEATURES),
          ("all", "any array", SHAPE_FEATURES + LAYOUT_FEATURES))


def summary(reached=None) -> tuple[list[str], list[tuple[str, str, list[tuple[int, int]]]]]:
    """Test files, and for each (feature, group of tests) the (tests reaching it, tests of the
    group) in each file and in all of them."""
    reached = _reached if reached is None else reached
    files = sorted({node.split("::")[0] for node, s in reached.items() if "any array" in s})
    rows = []
    for group, marker, feats in GROUPS:
        for f in feats:
            counts = []
            for where in files + [None]:
                tests = [s for node, s in reached.items()
                         if marker in s and (where is None or node.split("::")[0] == where)]
                counts.append((sum(f in s for s in tests), len(tests)))
            rows.append((f, group, counts))
    return files, rows


def pytest_terminal_summary(terminalreporter, config):
    write = terminalreporter.write_line
    files, rows = summary()
    write("")
    write("special inputs reaching jitted calls: tests reaching each / tests passing such arrays")
    for i, name in enumerate(files):
        write(f"  [{i + 1}] {name}")
    head = [f"[{i + 1}]" for i in range(len(files))] + ["all"]
    write(f"  {'feature':<18} {'tests':<8} " + " ".join(f"{h:>11}" for h in head))
    for feature, group, counts in rows:
        cells = " ".join(f"{f'{hits}/{total}':>11}" for hits, total in counts)
        write(f"  {feature:<18} {group:<8} {cells}")
    path = config.getoption("--special-reach-json")
    if path:
        with open(path, "w") as f:
            json.dump({node: sorted(s) for node, s in sorted(_reached.items())}, f, indent=0)
        write(f"  (per test: {path})")
