"""The CPU backend: a function to a plan whose entry point and kernels are one LLVM module,
optimised and emitted as host object code; loading it adds that code to MCJIT once.

Symbols come from the code, not from a counter: the entry point is ``jit_<name>_<hash>``, where
the hash is of the LLVM IR emitted for it (a function of the optimised IR, the argument layouts
and the options), and launch ``i`` runs ``<entry>_k<i>``. The same function compiled in any
order, in any process, gets the same names; two functions that get one name have the same code,
so a second load of a name reuses the first.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import math
import threading
import weakref
import zlib
from collections import OrderedDict

from llvmlite import ir as ll

from jitcore.codegen import host
from jitcore.codegen.cpu import (
    blas,
    cost,
    extent_sharing,
    full_reduction,
    gemm,
    heap_scratch,
    lapack,
    producer_folds,
    reduction,
    rowwise,
    runtime,
    shared_kernels,
    sort,
    target,
    tiled_gemm,
)
from jitcore.codegen.cpu.gemm import emit_contraction
from jitcore.codegen.cpu.object_loader import load_kept, load_owned
from jitcore.codegen.cpu.same_code import SameCode
from jitcore.codegen.cpu.schedule import emit_kernel
from jitcore.codegen.cpu.sort import emit_sort_kernel
from jitcore.codegen.cpu.sort_head import emit_head_sort_kernel
from jitcore.codegen.gc_pause import collector_paused
from jitcore.codegen.gemm_epilogue import match_fused_product
from jitcore.codegen.host import (
    arg_types,
    declare_entry,
    emit_entry,
    operand_layout_classes,
    plan_function,
    size_symbols,
    strided_operands,
)
from jitcore.codegen.llvm_text import module_text
from jitcore.codegen.llvm_types import I64
from jitcore.codegen.loops import Sizes, static_value
from jitcore.codegen.name_scope import EmissionModule
from jitcore.codegen.plan import CompiledFunction, Launch, LowerOptions
from jitcore.ir import layout_class
from jitcore.ir.attributes import numpy_dtype
from jitcore.ir.core import Operation
from jitcore.ir.dialects import kernel, scf
from jitcore.ir.errors import JitcoreError

_UNHASHED = "0" * 16  # stands for the hash while the IR that it hashes is emitted

# A kernel of at most this many iteration points is tiny: it is emitted unsplit and without
# the emitter's unrolled variants, and a function of tiny kernels alone has code of its own.
TINY_WORK = 64
# A tiny function's float sums are one pairwise leaf each, its other reductions in lanes
# without blocks (``schedule._Schedule.tiny``): its rows must fit in one leaf and fall short
# of one block (of the fewest lanes) at every size its code runs at.
assert TINY_WORK <= reduction.PAIRWISE_BLOCK and TINY_WORK < 8 * reduction.STEPS

# When no kernel has more iteration points than this, O3 runs without the loop unroller. Short
# loops are vectorized by the loop vectorizer in a step or two either way; with the unroller
# LLVM first unrolls them into scalar copies and the SLP vectorizer packs those into vectors
# again, which doubles the optimizer's time for the same code (measured on tanh(x * 2 + y) of
# 8 floats: 11 ms of O3 with it, 7 without, identical machine code; a softmax of 2x8, 43 ms
# and 16). The code is named by it (``jitcore.no_unroll`` in the IR): a size over it compiles
# code of its own, so it is where one code for every size stops. Measured, not adopted: at
# 1024, calls up to 1024 points ran as fast without the unroller (0.97-1.07x: sums along either
# axis, softmax, std, argmax, exp, tanh, a product) and reductions in lanes compiled in 0.3-0.7
# of the time (a sum over axis 0 of 8x67 float64: 457 ms of CPU with it, 130 without), but a
# function called at 100 points and then at 10,000 would compile twice (docs/performance.md,
# "First calls, session 33").
UNROLLED_WORK = TINY_WORK

# A function whose kernels are all tiny (TINY_WORK) and run once per call (no loop, on the host
# or in a kernel's body, runs one again) is compiled with the light pipeline
# (``target.LIGHT_PASSES``): what LLVM's O3 and its scheduling could save on at most
# TINY_WORK points run once is nanoseconds against a call's microsecond, and such functions
# took about 40% of the suite's LLVM time. A tiny kernel in a loop keeps O3: the loop may run
# it many times. Named in the IR by this metadata.
LIGHT_METADATA = "jitcore.light"

# Up to this many kernels, LLVM may inline each into the entry function (each is called once).
# Beyond it they stay functions: one entry function holding hundreds of inlined loop nests
# (a long unrolled Python loop) takes LLVM's O3 time superlinear in its size (measured: twice
# the kernels, three times the time), where separate functions take linear time.
INLINED_KERNELS = 32

# The machine code of this many bytes of recent compiles (zlib-compressed object code and
# optimised IR) is kept after its plans are gone (``_CodeMemo``): a function jitted anew with
# the arguments of an earlier one (a new ``jit`` of the same code, a signature evicted by
# ``max_signatures``) emits the same LLVM IR and takes its code from here instead of LLVM. In
# four of the suite's files a sixth of the LLVM time was such repeats (the same kernel shape
# compiled again by the next example or test; docs/performance.md). Small: the process's
# memory stays flat however many signatures come and go (tests/jitcore/test_bounded_cache.py
# allows 512 KiB). 0 turns it off, for whoever times compiles by repeating one
# (tools/bench_compile.py, the compile-time test). The test run raises it (tests/conftest.py);
# ``DEFAULT_MEMO_BYTES`` is what users get.
MEMO_BYTES = DEFAULT_MEMO_BYTES = 256 * 1024


class LoadedCode:
    """One plan's machine code in pages of its own (``object_loader``) or an MCJIT engine of
    its own: freed with this object."""

    __slots__ = ("engine", "address", "source", "object_code", "optimized_llvm_ir", "stored",
                 "__weakref__")

    def __init__(self, engine, address: int, source: bytes, object_code: bytes = b"",
                 optimized_llvm_ir: str = ""):
        self.engine = engine
        self.address = address
        self.source = source  # a digest of the LLVM IR: two plans with one symbol must agree
        # what a plan of the same LLVM IR at another size reuses (``CpuBackend._code``)
        self.object_code = object_code
        self.optimized_llvm_ir = optimized_llvm_ir
        self.stored = None  # the object cache it is in, for another process to reuse

    def __reduce__(self):
        # A plan is data that pickles (and deep-copies); its loaded code stays in this process.
        return _unloaded, ()


def _unloaded() -> None:
    return None


def _digest(llvm_ir: str) -> bytes:
    return hashlib.sha256(llvm_ir.encode()).digest()


class CpuBackend:
    name = "cpu"

    def __init__(self):
        self._lock = threading.Lock()
        # symbol -> its loaded code, while a plan holds it (see ``load``)
        self._loaded: weakref.WeakValueDictionary[str, LoadedCode] = weakref.WeakValueDictionary()
        self._object_cache = None  # codegen.backend.ObjectCache of the runtime's code, or None
        self._local = threading.local()  # .off: lowering without the object cache
        self._symbol_locks: dict[str, _Making] = {}  # symbols being lowered now
        self._support: dict[str, tuple[str, bytes]] = {}  # support symbol -> its LLVM IR, object code
        self._memo = _CodeMemo()  # recent compiles' code, by their LLVM IR

    def use_object_cache(self, cache) -> None:
        self._object_cache = cache

    def magic(self) -> tuple[str, str, str]:
        return target.magic()

    def fingerprint(self) -> str:
        return (f"blas={blas.library()!r} lapack={lapack.ENABLED} "
                f"tiled_min={gemm.TILED_MIN_SIDE},{gemm.TILED_MIN_WORK} "
                f"min_split_work={runtime.MIN_SPLIT_WORK} min_chunks={runtime.MIN_CHUNKS} "
                f"row_block_bytes={rowwise.ROW_BLOCK_BYTES}-all-buffers "
                f"row_chunks={rowwise.CHUNK_BYTES},{rowwise.CHUNKS_AT_LEAST} "
                f"inlined_kernels={INLINED_KERNELS} "
                f"thread_weights={cost.FINGERPRINT} "
                f"tiny_work={TINY_WORK},{UNROLLED_WORK} size_generic={host.SIZE_GENERIC} "
                f"light={'+'.join(target.LIGHT_PASSES)},{target.LIGHT_CODEGEN_OPT}"
                f"{''.join(target.LEVEL_0_CODEGEN_OPTIONS)} "
                f"gemm_chunks={tiled_gemm.split_chunks()}x{tiled_gemm.CHUNKS_PER_THREAD}"
                f"/{tiled_gemm.CHUNKS_PER_THREAD_ROWS_OF_A},{tiled_gemm.MIN_SPLIT_WORK},"
                f"{tiled_gemm.SMALL_PRODUCT_WORK}:{tiled_gemm.SMALL_CHUNK_SIDE}")  # cores cap them

    def lower(self, func: Operation, layouts: tuple[str, ...], options: LowerOptions) -> CompiledFunction:
        with collector_paused():  # (its objects die young: codegen/gc_pause.py)
            plan = self._emit(func, layouts, options)
        return self.with_code(plan)

    def _emit(self, func: Operation, layouts: tuple[str, ...], options: LowerOptions) -> CompiledFunction:
        """``func``'s plan and LLVM IR, before LLVM compiles it."""
        draft = f"jit_{func.sym_name}_{_UNHASHED}"
        plan, ops = plan_function(func, self.name, draft, tuple(c == layout_class.C for c in layouts),
                                  options.header)
        plan.profile = options.profile
        module = EmissionModule(name=draft)  # (names its values faster: name_scope.py)
        entry = declare_entry(module, draft)
        symbols, sources = size_symbols(func, options.header)
        # A function whose kernels are all tiny has code of its own (see TINY_WORK), unsplit:
        # the cheapest compile, for the first call of a small function.
        unroll = any(_work(op) > TINY_WORK for op in ops)
        light = not unroll and not _loops(func)
        llvm_unroll = any(_work(op) > UNROLLED_WORK for op in ops)  # LLVM's unroller in O3
        groups = rowwise.row_groups(plan, ops, runtime.MIN_SPLIT_WORK, symbols if unroll else ())
        grouped = {i for group in groups for i in group.launches}
        for group in groups:  # run (and timed, when profiling) as their last kernel's launch
            for i in group.launches[:-1]:
                plan.launches[i] = dataclasses.replace(plan.launches[i], runs_with=group.launches[-1])
        # a row sum that computes its elementwise input itself (codegen/cpu/producer_folds.py)
        folds = {r: fold for group in groups
                 for r, fold in producer_folds.producer_folds(plan, ops, group.launches).items()}
        producers = {p for p, _ in folds.values()}
        # kernels that differ only in where they start reading: one function (shared_kernels.py)
        alone = grouped | producers | set(folds)

        def code_inputs(i):  # what of launch i's operands its code depends on besides the op
            strided = strided_operands(plan, plan.launches[i])
            return tuple(strided), tuple(operand_layout_classes(plan.launches[i], strided, layouts))

        sharing = shared_kernels.plan_sharing(ops, [i for i in range(len(ops)) if i not in alone],
                                              code_inputs)
        # kernels that differ only in their extents: emitted with them as run-time values, one
        # function where the text comes out the same (extent_sharing.py)
        by_extents = extent_sharing.plan_extent_sharing(
            ops, [i for i in range(len(ops)) if i not in alone and i not in sharing], code_inputs,
            lambda i: strided_operands(plan, plan.launches[i]))
        own_sizes: dict[int, tuple[int, ...]] = {}  # launch -> the symbols its kernel's sizes hold
        emitted: dict[int, tuple] = {}  # leader -> what _kernel returned for its start-free form
        kernels, splits, sized, products = [], [], [], set()
        same_code = SameCode(module)  # other kernels of the same LLVM code: one function
        for i, (launch, op) in enumerate(zip(plan.launches, ops)):
            if i in producers:  # no kernel of its own: its reduction's computes it
                kernels.append(None)
                sized.append(bool(symbols))  # as kernel_function decides
                splits.append(None)
                continue
            p, producer = folds.get(i, (None, None))
            share = sharing.get(i)
            made = None
            if i in by_extents:
                made = self._extent_kernel(module, plan, launch, op, by_extents[i], same_code,
                                           options.fastmath, symbols, not unroll, layouts)
                if made is not None:
                    own_sizes[i] = by_extents[i].kernel_symbols(symbols)
            if share is not None:
                made = self._shared_kernel(module, plan, launch, op, share, emitted, options.fastmath,
                                           symbols, not unroll, layouts)
            if made is None:
                before = same_code.names()
                made = self._kernel(module, plan, launch, op, options.fastmath, row_split=i in grouped,
                                    symbols=symbols, tiny=not unroll, layouts=layouts, producer=producer)
                made = (same_code.earlier_or(made[0], before), *made[1:])
            fn, calls, extent, partials, scheduled = made
            if producer is not None:  # takes both kernels' arguments: run only in its group
                fn = producer_folds.emit_folded(module, f"{launch.kernel}.folded", fn, len(producer.shaped),
                                                sized[p], len(op.operands) + len(op.results))
            kernels.append(fn)
            sized.append(any(a.name == "sizes" for a in fn.args))
            if calls:  # the library threads the call itself: the launch runs as one piece
                plan.launches[i] = dataclasses.replace(launch, parallel_extent=(), calls=calls)
            # the tiled GEMM's blocks (an int, or a size-generic kernel's run-time count): its
            # chunks may follow the thread count (``runtime.Split.per_thread``)
            tiled = isinstance(extent, (int, tiled_gemm.RunTimeBlocks))
            per_thread = getattr(extent, "per_thread", tiled_gemm.CHUNKS_PER_THREAD) if tiled else 0
            if tiled:
                products.add(i)
            if isinstance(extent, int):  # a library-like kernel's (the tiled GEMM's): one static dim
                extent = (int(extent),)
            # the least chunk follows the loops the kernel runs: a Fortran argument's row sum is
            # a column sum of the array as it lies (``schedule._dense_twin``); a library-like
            # kernel's range counts its blocks, whatever dims its op has (``x @ A``'s output
            # dim, its last, counted as columns of a column sum left it one chunk)
            least = 1 if partials or tiled else _min_piece(scheduled)  # pieces of any count
            splits.append(None if extent is None else (extent, _work_op(op).domain(), partials, per_thread,
                                                       least))
        # how the thread threshold weighs each kernel (a tiled product: its multiply-adds)
        weights = [cost.product_weight(_work_op(op)) if i in products else cost.weight(_work_op(op))
                   for i, op in enumerate(ops)]
        if len(kernels) > INLINED_KERNELS:
            for fn in kernels:
                if fn is not None and "noinline" not in fn.attributes:
                    fn.attributes.add("noinline")

        # A row group runs as one launch where its last kernel's step is: its kernels' steps
        # are consecutive, so the arguments of the earlier ones are kept until then.
        group_of = {group.launches[-1]: group for group in groups}
        waiting: dict[int, list] = {}
        sizes = Sizes(symbols)  # the entry's run-time extents, bound by emit_entry

        def run_launch(b, index, kernel, args):
            if sized[index]:  # the extents array goes after the kernel's operand pointers
                at = len(ops[index].operands) + len(ops[index].results)
                own = own_sizes.get(index)
                pointer = sizes.pointer if own is None else extent_sharing.emit_sizes(b, own, sizes)
                args = [*args[:at], pointer, *args[at:]]
            if index in grouped and index not in group_of:
                waiting[index] = args
                return
            group = group_of.get(index)
            if group is None:
                split = splits[index]
                if split is not None:
                    extent, domain, partials, per_thread, least = split
                    work = _extent(b, sizes, domain)
                    weighed = _one_call_below_min_split(b, work, cost.weigh(b, work, weights[index]))
                    count = (extent.emit(b, sizes) if isinstance(extent, full_reduction.RunTimeCount)
                             else _extent(b, sizes, extent))
                    split = runtime.Split(count, work, partials, weighed, least, per_thread)
                runtime.emit_launch(b, kernel, args, split)
                return
            waiting[index] = args
            members = [kernels[i] for i in group.launches if i not in producers]
            fn = rowwise.emit_group(module, f"{plan.launches[group.launches[0]].kernel}_rows", group,
                                    members, symbols)
            work = weighed = 0
            for i in group.launches:
                more = _extent(b, sizes, ops[i].domain())
                work = _plus(b, work, more)
                weighed = _plus(b, weighed, cost.weigh(b, more, weights[i]))
            runtime.emit_launch(b, fn, [a for i in group.launches for a in waiting.pop(i)],
                                runtime.Split(_extent(b, sizes, (group.rows,)), work,
                                              threshold_work=_one_call_below_min_split(b, work, weighed),
                                              min_piece=rowwise.min_chunk_rows(b, sizes, group)))

        emit_entry(entry, plan, arg_types(func), kernels, run_launch, sizes, sources)
        if not llvm_unroll:  # in the text: size-generic code compiled without the unroller is
            module.add_named_metadata("jitcore.no_unroll", [])  # reused only by sizes without it
        if light:  # in the text too: the IR names its pipeline (the memo, the object cache)
            module.add_named_metadata(LIGHT_METADATA, [])
        heap_scratch.move_large_scratch_to_heap(module)  # (a caller's thread may have a small stack)
        text = module_text(module)  # str(module), faster
        symbol = f"jit_{func.sym_name}_{hashlib.sha256(text.encode()).hexdigest()[:16]}"
        plan.symbol = symbol
        plan.launches = [dataclasses.replace(launch, kernel=launch.kernel.replace(draft, symbol))
                         for launch in plan.launches]
        plan.llvm_ir = text.replace(draft, symbol)
        # size-generic: the entry reads run-time extents (launches of their own sizes aside)
        generic = any(s for i, s in enumerate(sized) if i not in own_sizes or symbols)
        plan.code_flags = (generic, llvm_unroll, light)
        return plan

    def with_code(self, plan: CompiledFunction) -> CompiledFunction:
        """``plan`` with the machine code of its LLVM IR (``plan.code_flags`` say how it is
        compiled): reused where this process holds it, else compiled."""
        generic, llvm_unroll, light = plan.code_flags
        symbol = plan.symbol
        if not generic:
            plan.object_code, plan.optimized_llvm_ir, plan.code_source = self._code(
                plan.symbol, plan.llvm_ir, generic=False, unroll=llvm_unroll, light=light)
            return plan
        # Sizes lowered at once by several threads: the first finds or makes the code, the
        # others wait for it and reuse it.
        with self._compiling(symbol) as made:
            if made.code is None:
                made.code = self._code(plan.symbol, plan.llvm_ir, generic=True, unroll=llvm_unroll,
                                       light=light)
                plan.object_code, plan.optimized_llvm_ir, plan.code_source = made.code
            else:
                plan.object_code, plan.optimized_llvm_ir, _ = made.code
                plan.code_source = "memory"
        return plan

    @contextlib.contextmanager
    def _compiling(self, symbol: str):
        """Held while ``symbol``'s code is found or made, one thread at a time; the code made
        is kept for the threads waiting meanwhile (until the last one leaves: then the loaded
        code is where later ones find it)."""
        with self._lock:
            made = self._symbol_locks.get(symbol)
            if made is None:
                made = self._symbol_locks[symbol] = _Making()
            made.users += 1
        try:
            with made.lock:
                yield made
        finally:
            with self._lock:
                made.users -= 1
                if not made.users:
                    del self._symbol_locks[symbol]

    @contextlib.contextmanager
    def object_cache_off(self):
        """Lower without the object cache on this thread (a function jitted with
        ``cache=False``: nothing of it is read from or written to disk)."""
        self._local.off = True
        try:
            yield
        finally:
            self._local.off = False

    def _code(self, symbol: str, llvm_ir: str, generic: bool, unroll: bool = True,
              light: bool = False) -> tuple[bytes, str, str]:
        """The object code and optimised IR of ``llvm_ir``, and where they came from.

        A size-generic function emits the same LLVM IR at every size that its code serves (its
        extents are run-time values), so the code of IR that this process compiled and still
        holds is reused: "memory". The first such reuse also keeps the code in the object cache
        (by its LLVM IR: ``use_object_cache``), where a new process finds it at any size:
        "disk". (Only then: a function called at one size has its code in its plan's disk
        entry already.) Else LLVM compiles it now: "llvm"."""
        cache = None if not generic or getattr(self._local, "off", False) else self._object_cache
        with self._lock:
            loaded = self._loaded.get(symbol) if generic else None
        if loaded is not None and loaded.source == _digest(llvm_ir) and loaded.object_code:
            if cache is not None and loaded.stored is not cache:
                loaded.stored = cache
                encoded = loaded.optimized_llvm_ir.encode()
                cache.store_object(symbol, llvm_ir, _GENERIC + len(encoded).to_bytes(8, "little")
                                   + encoded + loaded.object_code)
                self._store_support(cache, llvm_ir)
            return loaded.object_code, loaded.optimized_llvm_ir, "memory"
        stored = cache.load_object(symbol, llvm_ir) if cache is not None else None
        if stored is not None and stored[:len(_GENERIC)] == _GENERIC:
            start = len(_GENERIC) + 8
            length = int.from_bytes(stored[len(_GENERIC):start], "little")
            return stored[start + length:], stored[start:start + length].decode(), "disk"
        # Code kept by the memo: size-generic code is "memory", as a loaded plan's is (a
        # function counts it as reused at a size after one it used it at); fixed-size code
        # "memo", which the frontend counts as a compile.
        key, digest = (symbol, unroll, light, target.magic()), _digest(llvm_ir)
        kept = self._memo.get(key, digest)
        if kept is not None:
            return kept[0], kept[1], "memory" if generic else "memo"
        optimized, object_code = target.compile_ir(llvm_ir, unroll=unroll, light=light)
        if optimized.get_function(symbol) is None:
            raise JitcoreError(f"internal error: compiled module has no function {symbol!r}")
        optimized_ir = str(optimized)
        self._memo.put(key, digest, object_code, optimized_ir)
        return object_code, optimized_ir, "llvm"

    def _shared_kernel(self, module: ll.Module, plan: CompiledFunction, launch: Launch, op: Operation,
                       share: shared_kernels.Shared, emitted: dict, fastmath: bool, symbols, tiny: bool,
                       layouts: tuple[str, ...]):
        """``_kernel``'s result for a launch whose kernel is shared: the leader's code, emitted
        once from the start-free maps, called through a function that moves the operand
        pointers to this launch's starts; None to emit a kernel of its own."""
        if share.leader not in emitted:
            leader = dataclasses.replace(launch, kernel=f"{launch.kernel}_shared")
            with shared_kernels.maps_swapped(op, share.maps):
                made = self._kernel(module, plan, leader, op, fastmath, symbols=symbols, tiny=tiny,
                                    layouts=layouts)
            if made[1]:  # a library call (BLAS) threads itself: not shared
                made = None
            elif "noinline" not in made[0].attributes:
                made[0].attributes.add("noinline")  # one copy, not one per caller
            emitted[share.leader] = made
        made = emitted[share.leader]
        if made is None:
            return None
        if not any(any(s) for s in share.starts):
            return made
        shift = shared_kernels.emit_start_shift(module, launch.kernel, op, made[0], share.starts,
                                                strided_operands(plan, launch), symbols)
        return None if shift is None else (shift, *made[1:])

    def _extent_kernel(self, module: ll.Module, plan: CompiledFunction, launch: Launch, op: Operation,
                       share: extent_sharing.ExtentShared, same_code: SameCode, fastmath: bool, symbols,
                       tiny: bool, layouts: tuple[str, ...]):
        """``_kernel``'s result for a launch emitted with its varying extents as run-time
        values (and its start-free maps): an earlier launch's function where the text is the
        same, called through a shift of the operand pointers to this launch's starts; None to
        emit a kernel of its own."""
        own = share.kernel_symbols(symbols)
        body = dataclasses.replace(launch, kernel=f"{launch.kernel}_extents")
        before = same_code.names()
        with share.swapped():
            made = self._kernel(module, plan, body, share.op, fastmath, symbols=own, tiny=tiny,
                                layouts=layouts)
        fn = same_code.earlier_or(made[0], before)
        if share.shifted:
            fn = shared_kernels.emit_start_shift(module, launch.kernel, share.op, fn, share.starts,
                                                 strided_operands(plan, launch), own)
            if fn is None:
                return None
        return (fn, *made[1:])

    @staticmethod
    def _kernel(module: ll.Module, plan: CompiledFunction, launch: Launch, op: Operation,
                fastmath: bool, row_split: bool = False, symbols: tuple[int, ...] = (),
                tiny: bool = False, layouts: tuple[str, ...] = (), producer=None
                ) -> tuple[ll.Function, tuple[str, ...], tuple[int, ...] | None, int, Operation]:
        """The kernel of ``launch``, the library routines it calls, the extent its range
        splits (None: not split) and the bytes of partials it needs: a float contraction calls
        BLAS where the process has one (``codegen/cpu/gemm.py``), the rest are loops, split
        for the runtime's threads when they may be and are large enough
        (``runtime.MIN_SPLIT_WORK``); a reduction to one value per call (every parallel dim of
        extent 1) may be split too, into pieces of its reduced dim. A kernel of a row group
        (``row_split``) is split whatever its size: its group runs it on blocks of rows. In a
        size-generic function (``symbols``) the kernel takes the run-time extents; one whose
        work is a run-time value is compiled split unless the function is ``tiny``, so that
        every size shares its code: the launch then runs it as one call below
        ``MIN_SPLIT_WORK`` points (``_one_call_below_min_split``), decided when it runs.
        ``layouts``: the arguments' layout classes (``ir/layout_class.py``)."""
        strided = strided_operands(plan, launch)
        operand_layouts = operand_layout_classes(launch, strided, layouts)
        called = None if row_split else emit_contraction(module, launch.kernel, op, strided, fastmath,
                                                         blas.library(), symbols, operand_layouts)
        if called is None and not row_split:  # a decomposition by NumPy's LAPACK (lapack.py)
            called = lapack.emit_lapack_kernel(module, launch.kernel, op, strided, blas.library(),
                                               Sizes(symbols))
        if called is not None:
            return called.fn, called.calls, called.split_extent, 0, op
        sorter = emit_head_sort_kernel(module, launch.kernel, op, strided, Sizes(symbols))  # sort_head.py
        if sorter is None:
            sorter = emit_sort_kernel(module, launch.kernel, op, strided, Sizes(symbols))  # sort.py
        if sorter is not None:
            return sorter, (), None, 0, op
        may_split = bool(launch.parallel_extent) or _reduces_to_one(op)
        sized_work = not tiny and _sized(op, symbols)
        split = row_split or (may_split and (sized_work or _work(op) >= runtime.MIN_SPLIT_WORK))
        fn, extent, partials, scheduled = emit_kernel(module, launch.kernel, op, strided, fastmath,
                                                      split=split, sizes=Sizes(symbols), unrolled=not tiny,
                                                      layouts=operand_layouts, producer=producer)
        return fn, (), extent, partials, scheduled

    def load(self, plan: CompiledFunction) -> int:
        """The entry point's address; the plan's code is loaded once per symbol while loaded.

        The code lives as long as the plans loaded with it: each such plan holds it
        (``plan.loaded_code``), and the backend only a weak reference, so when the last plan
        of a symbol is collected (its jitted function deleted, or the signature dropped by
        ``max_signatures``), the engine holding its machine code is freed."""
        with self._lock:
            loaded = self._loaded.get(plan.symbol)
            if loaded is None:
                for symbol in sorted({name for launch in plan.launches for name in launch.calls}):
                    blas.register(symbol)
                if runtime.RUN_CHUNKS_SYMBOL in plan.llvm_ir:
                    runtime.load_run_chunks(self._compile_and_load, plan.llvm_ir)
                if "jitcore_cpu_sort_" in plan.llvm_ir:  # codegen/cpu/sort.py's shared kernels
                    sort.load_shared(plan.llvm_ir, self._compile_and_load)
                engine, addresses = load_owned(plan.object_code, [plan.symbol])
                loaded = self._loaded[plan.symbol] = LoadedCode(
                    engine, addresses[plan.symbol], _digest(plan.llvm_ir), plan.object_code,
                    plan.optimized_llvm_ir)
            elif loaded.source != _digest(plan.llvm_ir):
                raise JitcoreError(
                    f"internal error: two different compiled functions are both named {plan.symbol!r}"
                )
            plan.loaded_code = loaded
            return loaded.address

    def assembly(self, plan: CompiledFunction) -> str:
        return target.assembly(plan.optimized_llvm_ir, light=f"!{LIGHT_METADATA} =" in plan.llvm_ir)

    def _compile_and_load(self, llvm_ir: str, symbol: str) -> int:
        """Load the support code ``llvm_ir`` defining ``symbol``: its object code from the
        object cache when it has it (a new process then runs no LLVM for it), else compiled."""
        cache = self._object_cache
        code = cache.load_object(symbol, llvm_ir) if cache is not None else None
        if code is None:
            code = target.compile_ir(llvm_ir)[1]
            if cache is not None:
                cache.store_object(symbol, llvm_ir, code)
        self._support[symbol] = (llvm_ir, code)
        return load_kept(code, [symbol])[symbol]

    def load_support(self, symbol: str, source: str, make_ir, level: int = 3) -> int:
        """Load support code defining ``symbol`` whose IR costs more to build than its object
        code costs to load: ``source`` (a description from which ``make_ir()`` builds the same
        IR, every time, and the pipeline ``level`` it is compiled at) keys it in the object
        cache; the IR is built only on a miss."""
        cache = self._object_cache
        code = cache.load_object(symbol, source) if cache is not None else None
        if code is None:
            code = target.compile_ir(make_ir(), level=level)[1]
            if cache is not None:
                cache.store_object(symbol, source, code)
        return load_kept(code, [symbol])[symbol]

    def _store_support(self, cache, llvm_ir: str) -> None:
        """The support code that ``llvm_ir`` calls, and the support code that that calls (the
        runtime's launcher calls its launch, which calls run_chunks), in ``cache`` too: a new
        process that reuses its code from there then compiles nothing (the support code may
        have been compiled here before this cache was in use)."""
        texts, seen = [llvm_ir], set()
        while texts:
            text = texts.pop()
            for symbol, (source, code) in list(self._support.items()):
                if symbol in seen or symbol not in text:
                    continue
                seen.add(symbol)
                texts.append(source)
                if cache.load_object(symbol, source) is None:
                    cache.store_object(symbol, source, code)


