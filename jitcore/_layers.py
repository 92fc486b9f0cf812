"""Finds jitcore.ir, jitcore.passes and jitcore.codegen in a checkout (imported first by
``jitcore/__init__.py``: everything else imports them).

The compiler layers are the repository's top-level folders ir/, passes/, codegen/, but they
import only as jitcore.<layer>, so a user's own ir.py or passes/ cannot shadow them. Installed,
they sit inside the package; in a checkout this maps exactly those three names to the folders
beside it (their submodules then follow the package's __path__).
"""

import importlib.util
import os
import sys

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
LAYERS = ("ir", "passes", "codegen")


class _LayerFinder:
    @staticmethod
    def find_spec(fullname, path=None, target=None):
        package, _, layer = fullname.rpartition(".")
        folder = os.path.join(os.path.dirname(PACKAGE_DIR), layer)
        if package != "jitcore" or layer not in LAYERS or not os.path.isdir(folder):
            return None
        return importlib.util.spec_from_file_location(
            fullname, os.path.join(folder, "__init__.py"), submodule_search_locations=[folder])


if not os.path.isdir(os.path.join(PACKAGE_DIR, "ir")):  # a checkout, not an install
    sys.meta_path.insert(0, _LayerFinder)
