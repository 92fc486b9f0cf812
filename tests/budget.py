"""How many hypothesis examples a test runs, by profile (see the root conftest.py).

A test states two counts: ``full``, the count it was written with (the ``full`` profile, for
nightly and local runs), and ``ci``, a smaller count where the extra examples mostly meet
signatures and values that the same test's fixed edge batch, or a sibling test, already covers
(each cut says why where it is made). The ``thorough`` profile scales ``full``.
"""

from hypothesis import settings

THOROUGH_SCALE = 25


def examples(full: int, ci: int | None = None) -> int:
    """``ci`` (default ``full``) under the ``ci`` profile; ``full`` under ``full``;
    ``full * THOROUGH_SCALE`` under ``thorough``."""
    profile = settings.get_current_profile_name()
    if profile == "thorough":
        return full * THOROUGH_SCALE
    if profile == "ci" and ci is not None:
        return ci
    return full


def cases(full: tuple, ci: tuple) -> tuple:
    """A parametrization's values: ``ci`` under the ``ci`` profile, ``full`` otherwise (the cut
    says where the values left out are covered)."""
    return ci if settings.get_current_profile_name() == "ci" else full
