"""The compiler layers import only as jitcore.ir, jitcore.passes, jitcore.codegen.

A user's own ir.py, codegen.py or passes/ next to their script must not break ``import jitcore``,
and nothing of ours may import the top-level names ir, passes or codegen.
"""

import ast
import configparser
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LAYERS = ("ir", "passes", "codegen")


def run_python(code: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))  # the checkout, as `python -m pytest` sees it
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


USER_SCRIPT = """
import sys
import numpy as np
import jitcore

assert jitcore.jit(lambda x: x + 1)(np.ones(3)).tolist() == [2.0, 2.0, 2.0]
import jitcore.ir, jitcore.passes, jitcore.codegen
for layer in (jitcore.ir, jitcore.passes, jitcore.codegen):
    assert layer.__file__.startswith(sys.argv[1]), layer.__file__
print(sorted(m for m in sys.modules if m.split(".")[0] in ("ir", "passes", "codegen")))
"""


def test_user_files_named_like_the_layers_do_not_shadow_them(tmp_path):
    (tmp_path / "ir.py").write_text("attributes = 'the user ir.py'\n")
    (tmp_path / "codegen.py").write_text("raise ImportError('the user codegen.py was imported')\n")
    (tmp_path / "passes").mkdir()
    (tmp_path / "passes" / "__init__.py").write_text("PASSES = 'the user passes/'\n")
    code = USER_SCRIPT.replace("sys.argv[1]", repr(str(REPO)))
    result = run_python(code, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"  # no top-level ir, passes or codegen got imported


def test_importing_the_ir_does_not_load_the_frontend(tmp_path):
    code = ("import sys, jitcore.ir.core\n"
            "print(sorted(m for m in ('jitcore.api', 'jitcore.passes', 'jitcore.codegen', 'llvmlite')"
            " if m in sys.modules))")
    result = run_python(code, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_no_module_imports_a_top_level_layer():
    files = [p for d in ("jitcore", *LAYERS, "tests", "tools") for p in (REPO / d).rglob("*.py")]
    files += [REPO / "tools" / "dump-ir", REPO / "conftest.py"]
    bad = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module]
            else:
                continue
            bad += [f"{path.relative_to(REPO)}:{node.lineno}" for n in names if n.split(".")[0] in LAYERS]
    assert bad == []


def test_setup_cfg_installs_every_layer_package_inside_jitcore():
    cfg = configparser.ConfigParser()
    cfg.read(REPO / "setup.cfg")
    packages = cfg["options"]["packages"].split()
    lines = cfg["options"]["package_dir"].strip().splitlines()
    mapping = dict(line.replace(" ", "").split("=") for line in lines)
    assert mapping == {f"jitcore.{layer}": layer for layer in LAYERS}
    expected = {"jitcore"} | {
        "jitcore." + str(init.parent.relative_to(REPO)).replace(os.sep, ".")
        for layer in LAYERS for init in (REPO / layer).rglob("__init__.py")} | {
        str(init.parent.relative_to(REPO)).replace(os.sep, ".")
        for init in (REPO / "jitcore").rglob("*/__init__.py")}  # the frontend's own subpackages
    assert sorted(packages) == sorted(expected)


# -- jitcore.numpy: NumPy's public names (issue 12, item 6) ------------------------------------------
def _public(module) -> list[str]:
    return sorted(n for n in dir(module) if not n.startswith("_"))


def test_every_public_numpy_name_is_exported_or_listed_as_not_supported():
    import numpy as np

    import jitcore.numpy as jnp
    from jitcore.numpy.not_supported import NOT_SUPPORTED, NOT_SUPPORTED_LINALG, names

    for module, mine, listed in ((np, jnp, names(NOT_SUPPORTED)),
                                 (np.linalg, jnp.linalg, names(NOT_SUPPORTED_LINALG))):
        public = _public(module)
        neither = [n for n in public if not hasattr(mine, n) and n not in listed]
        both = [n for n in public if hasattr(mine, n) and n in listed]
        stale = sorted(listed - set(public))  # NumPy dropped or renamed it
        assert (neither, both, stale) == ([], [], []), module.__name__
    assert set(jnp.__all__) <= set(dir(jnp)) and len(set(jnp.__all__)) == len(jnp.__all__)


def test_exported_numpy_names_are_jitcore_functions_or_numpy_static_helpers():
    # Under NumPy's name: a function of jitcore's (which records ops on traced arrays), or NumPy's
    # own object only where it is a type, a constant or a helper on dtypes and shapes (static
    # under jit). Aliases (np.abs is np.absolute) are the same jitcore function.
    import numpy as np

    import jitcore.numpy as jnp

    static = {"dtype", "finfo", "iinfo", "issubdtype", "isdtype", "promote_types", "can_cast",
              "broadcast_shapes", "result_type"}
    wrong = []
    for name in jnp.__all__:
        theirs, ours = getattr(np, name, None), getattr(jnp, name)
        if theirs is None or isinstance(theirs, type) or not callable(theirs):
            continue
        if ours is theirs and name not in static or ours is not theirs and \
                not getattr(ours, "__module__", "").startswith("jitcore."):
            wrong.append(name)
    assert wrong == []
    for name in ("abs", "acos", "atan2", "concat", "permute_dims", "pow", "bitwise_not", "conj"):
        assert getattr(jnp, name) is getattr(jnp, getattr(np, name).__name__), name


def test_jax_style_code_runs_on_the_namespace():
    import numpy as np

    import jitcore as jc
    import jitcore.numpy as jnp

    @jc.jit
    def f(x, a):
        y = jnp.concat([jnp.abs(x), jnp.pow(x, 2)])[jnp.newaxis] * jnp.pi
        angles = jnp.acos(jnp.clip(x / 10, -1, 1)) + jnp.euler_gamma
        return y.astype(jnp.float32), angles, jnp.linalg.diagonal(a), jnp.linalg.trace(a), \
            jnp.linalg.solve(a[0] + 3 * jnp.eye(3), x[:3]), jnp.linalg.matrix_power(a[1], 3)

    x = np.linspace(-3, 3, 7)
    a = np.arange(18.0).reshape(2, 3, 3) / 7
    got = f(x, a)
    want = (np.concatenate([np.abs(x), x ** 2])[None].astype(np.float32) * np.float32(np.pi),
            np.arccos(np.clip(x / 10, -1, 1)) + np.euler_gamma, np.linalg.diagonal(a), np.linalg.trace(a),
            np.linalg.solve(a[0] + 3 * np.eye(3), x[:3]), np.linalg.matrix_power(a[1], 3))
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-6)
    assert jnp.finfo(jnp.float32).eps == np.finfo(np.float32).eps


def test_listed_functions_refuse_traced_arrays():
    import numpy as np
    import pytest

    import jitcore as jc

    square = np.ones((2, 2))
    for fn, x in ((np.spacing, square), (np.real_if_close, square + 0j), (np.unique_values, square),
                  (np.trim_zeros, np.ones(2))):
        with pytest.raises((jc.UnsupportedError, jc.JitTypeError)):
            jc.jit(lambda x, _fn=fn: _fn(x))(x)


def test_docs_show_the_not_supported_list():
    from jitcore.numpy.not_supported import markdown

    text = (REPO / "docs" / "numpy_support.md").read_text()
    begin, end = "<!-- not-supported:begin -->\n", "<!-- not-supported:end -->"
    assert begin in text and end in text, "docs/numpy_support.md lacks the not-supported section"
    shown = text[text.index(begin) + len(begin):text.index(end)]
    assert shown == markdown(), "run: python -m jitcore.numpy.not_supported, and paste it into the docs"
