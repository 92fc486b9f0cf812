"""The guard of the fixed-x86 machine-code tests never skips where it must not."""

import platform

from tests.codegen.x86_target import x86_target_available


def test_an_x86_host_runs_the_fixed_x86_tests():
    # A skip that fired on x86 hosts too would leave test_mathlib's and test_vector_width's
    # machine-code checks unable to fail anywhere.
    if platform.machine().lower() in ("x86_64", "amd64"):
        assert x86_target_available()
