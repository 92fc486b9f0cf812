"""Test-wide settings: hypothesis runs derandomized, so CI and local runs draw the same cases
(a failure found once reproduces every time instead of flickering)."""

from hypothesis import settings

settings.register_profile("jitcore", derandomize=True, deadline=None, print_blob=True)
settings.load_profile("jitcore")
