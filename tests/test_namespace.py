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