class _Making:
    """The code of one symbol while threads lower it: a lock, the threads that use it, and
    (object code, optimised IR, source) once made."""

    __slots__ = ("lock", "users", "code")

    def __init__(self):
        self.lock = threading.Lock()
        self.users = 0
        self.code: tuple[bytes, str, str] | None = None


class _CodeMemo:
    """The object code and optimised IR of recent compiles, by (symbol, unroll, light, machine), within
    a budget of compressed bytes, the least recently used dropped first. An entry is returned
    only for the LLVM IR it was compiled from (its digest): the symbol's hash is of that IR, but
    a 64-bit hash is not the IR. The budget is ``MEMO_BYTES``, read at each use."""

    def __init__(self):
        self._bytes = 0
        self._entries: OrderedDict[tuple, tuple[bytes, bytes, bytes]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple, digest: bytes) -> tuple[bytes, str] | None:
        if MEMO_BYTES <= 0:
            return None
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry[0] != digest:
                return None
            self._entries.move_to_end(key)
        return zlib.decompress(entry[1]), zlib.decompress(entry[2]).decode()

    def put(self, key: tuple, digest: bytes, object_code: bytes, optimized_ir: str) -> None:
        # level 1: a millisecond for a large module, against the tens to hundreds LLVM took
        entry = (digest, zlib.compress(object_code, 1), zlib.compress(optimized_ir.encode(), 1))
        size = len(entry[1]) + len(entry[2])
        budget = MEMO_BYTES
        if size > budget // 4:  # one huge module would push out everything else
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= len(old[1]) + len(old[2])
            self._entries[key] = entry
            self._bytes += size
            while self._bytes > budget:
                _, dropped = self._entries.popitem(last=False)
                self._bytes -= len(dropped[1]) + len(dropped[2])


