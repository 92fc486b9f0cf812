"""Probes for session 56's control-flow defects (trace56): many small functions, each called at
conditions that pick both ways, NumPy as the oracle. Prints one line per case: ok (NumPy's
result), refused (a jitcore error), WRONG (another result), CRASH (another exception); then the
counts. Run: PYTHONPATH=. python tools/probe_trace_56.py [group...]"""

from __future__ import annotations

import sys
import traceback

import numpy as np

import jitcore as jc
from jitcore.errors import JitcoreError

PROBES: dict[str, list] = {"mixed": [], "alias": [], "loops": [], "guard": [], "refused": []}



def assert_same_tree(got, want) -> None:
    """``got`` is ``want``: the same types, node by node, and the same values (NaN matching NaN).
    (A tool imports no test module: tests/tools/test_parity_report.py.)"""
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert_same_tree(g, w)
    elif isinstance(want, dict):
        assert got.keys() == want.keys()
        for key in want:
            assert_same_tree(got[key], want[key])
    elif isinstance(want, (np.ndarray, np.generic)):
        assert (got.dtype, got.shape) == (want.dtype, want.shape)
        np.testing.assert_array_equal(got, want)
    else:
        assert got == want or (got != got and want != want), (got, want)

def probe(group):
    def add(f):
        PROBES[group].append(f)
        return f

    return add


# -- 1: a number or an array, picked by data, then used where the shape matters ------------------
@probe("mixed")
def m_sum(x, c):
    return (x if x[1] > c else 1.0).sum()


@probe("mixed")
def m_sum_var(x, c):
    v = x if x[1] > c else 1.0
    return v.sum()


@probe("mixed")
def m_npsum(x, c):
    v = x * 2 if x[1] > c else 1.0
    return np.sum(v)


@probe("mixed")
def m_mean(x, c):
    v = x if x[1] > c else 2.0
    return np.mean(v)


@probe("mixed")
def m_len(x, c):
    v = x if x[1] > c else 2.0
    return float(np.size(v))


@probe("mixed")
def m_shape(x, c):
    v = x if x[1] > c else 2.0
    return float(v.shape[0]) if v.ndim else -1.0


@probe("mixed")
def m_size(x, c):
    v = x if x[1] > c else 2.0
    return float(v.size)


@probe("mixed")
def m_max_arith(x, c):
    v = (x if x[1] > c else 2.0) * 3.0 + 1.0
    return v.max()


@probe("mixed")
def m_arith_same_shape(x, c):
    v = (x if x[1] > c else 2.0) * x
    return v.sum()


@probe("mixed")
def m_arith_then_reduce_scalar(x, c):
    v = (x if x[1] > c else 2.0) + x.sum()
    return np.sum(v)


@probe("mixed")
def m_store(x, c):
    out = np.zeros_like(x)
    out[:] = (x if x[1] > c else 2.0) * 2
    return out


@probe("mixed")
def m_store_then_sum(x, c):
    out = np.zeros_like(x)
    out += x if x[1] > c else 2.0
    return out.sum()


@probe("mixed")
def m_concat(x, c):
    v = x if x[1] > c else 2.0
    return np.concatenate([np.atleast_1d(v), x])


@probe("mixed")
def m_dot(x, c):
    v = x if x[1] > c else 2.0
    return np.dot(v, x) if np.ndim(v) else v * x


@probe("mixed")
def m_cumsum(x, c):
    v = x if x[1] > c else 2.0
    return np.cumsum(v)


@probe("mixed")
def m_ravel(x, c):
    v = x if x[1] > c else 2.0
    return np.ravel(v) * 1.0


@probe("mixed")
def m_index(x, c):
    v = x if x[1] > c else np.float64(2.0)
    return v[()] if np.ndim(v) == 0 else v[0]


@probe("mixed")
def m_loop_counter_sum(x, c):
    acc = 0.0
    for j in range(x.shape[0]):
        acc += (x * j if j > 0 else 0.0).sum()
    return acc


@probe("mixed")
def m_loop_counter_arith(x, c):
    acc = x * 0.0
    for j in range(x.shape[0]):
        acc = acc + (x * j if j > 0 else 0.0)
    return acc.sum()


@probe("mixed")
def m_where(x, c):
    v = x if x[1] > c else 2.0
    return np.where(x > 1, v, 0.0).sum()


