"""The layering of DESIGN §1, read from the source: arrows point one way and no package circles."""

import pytest

from tools.import_graph import circles, module_graph, package_arrows


@pytest.fixture(scope="module")
def graph():
    return module_graph()


def test_layers_point_one_way(graph):
    arrows = package_arrows(graph)
    assert arrows["ir"] == set()
    assert arrows["passes"] <= {"ir"}
    assert arrows["codegen"] <= {"ir"}


def test_the_graph_sees_the_known_arrows(graph):
    # The reader itself must see imports, or the tests above could never fail.
    assert "ir.core" in graph["passes.manager"]
    assert "passes.manager" in graph["passes.cse"]


def test_no_import_circle_in_jitcore(graph):
    assert circles(graph, within="jitcore") == []


def test_a_circle_is_found():
    toy = {"a.x": {"a.y"}, "a.y": {"a.z"}, "a.z": {"a.x"}, "a.w": {"a.x"}}
    assert circles(toy, within="a") == [["a.x", "a.y", "a.z"]]


def test_only_jitcore_config_reads_the_environment():
    """DESIGN §7: environment variables are read in one place; the layers below take values."""
    from tools.import_graph import LAYERS, ROOT
    readers = sorted(str(p.relative_to(ROOT)) for layer in LAYERS for p in (ROOT / layer).rglob("*.py")
                     if "os.environ" in p.read_text() or "getenv(" in p.read_text())
    assert readers == ["jitcore/config.py"]
