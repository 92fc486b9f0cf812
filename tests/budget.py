"""How many hypothesis examples a test runs, by profile (see the root conftest.py).

A test states two counts: ``full``, the count it was written with (the ``full`` profile, for
nightly and local runs), and ``ci``, a smaller count where the extra examples mostly meet
signatures and values that the same test's fixed edge batch, or a sibling test, already covers
(each cut says why where it is made). The ``thorough`` profile scales ``full``. A test may
also draw its compiled signatures from a table under ``ci`` (``signatures``) and its data as
before: as many examples, fewer compiles.
"""

from collections.abc import Sequence

from hypothesis import settings
from hypothesis import strategies as st

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


def signatures(full: st.SearchStrategy, table: Sequence, turn: int = 0, take: int | None = None):
    """Where a test's examples get what compiles (shapes, axes, layouts, static parameters):
    ``full`` under the ``full`` and ``thorough`` profiles; under ``ci``, ``take`` entries of
    ``table`` from entry ``turn`` on (each parametrization its own turn, so that together they
    meet the whole table), drawn by hypothesis. The examples still draw their data (values,
    seeds) each; a signature met again reuses its code, so the examples cost fewer compiles.
    A table holds the signatures the test must meet (0-d, size 0, length 1, either axis, each
    layout, ...) that hypothesis would meet only by chance."""
    if settings.get_current_profile_name() != "ci":
        return full
    take = len(table) if take is None else take
    return st.sampled_from([table[(turn + k) % len(table)] for k in range(take)])
