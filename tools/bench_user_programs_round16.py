"""Round 16's new-user programs (tools/user_programs_round16.py) at their test sizes: each
one's first call (trace and compile, wall time) and its cached call against NumPy's, as thread
CPU time (the host is shared: wall time moves with the load), medians of rounds that alternate
jitcore and NumPy, with the range of the per-round ratios.

    JITCORE_CACHE=0 JITCORE_NUM_THREADS=1 PYTHONPATH=. python tools/bench_user_programs_round16.py [names]
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.bench_user_programs_round14 import programs  # noqa: E402
from tools.user_programs_round16 import PROGRAMS  # noqa: E402

if __name__ == "__main__":
    warnings.simplefilter("ignore")
    np.seterr(all="ignore")
    programs(PROGRAMS, sys.argv[1:])