@probe("mixed")
def m_maximum_reduce(x, c):
    v = np.maximum(x if x[1] > c else 2.0, 0.5)
    return v.sum()


@probe("mixed")
def m_comparison_any(x, c):
    v = (x if x[1] > c else 2.0) > 1.5
    return bool(np.any(v))


@probe("mixed")
def m_mixed_dtype_int(x, c):
    xi = x.astype(np.int64)
    v = (xi if x[1] > c else 1.5) * 2
    return v.sum()


@probe("mixed")
def m_astype(x, c):
    v = x if x[1] > c else 2.0
    return np.float64(np.asarray(v).astype(np.float32).sum())


@probe("mixed")
def m_iterate(x, c):
    v = x if x[1] > c else np.array([2.0])
    s = 0.0
    for e in np.atleast_1d(v):
        s += e
    return s


@probe("mixed")
def m_return_tuple_sum(x, c):
    v = x if x[1] > c else 1.0
    return v * 2.0, float(np.sum(v))


@probe("mixed")
def m_norm(x, c):
    v = x if x[1] > c else 3.0
    return np.linalg.norm(v)


@probe("mixed")
def m_reshape(x, c):
    v = x if x[1] > c else 3.0
    return np.reshape(v, -1).sum()


@probe("mixed")
def m_setitem_into(x, c):
    out = x.copy()
    v = x * 2 if x[1] > c else 3.0
    out[0] = np.sum(v)
    return out


@probe("mixed")
def m_if_stmt(x, c):
    if x[1] > c:
        v = x
    else:
        v = 1.0
    return np.sum(v)


@probe("mixed")
def m_matmul(x, c):
    v = x if x[1] > c else 3.0
    return float(np.sum(np.outer(v, x)))


@probe("mixed")
def m_argmax(x, c):
    v = x if x[1] > c else 3.0
    return int(np.argmax(v))


# -- 2: two names bound to one new array inside a traced branch -----------------------------------
@probe("alias")
def a_basic(x, c):
    t = x * 0.0
    v = t
    if c > 0:
        t = x * 1.0
        v = t
    t[0] = 5.0
    return v


@probe("alias")
def a_else(x, c):
    if c > 0:
        t = x * 1.0
        v = t
    else:
        t = x * 2.0
        v = t
    t[0] = 5.0
    return v


@probe("alias")
def a_one_side(x, c):
    t = x * 3.0
    v = x * 4.0
    if c > 0:
        t = x * 1.0
        v = t
    t[0] = 5.0
    return v, t


@probe("alias")
def a_write_v(x, c):
    t = x * 3.0
    v = x * 4.0
    if c > 0:
        t = x * 1.0
        v = t
    v[1] += 7.0
    return t


@probe("alias")
def a_aug(x, c):
    t = x * 3.0
    v = t
    if c > 0:
        t = x * 1.0
        v = t
    t += 1.0
    return v


@probe("alias")
def a_view(x, c):
    t = x * 3.0
    v = t[1:]
    if c > 0:
        t = x * 1.0
        v = t[:2]
    t[1] = 5.0
    return v.copy()


@probe("alias")
def a_three(x, c):
    t = x * 3.0
    u = t
    v = t
    if c > 0:
        t = x * 1.0
        u = t
        v = u
    v[0] = -1.0
    return t, u


@probe("alias")
def a_loop_after(x, c):
    t = x * 3.0
    v = x * 0.0
    if c > 0:
        t = x * 1.0
        v = t
    for i in range(x.shape[0]):
        t[i] = i
    return v


@probe("alias")
def a_in_loop(x, c):
    t = x * 3.0
    v = x * 0.0
    for k in range(2):
        if c > k:
            t = x * 1.0
            v = t
        t[0] = 5.0 + k
    return v


@probe("alias")
def a_nested(x, c):
    t = x * 3.0
    v = x * 0.0
    if c > 0:
        if c > 1:
            t = x * 1.0
            v = t
    t[0] = 5.0
    return v


@probe("alias")
def a_list(x, c):
    t = x * 3.0
    v = [x * 0.0]
    if c > 0:
        t = x * 1.0
        v = [t]
    t[0] = 5.0
    return v[0]


@probe("alias")
def a_caller_and_new(x, c):
    t = x * 3.0
    v = x
    if c > 0:
        t = x * 1.0
        v = t
    t[0] = 5.0
    return v.copy()


