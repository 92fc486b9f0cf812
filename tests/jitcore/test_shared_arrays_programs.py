"""Random small programs over arrays shared by several names through traced loops and branches
(``autograph/aliasing.py``): views of the argument, second names, local copies; in a ``for``
over a traced count, a ``while`` or an ``if`` on a traced value: writes by index, slice, method
(``sort``, ``fill``) and ``np.copyto``, sums, names bound anew (``v = v + 1``, ``v = w``).
NumPy is the oracle for the results and for the caller's array after the call. Each program
is drawn from its seed (the same on every run); a refusal (``UnsupportedError``) is accepted
only where jitcore says it cannot follow Python (a write through a name that held another
array's memory and is bound anew in the loop, a write to an array that nested traced conditions
may have chosen). Session 40's first runs of this generator found the first pass's reads of such names
(``v = x[1:]``, then ``v = v + 1`` in a loop that writes ``x``) reading ``x`` from before the
loop."""

import random
import textwrap

import numpy as np
import pytest

import jitcore as jc
from jitcore.errors import UnsupportedError

VIEWS = ("x[1:]", "x[::2]", "x[::-1]", "x", "x[2:6]", "x.reshape(2, 4)[1]", "x * 1.0")


def _program(rng: random.Random) -> str:
    names, sizes, lines = ["x"], {"x": 8}, []
    for k in range(rng.randint(1, 3)):
        base = rng.choice(names)
        source = rng.choice(VIEWS).replace("x", base)
        try:
            size = eval(source.replace(base, f"np.zeros({sizes[base]})")).shape[0]
        except (ValueError, IndexError):
            continue
        lines.append(f"v{k} = {source}")
        names.append(f"v{k}")
        sizes[f"v{k}"] = size
    lines.append("s = 0.0")
    body = []
    for _ in range(rng.randint(1, 4)):
        a, b = rng.choice(names), rng.choice(names)
        op = rng.choice(("index", "slice", "sum", "rebind", "method", "copyto", "bind"))
        if op == "index":
            body.append(f"{a}[{rng.randrange(sizes[a])}] += {rng.choice((1, 2, -3))}")
        elif op == "slice":
            n = min(sizes[a], sizes[b])
            body.append(f"{a}[:{n}] = {b}[:{n}] * 0.5 + 1")
        elif op == "sum":
            body.append(f"s = s + {a}.sum() * {rng.choice((1, 2))}")
        elif op == "rebind" and a != "x":
            body.append(f"{a} = {a} + 1")
        elif op == "method":
            body.append(f"{a}.sort()" if rng.random() < 0.5 else f"{a}.fill({rng.choice((0, 7))})")
        elif op == "copyto":
            body.append(f"np.copyto({a}, {rng.choice((2.5, -1.0))})")
        elif op == "bind" and a != "x" and sizes[a] == sizes[b]:
            body.append(f"{a} = {b}")
    body = body or ["s = s + x.sum()"]
    kind = rng.choice(("for", "if", "while"))
    if kind == "while":
        lines.append("k = 0")
        body.append("k += 1")
    lines.append({"for": "for i in range(n):", "if": "if t > 0:", "while": "while k < n:"}[kind])
    lines += ["    " + line for line in body]
    returned = rng.sample(names, min(len(names), 2)) + ["s"]
    lines.append(f"return ({', '.join(returned)},)")
    return "def f(x, n, t):\n" + textwrap.indent("\n".join(lines), "    ") + "\n"


@pytest.mark.parametrize("seed", range(60))
def test_random_shared_array_programs_match_numpy(seed, tmp_path):
    rng = random.Random(seed)
    source = _program(rng)
    path = tmp_path / f"program_{seed}.py"  # a file: autograph converts from the source
    path.write_text(source)
    namespace = {"np": np}
    exec(compile(source, str(path), "exec"), namespace)
    f = namespace["f"]
    n, t = rng.choice((0, 1, 3)), rng.choice((-1, 1))
    x_np = np.arange(8.0) * 1.5 - 3
    x_jc = x_np.copy()
    want = f(x_np, n, t)
    try:
        got = jc.jit(f)(x_jc, n, t)
    except UnsupportedError as e:
        assert "cannot follow" in str(e), source
        return
    for w, g in zip(want, got):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w), err_msg=source)
    np.testing.assert_array_equal(x_jc, x_np, err_msg=source)
