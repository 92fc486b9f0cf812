"""A reduction whose mask reads only the outer positions skips the rows the mask drops
(``masked_rows.RowGuard``); where the reduced dims are all inside those rows, each result is
stored (its init) inside the skipped nest, so such a reduction takes no guard. Before session 54,
``np.logical_and.reduce(a, axis=1, initial=True, where=m[:, :1])`` left the results of the rows
``m`` dropped unwritten: whatever the freed memory held (found by the random-program tests in
an order-dependent CI failure)."""

from __future__ import annotations

import numpy as np

import jitcore as jc


def _all_where_rows(a, m):
    return np.logical_and.reduce(a, axis=1, keepdims=True, initial=True, where=m[:, :1])


def test_a_row_skipped_by_its_mask_still_gets_its_init():
    f = jc.jit(_all_where_rows)
    rng = np.random.default_rng(0)
    for n in (2, 7, 300, 5000):
        a = rng.random((n, 3)) < 0.3
        m = rng.random((n, 3)) < 0.5
        for _ in range(3):
            stale = np.zeros(n, bool)  # freed memory the result may be allocated in
            del stale
            got = f(a, m)
            np.testing.assert_array_equal(got, _all_where_rows(a, m))
            stale = np.ones(n, bool)
            del stale
            np.testing.assert_array_equal(f(a, ~m), _all_where_rows(a, ~m))