# An object-cache entry of a size-generic function: this, the optimised IR's length (8 bytes),
# the optimised IR, the object code.
_GENERIC = b"jitcore-generic-code\n"


def _extent(b: ll.IRBuilder, sizes: Sizes, factors) -> int | ll.Value:
    """The product of ``factors`` (extents of an op) in the entry: an int where it is one."""
    value = sizes.product(b, factors)
    known = static_value(value)
    return value if known is None else known


# A chunk of a reduction down columns reads its columns of every row: rows of at least this
# many bytes each, so a chunk is not a walk down a few columns of the whole matrix (one TLB or
# memory miss per row: a 100000x256 float32 column sum took 190 ms in chunks of one column, 8 ms
# in one piece). Runs of 4 KiB still cost a memory latency each (a page: the prefetchers stop
# there): a 4096x4096 column sum on two threads in chunks of 4 KiB ran at 0.7-0.8x NumPy's
# speed; rows shorter than two chunks are cut into pieces of rows instead (``column_pieces``).
COLUMN_CHUNK_BYTES = 32 * 1024


def _min_piece(op: Operation) -> int:
    """The least number of split-dim positions per chunk of ``op``: for a reduction down
    columns split along its innermost (column) dim, ``COLUMN_CHUNK_BYTES`` of each row; else 1."""
    domain, its = op.domain(), op.iterator_types
    if kernel.REDUCTION not in its or its[-1] != kernel.PARALLEL:
        return 1
    split = next((d for d, (n, it) in enumerate(zip(domain, its)) if it == kernel.PARALLEL and n > 1), None)
    if split != len(domain) - 1:
        return 1
    itemsize = max(numpy_dtype(r.type.element).itemsize for r in op.results)
    return max(1, COLUMN_CHUNK_BYTES // itemsize)


def _plus(b: ll.IRBuilder, x: int | ll.Value, y: int | ll.Value) -> int | ll.Value:
    if isinstance(x, int) and isinstance(y, int):
        return x + y
    return b.add(runtime.as_value(x), runtime.as_value(y))


def _one_call_below_min_split(b: ll.IRBuilder, work: int | ll.Value,
                              weighed: int | ll.Value) -> int | ll.Value:
    """The work the launch compares with the threshold, made -1 (below any threshold: one
    call) when the kernel's run-time work is below ``runtime.MIN_SPLIT_WORK`` points: a
    size-generic kernel is compiled split for every size, and no thread pays below that."""
    if isinstance(work, int) or runtime.MIN_SPLIT_WORK <= 0:
        return weighed
    small = b.icmp_signed("<", work, ll.Constant(I64, runtime.MIN_SPLIT_WORK))
    return b.select(small, ll.Constant(I64, -1), runtime.as_value(weighed))


def _sized(op: Operation, symbols: tuple[int, ...]) -> bool:
    """Whether ``op``'s work depends on the function's run-time extents (``Sizes``)."""
    return any(d in symbols for d in op.domain())


def _loops(func: Operation) -> bool:
    """Whether ``func`` has a loop: an ``scf.for`` or ``scf.while`` on the host (which may run
    a kernel many times) or in a kernel's body (a scalar loop kernel)."""
    return any(isinstance(op, (scf.ForOp, scf.WhileOp)) for op in func.walk())


def _work(op: Operation) -> int:
    """A kernel's iteration points: what the runtime's threshold and chunks are measured in."""
    return math.prod(op.domain())


def _work_op(op: Operation) -> Operation:
    """The op whose points the thread threshold weighs: a product with a fused epilogue as
    its product (m * n * k multiply-adds), as the product alone would be."""
    fused = match_fused_product(op)
    return op if fused is None else fused.product


def _reduces_to_one(op: Operation) -> bool:
    """A reduction whose parallel dims all have extent 1 (the plan gives it no parallel extent
    when it has none), that may run in pieces: it neither runs in order nor starts from a copy
    of an input (see ``host._parallel_extent``)."""
    return (op.has_reduction and op.scan_dim is None and not kernel.runs_in_order(op)
            and all(source < 0 for source in op.copy_inputs)
            and all(d == 1 for d, it in zip(op.domain(), op.iterator_types) if it == kernel.PARALLEL))
