"""Rows of the coverage table: products and contractions (dot, matmul, tensordot, einsum)."""

from __future__ import annotations

import numpy as np

from tests.coverage.compare import DOT_TOL
from tests.coverage.generators import BINARY_SHAPES
from tests.coverage.harness import Case, case_adder

CASES: list[Case] = []
case = case_adder(CASES)


def product_domain(family: str) -> str:
    """Complex products draw finite values: where a product meets inf or nan, NumPy (BLAS)
    gives inf or nan depending on its order of operations, not on anything NumPy defines. Float
    ones draw |x| <= 100 (no overflow, whose place depends on the order); integer ones anything
    (they wrap identically in any order)."""
    return {"complex": "finite", "float": "small"}.get(family, "any")


def g_pairs(pairs, params=None):
    def gen(draw, family):
        sa, sb = draw.shape(pairs)
        p = params(draw) if params else {}
        return (draw.array(draw.dtype(family), sa, product_domain(family)),
                draw.array(draw.dtype(family), sb, product_domain(family))), p
    return gen


_DOT_PAIRS = [((), (3,)), ((3,), (3,)), ((2, 3), (3,)), ((2, 3), (3, 4)), ((2, 3, 4), (4, 2)),
              ((0, 3), (3, 2)), ((3,), (3, 0)), ((3,), (4,)), ((17,), (17,))]
_MATMUL_PAIRS = [((3,), (3,)), ((2, 3), (3, 4)), ((2, 2, 3), (3, 4)), ((1, 2, 3), (4, 3, 2)),
                 ((3,), (3, 2)), ((2, 3), (3,)), ((0, 3), (3, 0)), ((2, 3), (2, 3)), ((), (3,)),
                 ((2, 17), (17, 3))]
case("np.outer(x, y)", "products", np.outer, g_pairs(BINARY_SHAPES[:-1]), tol=DOT_TOL)
case("np.dot(x, y)", "products", np.dot, g_pairs(_DOT_PAIRS), tol=DOT_TOL)
case("np.matmul(x, y)", "products", np.matmul, g_pairs(_MATMUL_PAIRS), tol=DOT_TOL)
case("x @ y", "products", lambda x, y: x @ y, g_pairs(_MATMUL_PAIRS), tol=DOT_TOL)


def g_tensordot(draw, family):
    sa, sb, axes = draw.shape([((2, 3, 4), (3, 4, 5), 2), ((2, 3), (3, 2), 1),
                                ((2, 3), (3, 2), ((1,), (0,))), ((2, 3, 4), (4, 3, 2), ((1, 2), (1, 0))),
                                ((3,), (4,), 0), ((2, 3), (2, 3), 1), ((2, 17), (17, 3), 1),
                                ((0, 3), (3, 2), 1)])
    domain = product_domain(family)
    return (draw.array(draw.dtype(family), sa, domain), draw.array(draw.dtype(family), sb, domain)), \
        {"axes": axes}


case("np.tensordot(x, y, axes)", "products", lambda x, y, axes: np.tensordot(x, y, axes),
     g_tensordot, tol=DOT_TOL)

EINSUM_FORMS = [("ij,jk->ik", (2, 3), (3, 4)), ("ij->ji", (2, 3)), ("i,i->", (3,), (3,)),
                ("ij->", (2, 3)), ("ij->i", (2, 3)), ("bij,bjk->bik", (2, 2, 3), (2, 3, 4)),
                ("i,j->ij", (3,), (4,)), ("...ij,...jk->...ik", (2, 2, 3), (3, 4)),
                ("ij,ij->ij", (2, 3), (2, 3)), ("ij,jk,kl->il", (2, 3), (3, 2), (2, 2)),
                ("ij,jk", (2, 3), (3, 4)), ("i,i", (0,), (0,)), ("ij,j->i", (2, 17), (17,))]


def g_einsum(forms):
    def gen(draw, family):
        subscripts, *shapes = draw.shape(forms)
        # Three operands are contracted pairwise (NumPy sums all products at once): with
        # infinities the association decides between inf and NaN, so those draw finite values.
        domain = product_domain(family) if len(shapes) < 3 else "finite"
        return tuple(draw.array(draw.dtype(family), s, domain) for s in shapes), {"subscripts": subscripts}
    return gen


case("np.einsum(subscripts, *xs) (common forms)", "products",
     lambda *xs, subscripts: np.einsum(subscripts, *xs), g_einsum(EINSUM_FORMS), tol=DOT_TOL)
case("np.einsum('ii->i' / 'ii') (diagonal, trace)", "products",
     lambda *xs, subscripts: np.einsum(subscripts, *xs),
     g_einsum([("ii->i", (3, 3)), ("ii", (3, 3)), ("iij->j", (2, 2, 3)), ("ij,jj->i", (2, 3), (3, 3)),
               ("...ii->...i", (2, 3, 3)), ("iii", (2, 2, 2)), ("jii->ij", (2, 3, 3)), ("ii->i", (0, 0)),
               ("ijij->ji", (2, 3, 2, 3)), ("ii,i->i", (3, 3), (1,))]), tol=DOT_TOL)


# Notes for docs/numpy_support.md: differences from NumPy, partial support.
NOTES = {
    "np.einsum(subscripts, *xs) (common forms)": "no out=/dtype=, no interleaved (operand, sublist) form",
}
