"""Mutation check: does the test suite catch seeded bugs?

Each mutant is one small textual edit of the compiler (an op compiled as another, a fold made
unsafe for -0.0 or NaN, a reduction that skips its last element, an index off by one, a
predicate always false, a wrong broadcast stride, ...). The tool copies the tree (the files git
tracks plus untracked ones it does not ignore) to a temporary folder per mutant, applies the edit
there and runs the mutant's tests with pytest. A mutant is *caught* when a test fails; *survived*
when all its tests pass (a gap in the suite); *broken* when pytest could not even run (an import
or collection error, which says nothing about the tests). Every mutant must be caught.

    python tools/mutants.py                 # all mutants, 2 at a time; exit 1 unless all caught
    python tools/mutants.py -k isnan -j 1   # the mutants whose name contains "isnan"
    python tools/mutants.py --list          # names, files and tests
    python tools/mutants.py --check         # only check that every edit still applies

Each edit's ``old`` text must occur exactly once in its file; when the code moves on, ``--check``
(also run by tests/tools/test_mutants.py) says which mutant to update. Run the tool when you
change passes or codegen.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Tests every mutant runs, on top of its own: the differential NumPy tables and the pass tests.
CORE_TESTS = ("tests/jitcore/test_numpy_coverage.py", "tests/jitcore/test_numpy_parity.py")


@dataclass(frozen=True)
class Mutant:
    name: str
    path: str
    old: str
    new: str
    why: str
    tests: tuple[str, ...] = ()

    def apply(self, root: Path) -> None:
        file = root / self.path
        text = file.read_text()
        count = text.count(self.old)
        if count != 1:
            raise ValueError(f"mutant {self.name}: {self.path} holds its edit {count} times, not once")
        file.write_text(text.replace(self.old, self.new))

    def all_tests(self) -> list[str]:
        return list(dict.fromkeys(self.tests + CORE_TESTS))


MUTANTS = [
    Mutant("derived-extent-off-by-one", "codegen/loops.py",
           'return s, 1, 1, n - s\n    for scale', 'return s, 1, 1, n - s + 1\n    for scale',
           "an extent near a symbol (n - 2) derived one too large: a loop's bound, a read's offset",
           ("tests/jitcore/test_loops_size_generic.py", "tests/jitcore/test_size_generic.py")),
    Mutant("peeled-last-steps-dropped", "jitcore/autograph/statements.py",
           "for last in iterable[trips - tail:]:", "for last in iterable[trips:]:",
           "a loop's steps held back for after its middle never run (x[i - 1:i + 2] windows)",
           ("tests/jitcore/test_loops_size_generic.py",)),
    Mutant("counted-while-counter-one-step-short", "jitcore/autograph/statements.py",
           "return (*out[:k], start + len(rng) * step, *out[k:])",
           "return (*out[:k], start + (len(rng) - 1) * step, *out[k:])",
           "a counted while loop leaves its counter at the last value it ran, not the first that fails",
           ("tests/jitcore/test_counted_loops_size_generic.py",)),
    Mutant("counted-while-inclusive-bound-dropped", "jitcore/autograph/statements.py",
           'rng = range(start, n + {"<=": 1, ">=": -1}.get(compare, 0), step)',
           "rng = range(start, n, step)",
           "while i <= n runs as range(i, n): its last step is lost",
           ("tests/jitcore/test_counted_loops_size_generic.py",)),
    Mutant("derived-fraction-wrong-divisor", "codegen/loops.py",
           "value = b.udiv(value, extent(divisor), ", "value = b.udiv(value, extent(divisor + 1), ",
           "an extent n // 3 computed as n // 4 at run time (reshape(3, -1), np.zeros(n // 3))",
           ("tests/jitcore/test_counted_loops_size_generic.py", "tests/jitcore/test_size_generic.py")),
    Mutant("short-shape-loops-unrolled", "jitcore/autograph/statements.py",
           "return len(rng) > 1 and (_sized(rng.stop)", "return False and (_sized(rng.stop)",
           "a short range over a shape unrolled again: one compile per size",
           ("tests/jitcore/test_counted_loops_size_generic.py",)),
    Mutant("loop-result-keeps-0d-arrays", "jitcore/autograph/statements.py",
           "return loop.result(out, ran=static and len(range(start, stop, step)) > 0)",
           "return loop.result(out)",
           "a loop that ran leaves s = np.zeros(()) a 0-d array where its body made s a NumPy scalar",
           ("tests/jitcore/test_counted_loops_size_generic.py",)),

    Mutant("gamma-loses-negative-zero", "codegen/mathlib.py",
           "        factor = y if shift == 1.0 else m.add(y, m.c(shift - 1.0))",
           "        factor = m.add(y, m.c(shift - 1.0))",
           "gamma's denominator takes y + 0.0 (+0.0 for -0.0): gamma(-0.0) is +inf, C's is -inf",
           ("tests/codegen/test_mathlib.py",)),
    Mutant("erfc-tail-clamped-early", "codegen/mathlib.py",
           "    ac = _clamp(m, a, 0.5, 27.25)", "    ac = _clamp(m, a, 0.5, 26.0)",
           "erfc's argument clamped before its underflow: erfc(26.5) is erfc(26)",
           ("tests/codegen/test_mathlib.py",)),
    Mutant("lambda-span-without-margin", "jitcore/autograph/convert.py",
           "node.col_offset + margin, node.end_col_offset + margin",
           "node.col_offset, node.end_col_offset",
           "lambda columns read in the dedented source: indented lambdas sharing a line stay unconverted",
           ("tests/jitcore/test_autograph.py",)),
    Mutant("calltime-guards-jitcore-cells", "jitcore/calltime.py",
           "        if is_jitcore_file(code.co_filename):", "        if False:",
           "jitcore.numpy's cells (a reduction's name) become call-time guards: calls leave the native path",
           ("tests/jitcore/test_native_call.py",)),
    Mutant("subf-as-addf", "codegen/scalar.py",
           '"arith.subf": "fsub"', '"arith.subf": "fadd"',
           "an op compiled as another: float subtraction emits an addition",
           ("tests/codegen",)),
    Mutant("unsigned-compare-as-signed", "codegen/scalar.py",
           '    "ugt": (">", False), "uge": (">=", False),\n}\nSIMPLE',
           '    "ugt": (">", True), "uge": (">=", False),\n}\nSIMPLE',
           "an op compiled as another: unsigned > compares signed",
           ("tests/codegen",)),
    Mutant("less-as-less-equal", "codegen/scalar.py",
           '"olt": ("<", True)', '"olt": ("<=", True)',
           "a float < that is true on equal operands",
           ("tests/codegen",)),
    Mutant("max-drops-nan", "codegen/scalar.py",
           'return b.select(b.or_(better, b.fcmp_unordered("uno", x, x)), x, y)',
           "return b.select(better, x, y)",
           "np.maximum/np.minimum no longer propagate a NaN in the first operand",
           ("tests/codegen",)),
    Mutant("int-divide-by-zero", "codegen/scalar.py",
           'b.urem(x, safe)\n        return b.select(is_zero, zero, out)',
           "b.urem(x, safe)\n        return out",
           "unsigned x // 0 gives x instead of NumPy's 0",
           ("tests/codegen",)),
    Mutant("invariant-divide-by-zero", "codegen/intdiv.py",
           'b.sub(x, b.mul(q, safe))\n        return b.select(d_zero, zero, out)',
           'b.sub(x, b.mul(q, safe))\n        return out',
           "unsigned x // d by a scalar d = 0 gives x instead of NumPy's 0",
           ("tests/codegen/test_intdiv.py",)),
    Mutant("magic-number-one-short", "codegen/intdiv.py",
           "low = b.add(low, one)", "low = low",
           "the 64-bit magic number one too small: some quotients one short",
           ("tests/codegen/test_intdiv.py",)),
    Mutant("byte-quotient-by-one-dropped", "codegen/intdiv.py",
           "b.and_(wide, magic.one)", "ll.Constant(I16, 0)",
           "an 8-bit x // d by a scalar d = 1 or -1 gives 0 instead of x",
           ("tests/codegen/test_intdiv.py",)),
    Mutant("reciprocal-correction-dropped", "codegen/intdiv.py",
           'b.add(b.add(q0, k), b.zext(b.icmp_unsigned(">=", rest, d), n.type))', "b.add(q0, k)",
           "a 64-bit array division without its last correction: some quotients one short",
           ("tests/codegen/test_intdiv.py",)),
    Mutant("reciprocal-not-scaled-down", "codegen/intdiv.py",
           "ll.Constant(f, 1.0 - 2.0 ** -49)", "ll.Constant(f, 1.0)",
           "a 64-bit array division whose first estimate may pass the quotient (its rest wraps)",
           ("tests/codegen/test_intdiv.py",)),
    Mutant("float-quotient-truncated", "codegen/intdiv.py",
           'declare_intrinsic("llvm.floor"', 'declare_intrinsic("llvm.trunc"',
           "an array division of 8- to 32-bit ints rounds toward zero, not down (C's, not Python's)",
           ("tests/codegen/test_intdiv.py",)),
    Mutant("add-zero-fold", "ir/dialects/array/elementwise.py",
           'negative_zero=True if is_float and self.kind == "add" else None',
           "negative_zero=None",
           "a fold made unsafe for -0.0: x + 0.0 -> x",
           ("tests/passes", "tests/ir")),
    Mutant("mul-zero-fold", "ir/dialects/array/elementwise.py",
           'if self.kind == "mul" and not is_float and is_splat(y, 0):',
           'if self.kind == "mul" and is_splat(y, 0):',
           "a fold made unsafe for NaN and inf: x * 0.0 -> 0.0",
           ("tests/passes", "tests/ir")),
    Mutant("where-fold-swapped", "ir/dialects/array/elementwise.py",
           "return [a if splat_value(c) else b]", "return [b if splat_value(c) else a]",
           "select with a constant condition folds to the wrong branch",
           ("tests/passes", "tests/ir")),
    Mutant("cse-ignores-attributes", "passes/cse.py",
           "return (op.op_name, operands, attributes, tuple(op.result_types))",
           "return (op.op_name, operands, tuple(op.result_types))",
           "CSE merges ops that differ only in attributes (constants, axes)",
           ("tests/passes",)),
    Mutant("isnan-always-false", "passes/kernelize/scalar.py",
           'return self.isnan(x) if fam == "f" else self.const(False, i1)',
           'return self.op("arith.cmpf", x, x, result=i1, predicate="one") if fam == "f" '
           "else self.const(False, i1)",
           "a predicate always false: np.isnan as an ordered not-equal of x with itself",
           ("tests/passes",)),
    Mutant("dce-says-unchanged", "passes/dce.py",
           "            changed = True\n        return changed",
           "            changed = True\n        return False",
           "a pass that removed ops says it changed nothing (the pass manager verifies only after a change)",
           ("tests/passes",)),
    Mutant("argmax-last-tie", "passes/kernelize/index.py",
           'predicate="ugt" if kind == "max" else "ult"',
           'predicate="uge" if kind == "max" else "ult"',
           "argmax takes the last of equal maxima, not NumPy's first",
           ("tests/jitcore/test_argreduce_scan.py",)),
    Mutant("reduction-skips-last", "codegen/cpu/reduction.py",
           "self.leftover = extent(known % lanes)",
           "self.leftover = extent(max(known % lanes - 1, 0))",
           "a blocked reduction that skips the last element of its remainder",
           ("tests/jitcore/test_argreduce_scan.py", "tests/codegen/test_reductions.py")),
    Mutant("reduction-skips-last-at-run-time", "codegen/cpu/reduction.py",
           "self.leftover = b.sub(trip_count, self.rest)",
           "self.leftover = b.sub(trip_count, b.add(self.rest, extent(1)))",
           "a blocked reduction of a run-time length (a size-generic kernel's) that skips the "
           "last element of its remainder",
           ("tests/codegen/test_reductions.py",)),
    Mutant("cascade-loses-carries", "codegen/cpu/reduction.py",
           "self.b.store(value, self._level(k, top, lane))",
           "self.b.store(value, self._level(k, ll.Constant(I64, 0), lane))",
           "a row's block total always lands on cascade level 0, dropping the blocks it carried",
           ("tests/codegen/test_reductions.py",)),
    Mutant("folded-producer-stores-other-values", "codegen/cpu/producer_folds.py",
           "own.store(n_in + k, ivs, r, y)",
           "own.store(n_in + k, ivs, r, own.b.fadd(y, y))",
           "a row sum with its elementwise producer folded in stores values other than those it "
           "adds (twice each)",
           ("tests/codegen/test_producer_folds.py",)),
    Mutant("side-by-side-blocks-pushed-low", "codegen/cpu/reduction.py",
           "self.push_block(b.lshr(first, extent(levels)) if levels else first, levels)",
           "self.push_block(b.lshr(first, extent(levels)) if levels else first, 0)",
           "a run of blocks reduced side by side is pushed onto the cascade's lowest level, as "
           "one block, not at the level its blocks reach: other merges, other bits",
           ("tests/codegen/test_reductions.py",)),
    Mutant("vector-dot-on-blas", "codegen/cpu/gemm.py",
           'if routine_for(c) == "dot" and c.extent(c.batch) == 1:',
           'if routine_for(c) == "none" and c.extent(c.batch) == 1:',
           "a vector-vector product calls BLAS dot (its own order) instead of the documented sum",
           ("tests/jitcore/test_linalg.py::test_vector_products_are_sums_in_the_documented_order",)),
    Mutant("column-skips-last-row", "codegen/cpu/reduction.py",
           "self.leftover = extent(known % STEPS)",
           "self.leftover = extent(max(known % STEPS - 1, 0))",
           "a column reduction that skips the last of its tail rows",
           ("tests/codegen/test_reductions.py",)),
    Mutant("column-skips-last-row-at-run-time", "codegen/cpu/reduction.py",
           "self.leftover = b.sub(rows, self.start)",
           "self.leftover = b.sub(rows, b.add(self.start, extent(1)))",
           "a column reduction of a run-time row count (a size-generic kernel's) that skips the "
           "last of its tail rows",
           ("tests/codegen/test_reductions.py",)),
    Mutant("scan-skips-last", "codegen/cpu/schedule.py",
           "rest = self._minus(trip_count, 1)",
           "rest = self._minus(trip_count, 2)",
           "cumsum/cumprod stop one element early",
           ("tests/jitcore/test_argreduce_scan.py",)),
    Mutant("negative-index-off-by-one", "codegen/kernel_body.py",
           "b.add(i, n), i)", "b.add(i, ll.Constant(I64, size - 1)), i)",
           "an index off by one: a negative array index wraps to i + n - 1",
           ("tests/jitcore/test_indexing.py",)),
    Mutant("slice-start-off-by-one", "passes/kernelize/shape.py",
           "amap = AffineMap(rank, tuple(AffineExpr(k, s, b) for",
           "amap = AffineMap(rank, tuple(AffineExpr(k, s, b + (s > 1)) for",
           "an index off by one: slices with a step above 1 start one element late",
           ("tests/jitcore/test_indexing.py",)),
    Mutant("strides-in-wrong-units", "codegen/host.py",
           "itemsize = ll.Constant(I64, itemsize)",
           "itemsize = ll.Constant(I64, 8)",
           "a strided argument's byte strides divided by 8 whatever its dtype (right for 8-byte "
           "elements only)",
           ("tests/jitcore/test_inplace.py", "tests/jitcore/test_indexing.py")),
    Mutant("compile-without-claiming-key", "jitcore/api.py",
           "if future is None or owner == me:", "if True:",
           "threads missing on one signature each compile it (no per-key claim)",
           ("tests/jitcore/test_threads.py",)),
    Mutant("error-without-user-line", "jitcore/api.py",
           "add_user_line(e, self.fun)\n            if self.autograph:", "if self.autograph:",
           "errors raised while tracing no longer name the user's line",
           ("tests/jitcore/test_errors.py",)),
    Mutant("fuse-recomputes-more", "passes/fuse.py",
           "max_recompute: int = 2", "max_recompute: int = 3",
           "the fusion cost rule recomputes a 3-op producer per consumer (same numbers, more work)",
           ("tests/filecheck",)),
    Mutant("gemm-ignores-transpose", "codegen/cpu/gemm.py",
           "b.select(as_c, ll.Constant(I32, NO_TRANS), ll.Constant(I32, TRANS))",
           "ll.Constant(I32, NO_TRANS)",
           "a BLAS matrix product reads a transposed operand as if it were not transposed",
           ("tests/jitcore/test_linalg.py", "tests/codegen/test_blas.py")),
    Mutant("tiled-gemm-forgets-earlier-k-blocks", "codegen/cpu/tiled_gemm.py",
           "b.store(b.fadd(old, accs[i][j]), at)", "b.store(accs[i][j], at)",
           "a whole tile of the tiled matrix product keeps only its last block of k",
           ("tests/codegen/test_tiled_gemm.py",)),
    Mutant("tiled-gemm-edge-kernel-reads-b-at-its-own-width", "codegen/cpu/tiled_gemm.py",
           "b_stride = b_stride or tile.nr", "b_stride = tile.nr",
           "the last, narrower panel's kernel reads packed B as if its panels were as narrow",
           ("tests/codegen/test_tiled_gemm.py",)),
    Mutant("tiled-gemm-transposed-pack-drops-the-lane", "codegen/cpu/tiled_gemm.py",
           "at = b.add(b.mul(b.add(kk0, self.const(lane)), self.const(kstep)), x)",
           "at = b.add(b.mul(kk0, self.const(kstep)), x)",
           "packing a transposed operand stores a cache line's values of k all at its first k",
           ("tests/codegen/test_tiled_gemm.py",)),
    Mutant("gemm-scratch-never-kept", "codegen/cpu/gemm_scratch.py",
           "pair = b.cmpxchg(_slot(b, n), ll.Constant(I64, 0),",
           "pair = b.cmpxchg(_slot(b, n), ll.Constant(I64, -1),",
           "the tiled matrix product's packing buffer is freed after every call, never kept",
           ("tests/codegen/test_tiled_gemm.py",)),
    Mutant("gemm-scratch-reuses-a-small-buffer", "codegen/cpu/gemm_scratch.py",
           'b.icmp_unsigned(">=", b.load(kept, typ=I64), size)',
           'b.icmp_unsigned(">=", size, size)',
           "a kept packing buffer is used for a product that needs more than it has",
           ("tests/codegen/test_tiled_gemm.py",)),
    Mutant("gemm-epilogue-on-every-k-block", "codegen/cpu/tiled_gemm.py",
           'last_block = b.icmp_signed(">=", b.add(pc, kc), self.const(depth))',
           'last_block = b.icmp_signed(">=", b.add(pc, kc), self.const(0))',
           "a fused GEMM epilogue is applied after every block of k, not once after the last",
           ("tests/codegen/test_gemm_epilogue.py",)),
    Mutant("gemm-epilogue-forgets-column-block", "codegen/cpu/tiled_gemm.py",
           "self.finish(ic, jc, mc, nc)", "self.finish(ic, self.const(0), mc, nc)",
           "a fused GEMM epilogue runs on the first column block instead of its own",
           ("tests/codegen/test_gemm_epilogue.py",)),
    Mutant("gemm-epilogue-fuses-shared-product", "passes/gemm_epilogue.py",
           "if len(users) != 1:", "if len(users) < 1:",
           "a matrix product with another reader is fused into one of its elementwise readers",
           ("tests/codegen/test_gemm_epilogue.py",)),
    Mutant("fuse-recomputes-shared-exp", "passes/fuse.py",
           "    store_shared_math: bool = True", "    store_shared_math: bool = False",
           "softmax's exp(x - max) is computed twice per element again (issue 10, exp once)",
           ("tests/codegen/test_exp_once.py",)),
    Mutant("fuse-ignores-reads-once", "passes/fuse.py",
           "if users == {id(consumer)} and reads_once:",
           "if users == {id(consumer)}:",
           "an expensive producer is recomputed per broadcast element of its only consumer",
           ("tests/filecheck",)),
    Mutant("fuse-clones-a-producer-read-twice", "passes/fuse.py",
           "and sum(getattr(v, \"op\", None) is producer for v in consumer.operands) == 1)",
           "and sum(getattr(v, \"op\", None) is producer for v in consumer.operands) >= 1)",
           "a costly producer read through two shifted operands is inlined twice (bodies that "
           "double at each step of a backward induction)",
           ("tests/filecheck",)),
    Mutant("complex-product-swapped", "ir/core.py",
           'return not any(getattr(t, "is_complex", False) for t in elements)', "return True",
           "canonicalize and CSE swap the operands of a complex product (not commutative bit for bit)",
           ("tests/jitcore/test_complex.py", "tests/passes")),
    Mutant("broadcast-constants-folded", "ir/dialects/array/shape.py",
           "BROADCAST_FOLD_LIMIT = 1024", "BROADCAST_FOLD_LIMIT = 1 << 30",
           "a small table broadcast over a large array is folded into a dense copy again (an FFT "
           "stage then reads tables as long as its data: 2^16 points 30 ms instead of 0.7 ms)",
           ("tests/jitcore/test_fft.py::test_tables_stay_small",)),
    Mutant("broadcast-stride", "passes/kernelize/shape.py",
           "dims = [None if src.shape[i] == 1 and out_type.shape[d] != 1 else d",
           "dims = [d if src.shape[i] == 1 and out_type.shape[d] != 1 else d",
           "a wrong broadcast stride: a broadcast size-1 axis is read with the output's index",
           ("tests/passes",)),
    Mutant("transpose-map-inverted", "passes/kernelize/shape.py",
           "dims = [op.permutation.index(axis) for axis in range(src.rank)]",
           "dims = [op.permutation[axis] for axis in range(src.rank)]",
           "a transpose read through the permutation instead of its inverse (differs from rank 3)",
           ("tests/passes",)),
    Mutant("chunks-overlap", "codegen/cpu/runtime.py",
           "return b.add(b.mul(c, quotient), b.select(b.icmp_signed(\"<\", c, remainder), c, remainder))",
           "return b.add(b.mul(c, quotient), remainder)",
           "a split launch's chunks start at c*q + r: the first r positions are never computed "
           "and chunks overlap where the extent does not divide evenly",
           ("tests/codegen/test_threads_runtime.py",)),
    Mutant("reversed-read-range-one-too-long", "codegen/positions.py",
           "        hi = e.offset // step + 1",
           "        hi = e.offset // step + 2",
           "a reversed read (negative scale) counted inside one position past its last: its clamp "
           "left out where it binds, a load one element before the operand",
           ("tests/codegen/test_roll_speed_shape.py",)),
    Mutant("bucket-chunks-miss-their-first-bucket", "codegen/cpu/sort_buckets.py",
           'before = b.icmp_unsigned("<", start_of(mid), position)',
           'before = b.icmp_unsigned("<=", start_of(mid), position)',
           "a chunk of the float sort's bucket launch takes the buckets starting after its first "
           "key instead of at it: a bucket starting where a chunk starts is never sorted",
           ("tests/jitcore/test_sorting.py",)),
    Mutant("bucket-pieces-start-after-their-own-keys", "codegen/cpu/sort_buckets.py",
           "b.store(b.add(start, b.load(slot(c - 1, r), typ=I32)), slot(c, r))",
           "b.store(b.add(start, b.load(slot(c, r), typ=I32)), slot(c, r))",
           "a piece of a float sort's lane (after the first) starts in each bucket after the keys "
           "of itself and the pieces before it, not of those before it only: keys land in the "
           "next bucket or past the lane",
           ("tests/jitcore/test_sorting.py",)),
    Mutant("select-equals-end-one-late", "codegen/cpu/sort_select.py",
           'b.cbranch(b.icmp_signed("<", k, equal), done, next_round)',
           'b.cbranch(b.icmp_signed("<=", k, equal), done, next_round)',
           "a partition's selection stops where its rank is just past the pivot's equals: the "
           "element there is any larger one, not the next in order",
           ("tests/jitcore/test_select.py",)),
    Mutant("select-largest-to-the-front", "codegen/cpu/sort_select.py",
           "lane.swap(b.sub(hi, _c(1)) if largest else lo, b.load(best, typ=I64))",
           "lane.swap(lo, b.load(best, typ=I64))",
           "a rank at the end of its range gets the range's first element; the largest goes to "
           "the front (a median's last place, which says whether the lane held NaN)",
           ("tests/jitcore/test_select.py",)),
    Mutant("pool-keeps-parent-workers", "codegen/cpu/thread_pool.py",
           'with b.if_then(b.icmp_signed("!=", e.load("owner_pid"), pid), likely=False):',
           'with b.if_then(b.icmp_signed("==", e.load("owner_pid"), ll.Constant(I64, 0)), likely=False):',
           "a forked child believes it has its parent's pool workers: it starts none, and its "
           "launches run on the caller alone (and its mutex may be a copy held at the fork)",
           ("tests/codegen/test_thread_pool.py",)),
    Mutant("pool-nested-launch-shares", "codegen/cpu/thread_pool.py",
           'b.cbranch(b.icmp_signed("==", holder, pid), alone, steal)',
           'b.cbranch(b.icmp_signed("==", holder, pid), owned, steal)',
           "a launch made while the pool is busy (another Python thread's, or from inside a "
           "kernel) takes the pool too: two launches' contexts and counters mixed",
           ("tests/codegen/test_thread_pool.py",)),
    Mutant("pieces-counter-off-by-one", "codegen/cpu/full_reduction.py",
           "cascade.push_block(piece)", "cascade.push_block(b.add(piece, extent(1)))",
           "a full reduction's merge counts whole pieces from 1: they carry at other levels "
           "than the unsplit cascade's blocks, so another tree, other bits than one thread's",
           ("tests/codegen/test_threads_runtime.py",)),
    Mutant("pieces-skip-last-piece", "codegen/cpu/full_reduction.py",
           'count = b.add(whole, b.zext(b.icmp_unsigned("!=", rest, extent(0)), I64))',
           "count = whole",
           "a full reduction in pieces drops its last, short piece (and the tail)",
           ("tests/codegen/test_threads_runtime.py",)),
    Mutant("column-pieces-merged-in-order", "codegen/cpu/column_pieces.py",
           "top = _while_bit(b, j, False, carry)", "top = extent(0)",
           "a column sum in pieces of rows merges each piece onto the level it lands on without "
           "carrying: whole pieces overwrite each other's totals, another sum than one thread's",
           ("tests/codegen/test_column_pieces.py",)),
    Mutant("column-pieces-skip-last-piece", "codegen/cpu/column_pieces.py",
           'count = b.add(whole, b.zext(b.icmp_signed("!=", rest, extent(0)), I64))', "count = whole",
           "a column sum in pieces of rows drops its last, short piece (and the tail rows)",
           ("tests/codegen/test_column_pieces.py",)),
    Mutant("split-inits-whole-result", "codegen/cpu/schedule.py",
           "if self.split_dim is not None:\n            self._emit_split_inits()",
           "if self.split_dim is None:\n            self._emit_split_inits()",
           "every chunk of a split reduction starts the whole result from its inits, wiping "
           "the other chunks' results",
           ("tests/codegen/test_threads_runtime.py",)),
    Mutant("max-min-trusts-zero-lanes", "codegen/cpu/reduction.py",
           'return b.icmp_unsigned("!=", b.load(found, typ=I8), ll.Constant(I8, 0))',
           'return b.icmp_unsigned("==", ll.Constant(I8, 1), ll.Constant(I8, 0))',
           "a max or min folded in any order keeps a lane's zero or NaN as it came, never taking "
           "the lanes again in the documented order: the sign of a zero or a NaN's payload moves",
           ("tests/codegen/test_roll_speed_shape.py",)),
    Mutant("segment-drops-its-last", "codegen/cpu/schedule.py",
           "start, count = extent(first), extent(last - first)",
           "start, count = extent(first), extent(last - first - 1)",
           "each segment of a shift (np.roll, a concatenation) stops one position early",
           ("tests/codegen/test_roll_speed_shape.py", "tests/jitcore/test_rowwise.py")),
    Mutant("row-group-ignores-cross-row-reads", "codegen/cpu/rowwise.py",
           "        if not (_by_row(writer_map, value, rows)"
           " and _by_row(op.indexing_maps[k], op.operands[k], rows)):",
           "        if not _by_row(writer_map, value, rows):",
           "a row group runs a kernel that reads every row's result before those rows are written",
           ("tests/codegen/test_rowwise_passes.py",)),
    Mutant("in-place-output-despite-exact-rerun", "codegen/cpu/rowwise.py",
           "            or any(scalar.needs_exact_fallback(inner) for inner in kernel.body_ops(op))\n",
           "",
           "a kernel that may rerun its nest with exact math writes in place over its input, so "
           "the rerun reads the first run's results",
           ("tests/programs/test_random_programs.py",)),
    Mutant("autograph-or-evaluates-both", "jitcore/autograph/expressions.py",
           "elif value:\n            return value", "elif False:\n            return value",
           "a converted `a or b` goes on to b when a is a concrete true value",
           ("tests/jitcore/test_autograph.py",)),
    Mutant("autograph-break-flag-not-carried", "jitcore/autograph/analysis.py",
           "head |= loaded(extra)", "head |= set()",
           "a for loop's break flag is not live at its head, so not part of the loop's state",
           ("tests/jitcore/test_autograph.py",)),
    Mutant("autograph-in-place-write-lost", "jitcore/autograph/statements.py",
           "            orig.rebind(out[i])\n", "",
           "an array written in place in a traced branch keeps its old value after it",
           ("tests/jitcore/test_autograph.py",)),
    Mutant("buffer-pool-results-as-scratch", "jitcore/dispatch.py",
           "scratch=i not in returned)", "scratch=True)",
           "results are pooled from the scratch size (128 KiB) too, not only the buffers a call "
           "keeps to itself: a 256 KiB result comes back as a view of a pooled block",
           ("tests/jitcore/test_buffer_pool.py",)),
    Mutant("fft-tiles-keep-the-padding", "jitcore/numpy/fft_plan.py",
           "out[:rows] if rows != tiles * ROW_TILE else out",
           "out[tiles * ROW_TILE - rows:] if rows != tiles * ROW_TILE else out",
           "rows transformed in tiles of 16 come back as the last rows of the padded tiles, "
           "zero rows among them, not the first",
           ("tests/jitcore/test_fft.py::test_rows_in_tiles",)),
    Mutant("buffer-pool-reuses-live-memory", "jitcore/buffer_pool.py",
           "free = _free_indices(blocks, self._free_count)", "free = list(range(len(blocks)))",
           "a large result is written into memory an array the caller still holds points to",
           ("tests/jitcore/test_buffer_pool.py",)),
    Mutant("dce-drops-an-unused-index-check", "passes/effects.py",
           "return not op.has_trait(TERMINATOR) and not has_side_effects(op) and not may_raise(op)",
           "return not op.has_trait(TERMINATOR) and not has_side_effects(op)",
           "an unused x[idx] with an index out of range no longer raises IndexError",
           ("tests/passes/test_cse_dce.py", "tests/jitcore/test_indexing.py")),
    Mutant("int-of-a-tracer-is-strong", "jitcore/autograph/expressions.py",
           "return fresh(x.reshape(()).astype(dtype), scalar=True, weak=True)",
           "return x.reshape(()).astype(dtype)",
           "float32 x + int(n) widens to float64; int(n) returns a 0-d array",
           ("tests/jitcore/test_autograph.py",)),
    Mutant("shared-kernels-blank-declarations", "codegen/cpu/same_code.py",
           "names = sorted((g.name for g in defined), key=len, reverse=True)",
           "names = sorted((g.name for g in functions), key=len, reverse=True)",
           "kernels that differ only in the intrinsic they declare (floor, ceil) share one function",
           ("tests/codegen/test_same_code.py",)),
    Mutant("in-place-ignores-later-reads", "codegen/host.py",
           "                if top is None or id(top) in later:",
           "                if top is None:",
           "a kernel result takes over its copy source's buffer although the old value is read later",
           ("tests/codegen/test_in_place_results.py",)),
    Mutant("in-place-ignores-own-reads", "codegen/host.py",
           "if sum(self.of(v) == storage for v in op.operands) != 1 or op.body.args[source].uses:",
           "if False:",
           "a kernel result takes over the buffer of an input it also reads (x[1:-1] = x[:-2] + x[2:])",
           ("tests/codegen/test_in_place_results.py",)),
    Mutant("native-int-bounds-ignored", "jitcore/native_call.py",
           'self.branch(b.and_(fits, inside), "int_inside", mismatch)',
           'self.branch(fits, "int_inside", mismatch)',
           "the native call runs a Python int of another signature (40000 for int16's 3) with its code",
           ("tests/jitcore/test_native_call.py",)),
    Mutant("native-keywords-in-call-order", "jitcore/native_call.py",
           "b.store(b.ptrtoint(obj, _i64), b.gep(desc, [dest]))",
           "b.store(b.ptrtoint(obj, _i64), b.gep(desc, [k]))",
           "the native call passes f(x, c=z, b=y)'s arrays to the kernel in the call's order, not as a, b, c",
           ("tests/jitcore/test_native_call.py",)),
    Mutant("native-static-value-ignored", "jitcore/native_call.py",
           'self.branch(b.icmp_signed("==", equal, ir.Constant(_i32, 1)), "static_same", mismatch)',
           'self.branch(b.icmp_signed("!=", equal, ir.Constant(_i32, 9)), "static_same", mismatch)',
           "the native call runs f(x, axis=0) with f(x, axis=1)'s code (a static argument's value unchecked)",
           ("tests/jitcore/test_native_call.py",)),
    Mutant("static-float-by-equality", "jitcore/call_memo.py",
           '        return struct.pack("<d", value)',
           "        return value",
           "a static -0.0 runs the code traced with 0.0 (x / s gives inf for -inf), and 1.0 int 1's",
           ("tests/jitcore/test_native_call.py",)),
    Mutant("native-static-bytes-ignored", "jitcore/native_call.py",
           "with b.if_else(b.icmp_signed(\">\", nbytes, _c(0))) as (by_bytes, by_value):",
           "with b.if_else(b.icmp_signed(\">\", nbytes, _c(99))) as (by_bytes, by_value):",
           "the native call compares a static float by ==: f(x, s=-0.0) runs f(x, s=0.0)'s code",
           ("tests/jitcore/test_native_call.py",)),
    Mutant("clip-check-any-lower-bound", "codegen/kernel_body.py",
           "    return 0 <= lo <= hi < size",
           "    return lo <= hi < size",
           "a clip whose lower bound is negative reads without its index check (x[clip(i, -3, n - 1)])",
           ("tests/jitcore/test_gather_size_generic.py",)),
    Mutant("size-bound-never", "codegen/kernel_body.py",
           "    if n <= 2 * NEAR or not all(_bounds(user, k) for user, k in result.uses):",
           "    if True:",
           "a gather's clip bounds stay constants: np.take(mode='clip'), nanmedian compile per lane length",
           ("tests/jitcore/test_gather_size_generic.py",)),
    Mutant("callback-by-number", "codegen/host.py",
           "[ll.Constant(I64, place), self.callback_data]",
           "[ll.Constant(I64, step.number), self.callback_data]",
           "the code names a callback by its process-wide number: a traced q's quantile compiles per"
           " size (and the trampoline finds no such place)",
           ("tests/jitcore/test_gather_size_generic.py",)),
    Mutant("network-groups-overlap", "codegen/cpu/sort_lanes.py",
           "first = b.or_(b.shl(b.lshr(i, low), b.add(low, _c(t))), b.and_(i, below))",
           "first = b.or_(b.shl(b.lshr(i, low), b.add(low, _c(t - 1))), b.and_(i, below))",
           "a pass of several network stages finds its groups' first rows with one zero bit too "
           "few: half the groups are met twice, the other half never",
           ("tests/jitcore/test_sort_lanes.py",)),
    Mutant("network-scratch-for-every-result", "codegen/cpu/sort_lanes.py",
           "    return tuple(range(1, len(op.results))) if takes(op) else ()",
           "    return tuple(range(0, len(op.results))) if takes(op) else ()",
           "the network's sorted result too gets one element of memory: it writes past it",
           ("tests/jitcore/test_sort_lanes.py",)),
    Mutant("scratch-stays-on-stack", "codegen/cpu/heap_scratch.py",
           "    if sum(n for _, n in sized) <= STACK_LIMIT:",
           "    if True:",
           "a column reduction's ~1 MiB of scratch stays on the calling thread's stack",
           ("tests/codegen/test_heap_scratch.py",)),
    Mutant("large-reductions-side-by-side", "codegen/cpu/reduction.py",
           "from_memory = reads_from_memory(b, self.body, len(self.ivs))", "from_memory = False",
           "blocks from memory read side by side: the prefetchers lost, a third of memory speed",
           ("tests/codegen/test_block_order.py",)),
    Mutant("block-order-counts-broadcasts", "codegen/cpu/block_order.py",
           "and _step(body, index, dim) == 1]", "and _step(body, index, dim) in (0, 1)]",
           "a broadcast input (in cache) counted toward the bytes read from memory",
           ("tests/codegen/test_block_order.py",)),
    Mutant("matvec-tail-mask-one-lane-more", "codegen/cpu/matvec.py",
           'return b.icmp_signed("<", iota, splat)', 'return b.icmp_signed("<=", iota, splat)',
           "a matrix-vector product's masked tail reads one value of k (or one output) past its end",
           ("tests/codegen/test_matmul_vector.py",)),
    Mutant("matvec-dot-drops-the-last-rows", "codegen/cpu/matvec.py",
           "self.loop(groups_end, last, 1, [], lambda row, _: self.dot_group(row, 1) or [])",
           "self.loop(groups_end, groups_end, 1, [], lambda row, _: self.dot_group(row, 1) or [])",
           "the rows past a block's last whole group of rows are never computed (dot form)",
           ("tests/codegen/test_matmul_vector.py",)),
    Mutant("matvec-axpy-skips-a-row-of-each-group", "codegen/cpu/matvec.py",
           "for x, start in zip(xs, starts):", "for x, start in zip(xs[1:], starts[1:]):",
           "an axpy-form pass adds all but the first of its rows of the matrix",
           ("tests/codegen/test_matmul_vector.py",)),
    Mutant("matvec-blocks-stop-a-unit-short", "codegen/cpu/matvec.py",
           "    first, last = b.mul(lo, size), b.mul(hi, size)\n",
           "    first, last = b.mul(lo, size), b.sub(b.mul(hi, size), _i64(unit))\n",
           "each block of outputs stops a unit (a row group, a vector) before the next block's start",
           ("tests/codegen/test_matmul_vector.py",)),
    Mutant("method-native-class-unchecked", "jitcore/native_call.py",
           'self.branch(b.icmp_unsigned("==", cls, self.word(spec, _c(0))), "same_class", fallback)',
           'self.branch(b.icmp_unsigned("==", cls, cls), "same_class", fallback)',
           "a jitted method's native call runs a subclass's instance with the code of its base's constants",
           ("tests/jitcore/test_dispatch_methods.py",)),
    Mutant("method-native-dict-size-unchecked", "jitcore/native_call.py",
           'self.branch(b.icmp_signed("==", self.call("PyDict_Size", _i64, held), n_own), "same_size",',
           'self.branch(b.icmp_signed(">=", self.call("PyDict_Size", _i64, held), n_own), "same_size",',
           "an instance attribute shadowing a class constant (obj.BIAS = 5) is not seen: the class's is used",
           ("tests/jitcore/test_dispatch_methods.py",)),
    Mutant("method-native-class-call-as-instance", "jitcore/native_call.py",
           "of_class = b.icmp_signed(\"<\", self.word(spec, _c(1)), _c(0))",
           "of_class = b.icmp_signed(\"<\", self.word(spec, _c(1)), _c(-5))",
           "a classmethod's native call checks the class's type, not the class: every call takes Python",
           ("tests/jitcore/test_dispatch_methods.py",)),
    Mutant("method-class-reads-ignored", "jitcore/method_calls.py",
           "    for name in reads:\n        if name in own:",
           "    for name in ():\n        if name in own:",
           "a class constant read as self.NAME is not part of the call: changing it keeps the old code",
           ("tests/jitcore/test_dispatch_methods.py",)),
    Mutant("method-list-by-identity", "jitcore/method_calls.py",
           "return methods._Same(value) if frozen is _MISSING else Snapshot(value, frozen)",
           "return methods._Same(value)",
           "a list attribute is keyed by identity: changing an item keeps the code traced with the old one",
           ("tests/jitcore/test_dispatch_methods.py",)),
    Mutant("method-class-array-by-shape", "jitcore/method_calls.py",
           "self.key = (value.dtype.str, value.shape, value.tobytes())",
           "self.key = (value.dtype.str, value.shape)",
           "a classmethod's class array is keyed by dtype and shape: writing into it keeps the old constant",
           ("tests/jitcore/test_dispatch_methods.py",)),
    Mutant("memo-none-static-not-flat", "jitcore/call_memo.py",
           "BY_IDENTITY = frozenset((type(None), type,",
           "BY_IDENTITY = frozenset((type,",
           "a method with an attribute set to None never reaches the memo nor the native call",
           ("tests/jitcore/test_dispatch_methods.py",)),
    Mutant("method-class-code-not-keyed", "jitcore/method_calls.py",
           "        if type(value) in CODE_TYPES:  # a method, a property: by identity",
           "        if False:  # a method, a property: by identity",
           "a helper patched on the class (Model.helper = ...) keeps the code traced with the old one",
           ("tests/jitcore/test_dispatch_methods.py",)),
    Mutant("table-dims-run-time", "codegen/cpu/schedule.py",
           "if n > 1 and e.dim is not None and 1 < domain[e.dim] <= TABLE_DIM:",
           "if n > 1 and e.dim is not None and 1 < domain[e.dim] <= 1:",
           "a size-generic kernel's dims along constant tables (numpy.fft's radices and twiddles) "
           "take run-time extents when they equal an argument's: 4096-point rows 1.7x slower",
           ("tests/jitcore/test_fft.py::test_stage_tables_keep_their_dims_constant",)),
    Mutant("fft-even-radix-unpaired", "jitcore/numpy/fft_plan.py",
           "    if r % 2 == 0:\n        # w_r^(h (j + r/2))", "    if False:\n        # w_r^(h (j + r/2))",
           "even radices take r - 1 complex products an output again, not r/2 - 1 after the signed pairs",
           ("tests/jitcore/test_fft.py::test_one_kernel_per_stage",)),
    Mutant("fft-pair-signs-flipped", "jitcore/numpy/fft_plan.py",
           "np.where(h % 2 == 0, 1.0, -1.0)", "np.where(h % 2 == 1, 1.0, -1.0)",
           "the pairs (j, j + r/2) of an even radix add with the sign of the wrong outputs",
           ("tests/jitcore/test_fft.py::test_every_length_kind",)),
    Mutant("fft-interleave-parts-swapped", "jitcore/numpy/fft_plan.py",
           "np.where(_column(np.arange(2) == 0, axis), np.real(z), np.imag(z))",
           "np.where(_column(np.arange(2) == 1, axis), np.real(z), np.imag(z))",
           "irfft of even length writes y[2j + 1] where y[2j] belongs and back",
           ("tests/jitcore/test_fft.py::test_n_axis_norm",)),
    Mutant("rfft-tiles-pack-the-odd-samples-twice", "jitcore/numpy/fft_plan.py",
           "prims.complex_from_parts(_along(x, axis, slice(0, None, 2))",
           "prims.complex_from_parts(_along(x, axis, slice(1, None, 2))",
           "rfft of even length packs the odd samples as real parts too (in tiles and not)",
           ("tests/jitcore/test_fft.py::test_rows_in_tiles",)),
    Mutant("stepped-while-accepts-resets", "jitcore/autograph/analysis.py",
           "    return steps if steps and len(steps) == stores else None",
           "    return steps or None",
           "a while whose counter is also reset (i = 0) in the body is taken for a stepped one",
           ("tests/jitcore/test_stepped_loops.py",)),
    Mutant("stepped-while-step-sign-lost", "jitcore/autograph/analysis.py",
           "    return value if isinstance(op, ast.Add) else ast.UnaryOp(op=ast.USub(), operand=value)",
           "    return value",
           "i -= 2 is read as a step of +2 (the loop's length guess from the wrong direction)",
           ("tests/jitcore/test_stepped_loops.py",)),
    Mutant("traced-for-appends-once", "jitcore/autograph/statements.py",
           '        _refuse_changes(changes, "for loop", line)',
           "        pass",
           "a for over traced bounds whose body appends to a list runs the append once",
           ("tests/jitcore/test_stepped_loops.py",)),
    Mutant("stepped-while-never-a-loop", "jitcore/autograph/statements.py",
           "    if widest == 0 or not (_sized(n) or abs(n - start) / widest * _copies() > UNROLL_LIMIT):",
           "    if True:",
           "a while whose counter steps under an if is Python's loop again, one body a step",
           ("tests/jitcore/test_stepped_loops.py",)),
    Mutant("traced-loop-appends-once", "jitcore/autograph/statements.py",
           '    _refuse_changes(changes, "while loop", line)',
           "    pass",
           "a traced while whose body appends to a list runs the append once, at trace time",
           ("tests/jitcore/test_stepped_loops.py",)),
    Mutant("stepped-while-no-trial-run", "jitcore/autograph/statements.py",
           "    soon = _all_carriable(values) and _trial_makes_arrays(body_fn, values, k)",
           "    soon = False",
           "a stepped while whose state is numbers until its first step runs that step in Python "
           "(its if on i decided: other code at odd and even n)",
           ("tests/jitcore/test_stepped_loops.py",)),
    Mutant("while-first-step-in-python", "jitcore/autograph/statements.py",
           "            traced = _traced_from_first_step(test_fn, body_fn, values, names, line, targets)",
           "            traced = None",
           "a while that its first step makes traced runs that step in Python (x[n // 2] a "
           "constant: a compile per size)",
           ("tests/jitcore/test_stepped_loops.py",)),
    Mutant("select-ranks-fixed-per-length", "codegen/cpu/sort_select.py",
           "    given = [sizes.extent(k) for k in kth] if _ranks_as_arguments(kth) else []",
           "    given = [_c(k) for k in kth] if _ranks_as_arguments(kth) else []",
           "a selection's constant ranks are literals again: a median compiles per length",
           ("tests/jitcore/test_select.py",)),
    Mutant("select-rank-argument-off-by-one", "codegen/cpu/sort_select.py",
           "                return fn.args[len(fn.args) - 2 - given + i]",
           "                return fn.args[len(fn.args) - 2 - given + min(i + 1, given - 1)]",
           "each constant rank reads its neighbour's argument: a rank is never selected",
           ("tests/jitcore/test_select.py",)),
    Mutant("derived-middle-offset", "codegen/loops.py",
           "                return s, 1, k, n - s // k",
           "                return s, 1, k, n - s // k + 1",
           "an extent near a fraction of a size is computed one too large",
           ("tests/jitcore/test_counted_loops_size_generic.py", "tests/jitcore/test_select.py")),
    Mutant("argsort-one-lane-no-position", "passes/kernelize/sort.py",
           "    elif n == 1 and positions:  # a lane of one: its position",
           "    elif n == 1 and positions and False:  # a lane of one: its position",
           "an argsort of lanes of one leaves its (unfilled) positions as the memory held them",
           ("tests/jitcore/test_sort_lanes.py",)),
    Mutant("argsort-kernel-not-marked", "passes/kernelize/sort.py",
           "        generic.attributes[POSITIONS] = 1",
           "        pass",
           "the CPU's codes take an argsort for a sort: its positions are never written",
           ("tests/jitcore/test_sort_lanes.py", "tests/jitcore/test_select.py")),
    Mutant("merge-loop-no-copy-back", "passes/kernelize/sort.py",
           "            lambda e: _copy(e, lane, keys[1], keys[0], pos[1], pos[0]))",
           "            None)",
           "a lane whose merge passes are odd in number is left in the second buffer",
           ("tests/jitcore/test_sorting.py", "tests/jitcore/test_sort_lanes.py")),
    Mutant("generator-stand-in-by-identity", "jitcore/generator_arguments.py",
           "return type(other) is GeneratorArgument and (self.place, self.kind) == (other.place, other.kind)",
           "return self is other",
           "a generator argument's stand-in equal only to itself: every call compiles anew",
           ("tests/jitcore/test_generator_arguments.py",)),
    Mutant("generator-argument-not-watched", "jitcore/calltime.py",
           "        for generator in generator_arguments.current_generators():  # the call's own arguments\n"
           "            self._watch(generator)",
           "        pass",
           "a draw from a generator argument that jitcore did not make a call-time input is frozen "
           "into the code silently",
           ("tests/jitcore/test_generator_arguments.py",)),
    Mutant("default-arrays-frozen", "jitcore/calltime.py",
           "self._note(DefaultRead(fun, k), positional[len(positional) - len(defaults) + k])",
           "pass",
           "a positional default array is a constant of the trace: changed between calls, the "
           "compiled code still computes with its old values",
           ("tests/jitcore/test_default_arguments.py",)),
    Mutant("seen-array-written-as-copy", "jitcore/autograph/expressions.py",
           "return traced_copy(base, tracer.owner_trace) if seen is None else seen",
           "return traced_copy(base, tracer.owner_trace)",
           "a traced write to a default argument's array (or a global under a local name) goes to "
           "a copy: the caller's array never sees it",
           ("tests/jitcore/test_default_arguments.py",)),
    Mutant("legendre-step-weight", "jitcore/numpy/orthogonal_series.py",
           "c0, c1 = c[-i] - c1 * ((nd - 1) / nd), c0 + c1 * x * ((2 * nd - 1) / nd)",
           "c0, c1 = c[-i] - c1 * ((nd - 1) / nd), c0 + c1 * x * ((2 * nd + 1) / nd)",
           "Legendre's recurrence with the next degree's weight: legval wrong from three terms on",
           ("tests/jitcore/test_orthogonal_series.py",)),
    Mutant("series-object-domain-ignored", "jitcore/numpy/orthogonal_series.py",
           "return VALUES.get(p._val, p._val)(off + scl * x, p.coef)",
           "return VALUES.get(p._val, p._val)(x, p.coef)",
           "a series object called on traced points without the map from its domain to its window",
           ("tests/jitcore/test_orthogonal_series.py",)),
    Mutant("lambda-in-expression-unconverted", "jitcore/autograph/convert.py",
           "tree, margin = _whole_file(code), 0",
           "tree, margin = None, 0",
           "a lambda on a line that does not parse alone (a dict of lambdas) stays unconverted: "
           "math.erf of a traced number in it is refused",
           ("tests/jitcore/test_user_programs_round14.py",)),
    Mutant("einsum-output-sublist-as-operand", "jitcore/numpy/linalg.py",
           "operands, labels = list(args[0:-1:2] if len(args) % 2 else args[0::2]), args[1::2]",
           "operands, labels = list(args[0::2]), args[1::2]",
           "einsum's interleaved form takes its output sublist for one more operand",
           ("tests/jitcore/test_user_programs_round14.py",)),
    Mutant("pad-sides-one-value", "jitcore/numpy/manipulation.py",
           "out = prims.pad(out, sides, value)",
           "out = prims.pad(out, sides, low)",
           "np.pad with a constant per side fills the far side with the near side's value",
           ("tests/jitcore/test_pad_sides_and_index_concatenation.py",)),
    Mutant("pad-statistic-unrounded", "jitcore/numpy/manipulation.py",
           "                stat = np.round(stat)",
           "                stat = stat",
           "np.pad's 'mean' of an integer array truncated instead of rounded to even",
           ("tests/jitcore/test_pad_sides_and_index_concatenation.py",)),
    Mutant("pad-stat-length-near-side", "jitcore/numpy/manipulation.py",
           "cut[axis] = slice(n - length, n) if side else slice(0, length)",
           "cut[axis] = slice(0, length)",
           "np.pad's stat_length counted from the start of the axis for the far side too",
           ("tests/jitcore/test_pad_sides_and_index_concatenation.py",)),
    Mutant("r-c-trans1d-ignored", "jitcore/numpy/index_concatenation.py",
           "obj = obj.transpose(axes[:k1] + axes[k2:] + axes[k1:k2])",
           "obj = obj.transpose(axes)",
           "np.c_ of traced 1-d arrays makes rows instead of columns",
           ("tests/jitcore/test_pad_sides_and_index_concatenation.py",)),
    Mutant("r-c-scalars-strong", "jitcore/numpy/index_concatenation.py",
           "promoted.append(item)",
           "promoted.append(np.asarray(item).dtype)",
           "a Python number in np.r_ promotes as a float64 array would: float32 items become float64",
           ("tests/jitcore/test_pad_sides_and_index_concatenation.py",)),
    Mutant("item-strong-scalar", "jitcore/array_methods.py",
           "return fresh(element.reshape(()), scalar=True, weak=True)",
           "return fresh(element.reshape(()), scalar=True, weak=False)",
           "x.item() a float64 NumPy scalar instead of a Python float: float32 * x.item() is float64",
           ("tests/jitcore/test_item_tolist_vectorize.py",)),
    Mutant("tolist-rows-overlap", "jitcore/array_methods.py",
           "return [nest(start + k * step, shape[1:]) for k in range(shape[0])]",
           "return [nest(start + k, shape[1:]) for k in range(shape[0])]",
           "a 2-d x.tolist() whose rows start one element apart",
           ("tests/jitcore/test_item_tolist_vectorize.py",)),
    Mutant("complex-round-parts-swapped", "jitcore/numpy/ufuncs.py",
           'for p in ("real", "imag")))',
           'for p in ("imag", "real")))',
           "np.round of complex numbers with the real and imaginary parts exchanged",
           ("tests/jitcore/test_item_tolist_vectorize.py",)),
    Mutant("vectorize-otypes-ignored", "jitcore/autograph/vectorized.py",
           "outs = [np.reshape(y if not v.otypes else y.astype(np.dtype(t)), shape)",
           "outs = [np.reshape(y, shape)",
           "np.vectorize(f, otypes=...) of traced arrays in f's own dtype",
           ("tests/jitcore/test_item_tolist_vectorize.py",)),
    Mutant("fmax-accumulate-nan-as-inf", "jitcore/numpy/ufuncs.py",
           'fill = prims.constant(a.owner_trace, -np.inf if kind == "max" else np.inf, a.dtype)',
           'fill = prims.constant(a.owner_trace, np.inf if kind == "max" else -np.inf, a.dtype)',
           "np.fmax.accumulate reads a NaN as +inf: the run jumps to inf at the first NaN",
           ("tests/jitcore/test_nan_skipping_accumulate.py",)),
    Mutant("pad-function-first-axis-widths", "jitcore/numpy/manipulation.py",
           "function(row, tuple(widths[axis]), axis, kwargs)",
           "function(row, tuple(widths[0]), axis, kwargs)",
           "np.pad with a function mode gives every axis's lines the first axis's pad widths",
           ("tests/jitcore/test_pad_sides_and_index_concatenation.py",)),
    Mutant("pad-function-axes-reversed", "jitcore/numpy/manipulation.py",
           "    for axis in range(padded.ndim):\n        lines = moveaxis(padded, axis, -1)",
           "    for axis in reversed(range(padded.ndim)):\n        lines = moveaxis(padded, axis, -1)",
           "np.pad with a function mode pads the last axis first: the corners are the wrong axis's",
           ("tests/jitcore/test_pad_sides_and_index_concatenation.py",)),
    Mutant("negative-int-power-unchecked", "jitcore/primitives.py",
           "        _refuse_negative_exponents(args[1])  # NumPy's error for the data, from the call",
           "        pass",
           "an integer power with a negative traced exponent returns a number where NumPy raises",
           ("tests/jitcore/test_copyto_complex_negative_powers.py",)),
    Mutant("copyto-where-ignored", "jitcore/numpy/manipulation.py",
           "        value = np.where(where, value, dst)",
           "        value = value",
           "np.copyto(dst, src, where=mask) writes every element",
           ("tests/jitcore/test_copyto_complex_negative_powers.py",)),
    Mutant("copyto-casting-unchecked", "jitcore/numpy/manipulation.py",
           "    if not np.can_cast(source, dst.dtype, casting):",
           "    if False:",
           "np.copyto of floats into an int array truncates where NumPy raises (same_kind)",
           ("tests/jitcore/test_copyto_complex_negative_powers.py",)),
    Mutant("complex-parts-swapped", "jitcore/autograph/expressions.py",
           "    return fresh(complex_from_parts(re, im), scalar=True, weak=True)",
           "    return fresh(complex_from_parts(im, re), scalar=True, weak=True)",
           "complex(re, im) of traced numbers with the parts exchanged",
           ("tests/jitcore/test_copyto_complex_negative_powers.py",)),
]


def copy_tree(dest: Path) -> None:
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           cwd=ROOT, capture_output=True, check=True).stdout.split(b"\0")
    for name in filter(None, files):
        source = ROOT / os.fsdecode(name)
        if source.is_file():
            target = dest / os.fsdecode(name)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


@dataclass
class Result:
    mutant: Mutant
    status: str  # caught, survived, broken, timeout
    detail: str
    seconds: float


def run(mutant: Mutant | None, tests: list[str], timeout: float) -> Result:
    """Run ``tests`` on a copy of the tree with ``mutant`` applied (None: unmutated)."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="jitcore-mutant-") as tmp:
        root = Path(tmp)
        copy_tree(root)
        if mutant is not None:
            mutant.apply(root)
        cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-rf", "-p", "no:cacheprovider", *tests]
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        try:
            proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            return Result(mutant, "timeout", f"no verdict in {timeout:.0f} s", time.perf_counter() - start)
    seconds = time.perf_counter() - start
    out = proc.stdout + proc.stderr
    failed = re.findall(r"^FAILED (\S+)", out, re.MULTILINE)
    if proc.returncode == 1 and failed:
        return Result(mutant, "caught", failed[0], seconds)
    if proc.returncode == 0:
        return Result(mutant, "survived", "every test passed", seconds)
    if proc.returncode < 0 or proc.returncode > 128:  # killed by a signal: the interpreter crashed
        return Result(mutant, "caught", f"crash (exit {proc.returncode})", seconds)
    tail = " | ".join(out.strip().splitlines()[-3:])
    return Result(mutant, "broken", f"pytest exit {proc.returncode}: {tail}", seconds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", default="", help="only mutants whose name contains this text")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="mutants run at once (default 2)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per mutant (default 900)")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--check", action="store_true", help="check that every edit applies, and exit")
    parser.add_argument("--baseline", action="store_true",
                        help="first run all the mutants' tests unmutated (they must pass)")
    args = parser.parse_args(argv)
    mutants = [m for m in MUTANTS if args.k in m.name]
    if args.list:
        for m in mutants:
            print(f"{m.name:28s} {m.path:28s} {m.why}\n{'':28s} tests: {' '.join(m.all_tests())}")
        return 0
    problems = []
    for m in mutants:
        text = (ROOT / m.path).read_text()
        if text.count(m.old) != 1:
            problems.append(f"{m.name}: its edit occurs {text.count(m.old)} times in {m.path}")
        problems += [f"{m.name}: no test path {t}" for t in m.all_tests()
                     if not (ROOT / t.split("::")[0]).exists()]
    if problems or args.check:
        print("\n".join(problems) or f"all {len(mutants)} mutants apply")
        return 1 if problems else 0
    if args.baseline:
        tests = list(dict.fromkeys(t for m in mutants for t in m.all_tests()))
        base = run(None, tests, args.timeout)
        print(f"baseline (unmutated): {'pass' if base.status == 'survived' else base.status} "
              f"({base.detail}, {base.seconds:.0f} s)")
        if base.status != "survived":
            return 1
    print(f"{'mutant':28s} {'verdict':9s} {'s':>5s}  caught by / detail")
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = []
        for r in pool.map(lambda m: run(m, m.all_tests(), args.timeout), mutants):
            print(f"{r.mutant.name:28s} {r.status:9s} {r.seconds:5.0f}  {r.detail}", flush=True)
            results.append(r)
    caught = sum(r.status == "caught" for r in results)
    print(f"\nmutation score: {caught} of {len(results)} caught")
    return 0 if caught == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
