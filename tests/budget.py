"""How many hypothesis examples a test runs, by profile (see the root conftest.py)."""

from hypothesis import settings

THOROUGH_SCALE = 25


def examples(n: int) -> int:
    """``n`` under the ``ci`` profile; ``n * THOROUGH_SCALE`` under ``thorough``."""
    return n * THOROUGH_SCALE if settings.get_current_profile_name() == "thorough" else n
