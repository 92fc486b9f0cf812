"""A sampling profile of a pytest run: where the process's own CPU goes, per function.

cProfile charges every Python call, so small functions called millions of times (``walk``, the
verifier, ``Operation.__init__``) look several times hotter than they are: a coverage slice
that takes 43 s of CPU takes 258 s under it (docs/performance.md, "Session 53: front-end hot
spots"). This samples instead: every 2 ms of process CPU (``SIGPROF``) it counts the function
running (self) and every function on the stack (cumulative, once per sample).

    PYTHONPATH=.:tools python -m pytest -p no:xdist -p sample_profile_plugin \
        --samples-to /tmp/samples.txt tests/jitcore/test_numpy_coverage.py -k "int and not complex"
"""

import collections
import signal

INTERVAL_S = 0.002
_self: collections.Counter = collections.Counter()
_cumulative: collections.Counter = collections.Counter()
_taken = [0]


def _where(code) -> str:
    path = code.co_filename.split("site-packages/")[-1]
    return f"{path}:{code.co_name}"


def _sample(signum, frame) -> None:
    _taken[0] += 1
    seen = set()
    if frame is not None:
        _self[_where(frame.f_code)] += 1
    while frame is not None:
        key = _where(frame.f_code)
        if key not in seen:
            _cumulative[key] += 1
            seen.add(key)
        frame = frame.f_back


def pytest_addoption(parser):
    parser.addoption("--samples-to", default="samples.txt", help="where the profile is written")


def pytest_configure(config):
    signal.signal(signal.SIGPROF, _sample)
    signal.setitimer(signal.ITIMER_PROF, INTERVAL_S, INTERVAL_S)


def pytest_unconfigure(config):
    signal.setitimer(signal.ITIMER_PROF, 0, 0)
    total = max(_taken[0], 1)
    with open(config.getoption("--samples-to"), "w") as out:
        print(f"samples {_taken[0]} (every {INTERVAL_S * 1000:g} ms of CPU)", file=out)
        for key, n in _cumulative.most_common(150):
            print(f"cum  {n / total * 100:5.1f}% {key}", file=out)
        for key, n in _self.most_common(60):
            print(f"self {n / total * 100:5.1f}% {key}", file=out)
