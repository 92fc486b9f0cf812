"""The CUDA backend: a function to a ``GpuPlan`` whose kernels are one PTX module.

``lower`` needs no GPU: it makes PTX for ``arch`` (the device's compute capability once the
runtime has read it from the driver and called ``use_arch``; ``sm_80`` until then). Loading
is the runtime's (``jitcore/cuda/``: the driver JIT-compiles the PTX), not an address in this
process, so ``load`` refuses. Symbols are ``jit_<name>_<hash>`` of the emitted LLVM IR, as on
the CPU; launch ``i`` runs ``<symbol>_k<i>``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re

import numpy as np
from llvmlite import ir as ll

from jitcore.codegen.errors import CodegenError
from jitcore.codegen.host import STATUS, plan_function
from jitcore.codegen.nvptx import checks, kernels, matmul, rowgroup, scatter, target
from jitcore.codegen.nvptx.plan import GpuPlan
from jitcore.codegen.plan import Branch, CompiledFunction, ForLoop, LowerOptions, Run, Storage, WhileLoop
from jitcore.ir.core import Operation
from jitcore.ir.dialects import kernel

_UNHASHED = "0" * 16
_PTX_NAME = re.compile(r"[^A-Za-z0-9_]")


class UnsupportedOnGpuError(CodegenError):
    """The function uses something the CUDA backend does not run (yet)."""


class TrigArgumentRangeError(UnsupportedOnGpuError):
    """A sin, cos or tan on the GPU met an argument beyond the math library's range."""


class NvptxBackend:
    name = "cuda"

    def __init__(self):
        self.arch = target.DEFAULT_ARCH

    def use_arch(self, arch: str) -> None:
        """Generate code for ``arch`` from now on (the runtime's device's)."""
        self.arch = target.check_arch(arch)

    def use_object_cache(self, cache) -> None:
        """Nothing to keep: the GPU backend has no support code of its own."""

    def magic(self) -> tuple[str, str, str]:
        return target.TRIPLE, self.arch, target.ptx_features(self.arch)

    def fingerprint(self) -> str:
        return (f"block={kernels.BLOCK} max_blocks={kernels.MAX_BLOCKS} "
                f"block_reduce_min={kernels.BLOCK_REDUCE_MIN} grid_reduce_min={kernels.GRID_REDUCE_MIN} "
                f"grid_points={kernels.GRID_POINTS} max_grid_blocks={kernels.MAX_GRID_BLOCKS} "
                f"matmul={matmul.SIDE}x{matmul.REGS}x{matmul.DEPTH} big={matmul.BIG_REGS}x{matmul.BIG_DEPTH}"
                f"@{matmul.BIG_MIN_TILES}/{matmul.BIG_MAX_REGISTERS} row_groups={rowgroup.ENABLED} "
                "warp_rows=1 parallel_checks=1 parallel_scatters=1")

    def lower(self, func: Operation, layouts: tuple[str, ...], options: LowerOptions) -> GpuPlan:
        return self.lower_for(func, len(layouts), options, self.arch)

    def lower_for(self, func: Operation, n_args: int, options: LowerOptions, arch: str) -> GpuPlan:
        """``func`` as PTX for ``arch``; every argument is passed C-contiguous (the runtime
        copies it so)."""
        arch = target.check_arch(arch)
        _refuse_unsupported(func)
        name = _PTX_NAME.sub("_", func.sym_name)  # PTX names: letters, digits, _ and $
        draft = f"jit_{name}_{_UNHASHED}"
        plan, ops = plan_function(func, self.name, draft, (True,) * n_args, None)
        for i, (launch, op) in enumerate(zip(plan.launches, ops)):
            if kernels.needs_status(op) and STATUS not in launch.operands:  # a trig kernel's report
                plan.launches[i] = dataclasses.replace(launch, operands=(*launch.operands, STATUS))
                plan.has_status = True
        zeroed = []
        for i, (launch, op) in enumerate(zip(plan.launches, ops)):
            kind = kernels.shape_of(op).kind
            claims = kind == "scatter" and scatter.kind_of(op) == scatter.WINNER
            if kind == "grid-reduce" or claims:  # its blocks' totals and their count; the claims
                scratch = ((scatter.winner_words(op),), np.dtype(np.int32)) if claims else (
                    (kernels.scratch_bytes(op),), np.dtype(np.uint8))
                plan.buffers.append(scratch)
                zeroed.append(len(plan.buffers) - 1)
                plan.launches[i] = dataclasses.replace(
                    launch, operands=(*launch.operands, Storage("buffer", zeroed[-1])))
        module = ll.Module(name=draft)
        module.triple = target.TRIPLE
        grouped = {}  # launch index -> its row group (launch indices), for the group's members
        for group in rowgroup.row_groups(plan, ops):
            grouped.update((i, group) for i in group)
        shapes = []
        for i, (launch, op) in enumerate(zip(plan.launches, ops)):
            group = grouped.get(i)
            if group is None:
                shapes.append(kernels.emit_kernel(module, launch.kernel, op, options.fastmath, tag=i + 1))
            elif group[0] == i:  # the group runs as its first launch, with every member's operands
                shapes.append(rowgroup.emit_group(module, launch.kernel, [ops[j] for j in group],
                                                  options.fastmath))
                operands = tuple(s for j in group for s in plan.launches[j].operands)
                plan.launches[i] = dataclasses.replace(launch, operands=operands)
            else:  # run inside its group's launch: never launched itself
                shapes.append(kernels.LaunchShape("in-row-group", 0, 0))
        writes = {}  # a scatter's launch -> its second launch (scatter.py), run right after it
        for i, (op, shape) in enumerate(zip(ops, shapes)):
            if shape.kind == "scatter":
                writes[i] = len(plan.launches)
                second = dataclasses.replace(plan.launches[i], kernel=f"{plan.launches[i].kernel}_write")
                plan.launches.append(second)
                shapes.append(kernels.emit_scatter_write(module, second.kernel, op, options.fastmath, i + 1))
        if writes:
            plan.program = _followed(plan.program, writes)
        if grouped:
            skipped = {i for i, group in grouped.items() if group[0] != i}
            plan.program = [s for s in plan.program if not (isinstance(s, Run) and s.launch in skipped)]
        places = {}
        for i, (op, shape) in enumerate(zip(ops, shapes)):
            if shape.grid and shape.kind != "serial" and kernel.checks_indices(op):
                places.update(checks.places(op, i + 1))
        parameters = max((_parameter_bytes(f) for f in module.functions
                          if f.calling_convention == "ptx_kernel"), default=0)
        if parameters > target.LARGE_PARAMETER_BYTES:
            raise UnsupportedOnGpuError(
                f"a kernel of {func.sym_name} takes {parameters} bytes of parameters (one pointer for "
                f"each array it reads or writes), more than a GPU kernel may take "
                f"({target.LARGE_PARAMETER_BYTES}): fewer separate arrays in one expression "
                f"(np.stack or np.concatenate of thousands of pieces, say) or backend='cpu'")
        text = str(module)
        symbol = f"jit_{name}_{hashlib.sha256((arch + text).encode()).hexdigest()[:16]}"
        gpu = GpuPlan(**{f.name: getattr(plan, f.name) for f in dataclasses.fields(CompiledFunction)})
        gpu.symbol, gpu.arch, gpu.shapes, gpu.zeroed = symbol, arch, shapes, zeroed
        gpu.check_places = places
        gpu.launches = [dataclasses.replace(launch, kernel=launch.kernel.replace(draft, symbol))
                        for launch in plan.launches]
        gpu.llvm_ir = text.replace(draft, symbol)
        optimized, ptx = target.compile_ptx(gpu.llvm_ir, arch, parameters > target.PARAMETER_BYTES)
        gpu.optimized_llvm_ir = str(optimized)
        gpu.object_code = ptx.encode()
        return gpu

    def load(self, plan: CompiledFunction) -> int:
        raise CodegenError("a CUDA plan is loaded onto a GPU by jitcore's CUDA runtime "
                           "(jitcore.cuda), not into this process")

    def assembly(self, plan: CompiledFunction) -> str:
        return plan.object_code.decode()


