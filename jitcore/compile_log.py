"""The compile log: what ``JITCORE_LOG_COMPILES=1`` (or ``jitcore.config.log_compiles = True``)
prints for every trace and compile, and why the compile cache missed.

Each line goes to the ``logging`` logger ``"jitcore"`` at WARNING, so it shows without any
logging setup (Python's last-resort handler prints warnings to stderr), as JAX's
``log_compiles`` does. A line names the function, its signature, the time of each stage
(tracing, disk cache, optimizing, code generation) and, for a function that compiled before,
which argument differs from the closest signature it has compiled: its shape, dtype, layout or
static value (JAX's ``explain_cache_misses``). Nothing here runs on a cached call.
"""

from __future__ import annotations

import logging

from jitcore.compile_time import CompileClock
from jitcore.ir import layout_class

logger = logging.getLogger("jitcore")

# The stages a line reports; the passes and the verifier count as optimizing.
STAGES = ("tracing", "disk cache", "optimizing", "code generation")


def describe_spec(spec) -> str:
    """One argument leaf as ``float32[3,4]``, with its layout class when it is not
    C-contiguous (``fortran``, ``reversed``, ``C order, axis 0 reversed``, ``strided``) and
    ``weak`` for a Python scalar (its dtype follows the other operands)."""
    text = f"{spec.dtype}[{','.join(map(str, spec.shape))}]"
    if spec.layout != layout_class.C:
        text += " " + ("fortran" if spec.layout == layout_class.F else layout_class.describe(spec.layout))
    if spec.weak:
        text += " weak"
    return text


def describe_signature(key, paths: list[str], name_of) -> str:
    """A signature key (``JitFunction._signature_key``'s) as ``x: float32[3], n=4``; ``name_of``
    turns a static argument's position or name into its parameter's name."""
    _, specs, static = key
    parts = [f"{path}: {describe_spec(spec)}" for path, spec in zip(paths, specs)]
    parts += [f"{name_of(k)}={v!r}" for k, v in static]
    return ", ".join(parts)


def _spec_change(old, new) -> list[str]:
    """What changed in one argument leaf: its shape, dtype, layout (none if nothing)."""
    what = []
    if old.shape != new.shape:
        what.append(f"shape {old.shape} -> {new.shape}")
    if old.dtype != new.dtype or old.weak != new.weak:
        what.append(f"dtype {describe_spec(old).split('[')[0]}{' weak' if old.weak else ''} -> "
                    f"{describe_spec(new).split('[')[0]}{' weak' if new.weak else ''}")
    if old.layout != new.layout:
        what.append(f"layout {layout_class.describe(old.layout)} -> {layout_class.describe(new.layout)}")
    if old.int_range != new.int_range and old.dtype == new.dtype:
        what.append(f"Python int range {old.int_range} -> {new.int_range}")
    return what


def _differences(old_key, new_key, paths: list[str], name_of) -> list[tuple[str, list[str]]]:
    """Per changed argument, its name and what changed in it."""
    old_tree, old_specs, old_static = old_key
    new_tree, new_specs, new_static = new_key
    if old_tree != new_tree:
        return [("the arguments' structure", [f"{old_tree} -> {new_tree}"])]
    changes = [(path, what) for path, a, b in zip(paths, old_specs, new_specs)
               if (what := _spec_change(a, b))]
    old_values, new_values = dict(old_static), dict(new_static)
    for k in sorted(set(old_values) | set(new_values), key=str):
        old, new = old_values.get(k, ...), new_values.get(k, ...)
        if old != new or type(old) is not type(new):  # 1 == 1.0, but True hashes as 1: say so
            changes.append((f"static {name_of(k)}", [f"{old!r} -> {new!r}"]))
    return changes


def explain_miss(new_key, cached_keys, dropped_keys, paths: list[str], name_of) -> str:
    """Why ``new_key`` missed: that it was compiled and dropped since, else the differences
    from the cached signature closest to it (the fewest changed properties), else that nothing
    was compiled yet."""
    if new_key in dropped_keys:
        return "this signature was compiled before and dropped (max_signatures or clear_cache)"
    best, fewest = None, None
    for old_key in cached_keys:
        changes = _differences(old_key, new_key, paths, name_of)
        count = sum(len(what) for _, what in changes)
        if best is None or count < fewest:
            best, fewest = changes, count
    if best is None:
        return "first compile"
    return "; ".join(f"{name}: {', '.join(what)}" for name, what in best)


def stage_times(clock: CompileClock) -> dict[str, float]:
    """The clock's seconds under the four stages the log reports (passes count as optimizing)."""
    times = dict.fromkeys(STAGES, 0.0)
    for stage, seconds in clock.stages.items():
        times[stage if stage in times else "optimizing"] += seconds
    return times


def log_compile(name: str, signature: str, why: str, clock: CompileClock, from_disk: bool) -> None:
    """One line for one trace and compile of ``name``."""
    times = stage_times(clock)
    stages = ", ".join(f"{stage} {seconds * 1e3:.1f} ms" for stage, seconds in times.items())
    source = " (code from the disk cache)" if from_disk else ""
    logger.warning("jitcore: compiled %s(%s) in %.1f ms%s: %s. Cache miss: %s",
                   name, signature, clock.total * 1e3, source, stages, why)


def log_trace(name: str, signature: str, seconds: float, purpose: str) -> None:
    """One line for a trace that compiles nothing (``lower``, ``make_ir``)."""
    logger.warning("jitcore: traced %s(%s) in %.1f ms for %s", name, signature, seconds * 1e3, purpose)


def log_static_on_demand(name: str, arguments: list[str], error: BaseException) -> None:
    """One line for arguments made static because a trace needed their values."""
    first = str(error).splitlines()[0] if str(error) else type(error).__name__
    logger.warning("jitcore: %s(): made %s static, since the trace needed the value (%s); "
                   "tracing again", name, ", ".join(arguments), first)