@probe("alias")
def a_elif(x, c):
    t = x * 3.0
    v = x * 0.0
    if x[0] + c > 1.0:
        t = x * 1.0
        v = t
    elif x[0] + c > 0.0:
        t = x * 2.0
    t[0] = 5.0
    return v, t


@probe("alias")
def a_view_of_new(x, c):
    t = x * 3.0
    v = x * 0.0
    if x[0] + c > 0.0:
        t = x * 1.0
        v = t[1:]
    t[1] = 5.0
    return v.copy()


@probe("alias")
def a_while(x, c):
    t = x * 3.0
    v = x * 0.0
    k = 0
    while k < 3:
        if x[k] + c > 1.0:
            t = x * 1.0
            v = t
        v[k] = -k
        k += 1
    return t, v


@probe("alias")
def a_swap(x, c):
    t = x * 1.0
    u = x * 2.0
    if x[0] + c > 0.0:
        t, u = u, t
    v = t
    if x[1] + c > 0.0:
        t = x * 5.0
        v = t
    u[0] = -1.0
    t[1] = -2.0
    return t, u, v


@probe("alias")
def a_return_in_branch(x, c):
    t = x * 3.0
    v = x * 0.0
    if x[0] + c > 0.0:
        t = x * 1.0
        v = t
        if x[1] + c > 2.0:
            return v
    t[0] = 5.0
    return v


@probe("alias")
def a_dict(x, c):
    t = x * 3.0
    d = {"a": x * 0.0}
    if x[0] + c > 0.0:
        t = x * 1.0
        d = {"a": t}
    t[0] = 5.0
    return d["a"]


@probe("alias")
def a_tuple_unpack(x, c):
    t = x * 3.0
    v = x * 0.0
    if x[0] + c > 0.0:
        t = v = x * 1.0
    t[0] = 5.0
    return v


@probe("mixed")
def m_in_branch_read(x, c):
    v = x if x[1] > c else 2.0
    s = 0.0
    if x[0] > c:
        s = np.sum(v * x)
    return s


@probe("mixed")
def m_int_side(x, c):
    k = x.astype(np.int64)
    v = k if x[1] > c else 3
    return (v * k).sum()


@probe("mixed")
def m_scalar_array_number(x, c):
    v = x.sum() if x[1] > c else x
    return (v * x).sum(), np.size(v * x)


@probe("loops")
def l_while_two_before(x, c):
    t = x * 3.0
    v = x * 0.0
    k = 0
    while k < 3 and x[k] + c < 2.0:
        t = x * k
        v = t
        k += 1
    t[0] = 5.0
    return v


@probe("loops")
def l_while_one_before(x, c):
    t = x * 3.0
    v = t
    k = 0
    while k < 3 and x[k] + c < 2.0:
        t = x * k
        v = t
        k += 1
    t[0] = 5.0
    return v


@probe("loops")
def l_break(x, c):
    t = x * 3.0
    v = x * 0.0
    for k in range(3):
        if x[k] + c > 2.0:
            t = x * 1.0
            v = t
            break
    t[0] = 5.0
    return v


@probe("loops")
def l_if_in_for(x, c):
    t = x * 3.0
    v = x * 0.0
    for k in range(3):
        if x[k] + c > 2.0:
            t = x * 1.0
            v = t
    t[0] = 5.0
    return v


@probe("loops")
def l_view_in_while(x, c):
    t = x * 3.0
    v = x[1:] * 0.0
    k = 0
    while k < 3 and x[k] + c < 2.0:
        t = x * k
        v = t[1:]
        k += 1
    t[1] = 5.0
    return v + 0.0


# -- 3: early return guard ---------------------------------------------------------------------
@probe("guard")
def g_return_then_write(x, c):
    a = x * 1.0
    b = x * 2.0
    if c > 0:
        if c > 1:
            return a
        r = b
    else:
        r = a
    a[0] = 9.0
    return r


@probe("guard")
def g_nested_return(x, c):
    a = x * 1.0
    b = x * 2.0
    if c > 0:
        v = a if c > 1 else b
        return v
    a[0] = 9.0
    return a


@probe("guard")
def g_nested_return_write(x, c):
    a = x * 1.0
    b = x * 2.0
    v = b
    if c > 0:
        v = a if c > 1 else b
        if c > 2:
            return v
    a[0] = 9.0
    return v


