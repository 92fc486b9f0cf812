"""Passes over the IR and the manager that runs them; importing this package registers them."""

from jitcore.passes import (  # noqa: F401  (registers the passes)
    canonicalize,
    cse,
    dce,
    fuse,
    interchange,
    kernelize,
    licm,
    permuted_results,
)
from jitcore.passes.manager import (
    PASSES,
    Pass,
    PassFailure,
    PassManager,
    PipelineError,
    format_pipeline,
    parse_pass,
    parse_pipeline,
    register_pass,
)

__all__ = ["PASSES", "Pass", "PassFailure", "PassManager", "PipelineError", "format_pipeline", "parse_pass",
           "parse_pipeline", "register_pass"]
