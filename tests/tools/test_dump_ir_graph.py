"""dump-ir --graph (jitcore/graph.py): the optimized program as Graphviz text, checked by
parsing the .dot: one node per op, one edge per array read, labels with shapes and bytes."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest

import jitcore as jc
from jitcore import graph
from tests.tools.dump_ir_runner import ok

SOFTMAX = '''\
import numpy as np


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
'''


def parse_dot(text: str) -> tuple[dict[str, str], list[tuple[str, str, str]]]:
    """(node -> label, [(source, target, label)]) of the writer's Graphviz text."""
    nodes = dict(re.findall(r'^  (\w+) \[shape=[^]]*label="((?:[^"\\]|\\.)*)"\];$', text, re.M))
    edges = re.findall(r'^  (\w+) -> (\w+) \[label="((?:[^"\\]|\\.)*)"\];$', text, re.M)
    return nodes, edges


@pytest.fixture
def softmax_dot(tmp_path: Path, monkeypatch) -> tuple[str, str]:
    monkeypatch.setattr(graph.shutil, "which", lambda name: None)  # the .dot text alone, host or not
    (tmp_path / "softmax.py").write_text(SOFTMAX)
    dot = str(tmp_path / "g.dot")
    out = ok(f"{tmp_path / 'softmax.py'}:softmax", "--args", "f32[64,512]", "--graph", dot)
    return out, (tmp_path / "g.dot").read_text()


def test_softmax_graph_has_a_node_per_op_and_an_edge_per_read(softmax_dot):
    out, text = softmax_dot
    assert text.startswith('digraph "softmax" {') and text.rstrip().endswith("}")
    assert f"// ===== graph: {Path(out.split('graph: ')[1].split(' =====')[0])} =====" in out
    nodes, edges = parse_dot(text)
    kernels = {n: label for n, label in nodes.items() if label.startswith("kernel.generic")}
    body_ops = out.split("// ===== graph")[0].count('"kernel.generic"(')
    assert len(kernels) == body_ops == 4  # max, exp, sum, divide (two reshapes beside)
    assert {label.split("\\n")[0] for n, label in nodes.items() if n not in kernels} == {
        "%arg0", "array.reshape", "result 0"}
    # Every edge joins known nodes; x (64x512 f32 = 128 KiB) feeds the max and the exp, once
    # each, and the exp (computed once, issue 10) feeds the sum and the divide.
    assert all(a in nodes and b in nodes for a, b, _ in edges)
    from_x = [(b, label) for a, b, label in edges if a == "arg0"]
    order = list(kernels)
    assert sorted(b for b, _ in from_x) == sorted(order[:2])
    assert {label for _, label in from_x} == {"64x512 f32\\n128.0 KiB"}
    assert sorted(b for a, b, label in edges if a == order[1]) == sorted(order[2:])
    assert [label for a, b, label in edges if b == "out0"] == ["64x512 f32\\n128.0 KiB"]
    row_values = [label for a, b, label in edges if label.startswith("64 f32")]
    assert row_values == ["64 f32\\n256 B"] * 2  # the row max and the row sum, each to its reshape


def test_kernel_boxes_list_their_ops_iteration_space_and_lines(softmax_dot):
    _, text = softmax_dot
    nodes, _ = parse_dot(text)
    labels = [label.split("\\n") for label in nodes.values() if label.startswith("kernel.generic")]
    assert [lines[1] for lines in labels] == [
        "[64 x 512] (parallel, reduction)", "[64 x 512] (parallel, parallel)"] * 2
    assert labels[0][2:] == ["arith.maximumf", "line 5"]
    assert labels[1][2:] == ["arith.subf", "math.exp", "line 5"]
    assert labels[2][2:] == ["arith.addf", "line 6"]
    assert labels[3][2:] == ["arith.divf", "line 6"]


def test_graph_of_a_module_in_python_counts_repeated_ops():
    def f(x):
        return np.sin(x) * np.sin(x + 1) + x * x

    module = jc.jit(f, cache=False).lower(np.ones(10)).optimized()
    nodes, edges = parse_dot(graph.to_dot(module))
    (kernel,) = [label for label in nodes.values() if label.startswith("kernel.generic")]
    assert "math.sin x2" in kernel and "arith.mulf x2" in kernel and "[10] (parallel)" in kernel
    assert [label for a, b, label in edges if a == "arg0"] == ["10 f64\\n80 B"]


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_dot_renders_svg_when_installed(tmp_path):
    module = jc.jit(lambda x: x + 1, cache=False).lower(np.ones(4)).optimized()
    written = graph.write(module, str(tmp_path / "g.dot"))
    assert written == [str(tmp_path / "g.dot"), str(tmp_path / "g.svg")]
    assert "<svg" in (tmp_path / "g.svg").read_text()