@probe("guard")
def g_pick_write_b(x, c):
    a = x * 1.0
    b = x * 2.0
    if x[0] + c > 0:
        if x[0] + c > 1:
            return a
        r = b
    else:
        r = a
    b[1] = 8.0
    a[0] = 9.0
    return r


@probe("guard")
def g_pick_write_through(x, c):
    a = x * 1.0
    b = x * 2.0
    if x[0] + c > 0:
        if x[0] + c > 1:
            return a + b
        r = b
    else:
        r = a
    r[2] = -3.0
    return a + 10 * b


@probe("guard")
def g_pick_caller(x, c):
    b = x * 2.0
    if x[0] + c > 0:
        if x[0] + c > 1:
            return b
        r = b
    else:
        r = x
    r[3] = -4.0
    return x + 10 * b


@probe("guard")
def g_pick_in_loop(x, c):
    a = x * 1.0
    b = x * 2.0
    r = a
    for k in range(3):
        if x[k] + c > 0:
            if x[k] + c > 1:
                return a
            r = b
        else:
            r = a
        a[k] = 9.0
    return r


# -- 4: refused forms ----------------------------------------------------------------------------
@probe("refused")
def r_selection_write(x, c):
    m = x > 1
    s = x[m]
    if c > 0:
        s[0] = 100.0
    return s


@probe("refused")
def r_selection_write_sum(x, c):
    s = x[x > 0.5]
    if c > 0:
        s[0] = -1.0
    return s.sum()


@probe("refused")
def r_list_of_tuples(x, c):
    out = []
    for i in range(x.shape[0]):
        if x[i] > c:
            out.append((i, x[i]))
    s = 0.0
    for i, v in out:
        s += i * v
    return s


@probe("refused")
def r_list_of_tuples_len(x, c):
    out = []
    for i in range(x.shape[0]):
        if x[i] > c:
            out.append((x[i], x[i] * 2))
    return len(out)


@probe("refused")
def r_list_int64_float(x, c):
    out = [np.int64(0)]
    for i in range(x.shape[0]):
        out.append(x[i] * c)
    return sum(out)


@probe("refused")
def r_list_int64_float_arr(x, c):
    out = [np.int64(1)]
    for i in range(x.shape[0]):
        if x[i] > c:
            out.append(x[i])
    return np.array(out)


XS = [np.array([0.5, 1.5, 2.5, 3.5]), np.array([3.0, -1.0, 2.0])]
CS = [-1.0, 0.5, 1.5, 2.5]


def run(f):
    outcomes = []
    try:
        jitted = jc.jit(f)
    except Exception as e:  # noqa: BLE001
        return [("CRASH", repr(e))]
    for x in XS:
        for c in CS:
            try:
                want = f(x.copy(), c)
            except Exception as e:  # noqa: BLE001
                want = e
            try:
                got = jitted(x.copy(), c)
            except JitcoreError as e:
                outcomes.append(("refused", str(e).splitlines()[0][:150]))
                return outcomes  # one refusal stands for the function (its compile refuses)
            except Exception as e:  # noqa: BLE001
                if isinstance(want, Exception) and type(want) is type(e):
                    outcomes.append(("ok", ""))
                    continue
                outcomes.append(("CRASH", f"{type(e).__name__}: {e}"[:200] + traceback.format_exc()[-300:]))
                continue
            if isinstance(want, Exception):
                outcomes.append(("WRONG", f"NumPy raised {want!r}, jitcore gave {got!r}"))
                continue
            try:
                assert_same_tree(got, want)
                outcomes.append(("ok", ""))
            except AssertionError:
                outcomes.append(("WRONG", f"x={x.tolist()} c={c}: got {got!r} want {want!r}"[:240]))
    return outcomes


def main(groups):
    counts = {}
    for group in groups or PROBES:
        for f in PROBES[group]:
            outcomes = run(f)
            kinds = [k for k, _ in outcomes]
            worst = (
                "WRONG"
                if "WRONG" in kinds
                else "CRASH"
                if "CRASH" in kinds
                else "refused"
                if "refused" in kinds
                else "ok"
            )
            counts[worst] = counts.get(worst, 0) + 1
            detail = next((d for k, d in outcomes if k == worst), "")
            print(f"{group:8} {f.__name__:28} {worst:8} {detail}")
    print(counts)


if __name__ == "__main__":
    main(sys.argv[1:])