def _parameter_bytes(fn: ll.Function) -> int:
    """The parameter space a kernel takes: 8 bytes a pointer, a number its own size."""
    return sum(max(a.type.width // 8, 1) if isinstance(a.type, ll.IntType) else 8 for a in fn.args)


def _refuse_unsupported(func: Operation) -> None:
    for op in func.walk():
        if isinstance(op, kernel.GenericOp) and op.epilogue is not None:
            raise UnsupportedOnGpuError(
                "jitcore's CUDA backend does not apply a reduction's fused epilogue: compile "
                "with the GPU's default pipeline, or add 'reduction-epilogue=false' to the "
                "pipeline's fuse{...} options")


def _followed(steps, writes: dict[int, int]) -> list:
    """``steps`` with ``Run(writes[i])`` right after each ``Run(i)``, in nested steps too."""
    out = []
    for step in steps:
        if isinstance(step, Run):
            out += [step, Run(writes[step.launch])] if step.launch in writes else [step]
        elif isinstance(step, ForLoop):
            out.append(dataclasses.replace(step, body=tuple(_followed(step.body, writes))))
        elif isinstance(step, WhileLoop):
            out.append(dataclasses.replace(step, before=tuple(_followed(step.before, writes)),
                                           body=tuple(_followed(step.body, writes))))
        elif isinstance(step, Branch):
            out.append(dataclasses.replace(step, then=tuple(_followed(step.then, writes)),
                                           otherwise=tuple(_followed(step.otherwise, writes))))
        else:
            out.append(step)
    return out
