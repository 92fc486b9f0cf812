"""Autograph's conversion cache tells apart equal code in different files."""

import importlib.util

import numpy as np

import jitcore as jc
from jitcore import ir

SOURCE = '''
import numpy as np

def g(x):
    if x.sum() > 0:
        return np.tanh(x)
    return x
'''


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_equal_functions_in_two_files_keep_their_own_file(tmp_path):
    paths = []
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        path = tmp_path / folder / "m.py"
        path.write_text(SOURCE)
        paths.append(path)
    first, second = (_load(p, f"same_code_{k}") for k, p in enumerate(paths))
    assert first.g.__code__ == second.g.__code__  # what fooled a cache keyed by code alone
    x = np.ones(4, np.float32)
    for module, path in ((first, paths[0]), (second, paths[1])):
        text = ir.print_op(jc.make_ir(module.g)(x), debug_locations=True)
        assert str(path) in text, text
        other = paths[1] if path == paths[0] else paths[0]
        assert str(other) not in text
