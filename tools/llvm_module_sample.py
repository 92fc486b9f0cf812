"""A sample of the LLVM modules a test slice compiles, kept as text, and LLVM's CPU on each offline:
what a change to our IR or to the pipeline saves per module (docs/performance.md, "Session 56:
compile time per module").

    python -m pytest -p tools.llvm_module_sample --llvm-sample DIR [pytest's options] TESTS
    PYTHONPATH=. python tools/llvm_module_sample.py measure DIR [--variants base,s2,cg2] [--limit N]
    PYTHONPATH=. python tools/llvm_module_sample.py compare BASE_DIR BRANCH_DIR [--limit N]
    python tools/llvm_module_sample.py classify DIR

The plugin writes each host compile's IR (O3 or light, as ``target.compile_ir`` got it) once, by
digest, with an index of how it was compiled. ``measure`` compiles every O3 module of DIR as
``compile_ir`` does, under pipeline variants (``base``: O3 and machine code at level 3; ``s2``:
LLVM's O2 pipeline with the loop and SLP vectorizers on; ``cg2``: machine code at level 2), and
prints the thread CPU of LLVM's passes and of machine code, and the machine code's bytes.
``compare`` pairs the modules of two captures of the same tests by their kernels' text (the
entry's name, a digest of the whole IR, differs between branches) and measures each pair in the
same process, alternately. ``classify`` counts where the O3 modules' input instructions are: the
kernels, the entry's first block (its arguments unpacked), the rest of the entry (launches and
control), each other function by its name (session 57's table in docs/performance.md).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import statistics
import struct
import sys
import time


# ----------------------------------------------------------------------------- the plugin
def pytest_addoption(parser):
    parser.getgroup("llvm sample").addoption(
        "--llvm-sample", default=None, help="keep each compiled module's IR here"
    )


def pytest_configure(config):
    folder = config.getoption("llvm_sample")
    if not folder:
        return
    from jitcore.codegen.cpu import target

    os.makedirs(folder, exist_ok=True)
    compile_ir = target.compile_ir

    def kept(llvm_ir, machine=None, unroll=True, light=False, level=3):
        if machine is None:
            digest = hashlib.sha1(llvm_ir.encode()).hexdigest()[:16]
            path = os.path.join(folder, f"{digest}.ll")
            if not os.path.exists(path):
                with open(path, "w") as f:
                    f.write(llvm_ir)
                with open(os.path.join(folder, "index.jsonl"), "a") as f:
                    row = {"digest": digest, "unroll": unroll, "light": light, "level": level}
                    f.write(json.dumps(row) + "\n")
        return compile_ir(llvm_ir, machine, unroll=unroll, light=light, level=level)

    target.compile_ir = kept


# ----------------------------------------------------------------------------- offline
VARIANTS = {"base": {}, "s2": {"speed": 2}, "cg2": {"codegen": 2}, "s2cg2": {"speed": 2, "codegen": 2}}
_machines: dict = {}


def _machine(opt: int):
    from jitcore.codegen.cpu import target

    if opt not in _machines:
        import llvmlite.binding as llvm

        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        _machines[opt] = target._new_machine(*target._host_machine(), opt)
    return _machines[opt]


def compile_timed(llvm_ir: str, unroll: bool, speed: int = 3, codegen: int = 3) -> dict:
    """``target.compile_ir``'s O3 path with the pipeline's ``speed`` level (vectorizers on at any
    level) and machine code at ``codegen``: thread CPU of passes and of machine code, code bytes."""
    import llvmlite.binding as llvm

    from jitcore.codegen.cpu import target

    tm, features = _machine(codegen), target.host_features()
    module = llvm.parse_assembly(target.with_legal_width(llvm_ir, features))
    module.triple, module.data_layout = tm.triple, str(tm.target_data)
    start = time.thread_time()
    pto = llvm.create_pipeline_tuning_options(speed_level=speed)
    pto.loop_vectorization = True
    pto.slp_vectorization = f"!{target.NO_SLP_METADATA} =" not in llvm_ir
    pto.loop_unrolling = unroll
    builder = llvm.create_pass_builder(tm, pto)
    builder.getModulePassManager().run(module, builder)
    target._inline_math(module, tm, features)
    passed = time.thread_time()
    code = tm.emit_object(module)
    return {"passes": passed - start, "machine code": time.thread_time() - passed, "bytes": _code_bytes(code)}


def _code_bytes(elf: bytes) -> int:
    """Bytes of an ELF64 object's executable sections."""
    (shoff,) = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", elf, 0x3A)
    return sum(
        struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize)[5]
        for i in range(shnum)
        if struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize)[2] & 4
    )


def _o3_modules(folder: str) -> list[tuple[str, bool]]:
    with open(os.path.join(folder, "index.jsonl")) as f:
        rows = [json.loads(line) for line in f]
    return [
        (os.path.join(folder, r["digest"] + ".ll"), r["unroll"])
        for r in rows
        if not r["light"] and r["level"] == 3
    ]


def instructions(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.startswith("  ") and not line.startswith("   "))


def kernels_key(text: str) -> str | None:
    """The module's kernels' text with the entry's name taken out: the same for the same
    function compiled by two branches whose kernels are the same."""
    entry = re.search(r'^define void @"(jit_[^"]+?_[0-9a-f]{16})"', text, re.M)
    if not entry:
        return None
    name = entry.group(1)
    kernel = r'^define internal void @"' + re.escape(name) + r'_k\d+\w*"\(.*?^}'
    kernels = re.findall(kernel, text, re.M | re.S)
    return hashlib.sha1("".join(kernels).replace(name, "X").encode()).hexdigest() if kernels else None


def _report(label: str, rows: list[dict]) -> str:
    n = len(rows) or 1
    p, m = sum(r["passes"] for r in rows), sum(r["machine code"] for r in rows)
    size, code = sum(r["in"] for r in rows) / n, sum(r["bytes"] for r in rows) / n
    return (
        f"{label:10s} {len(rows):4d} modules  instructions in {size:7.0f}  passes {p:7.2f} s  "
        f"machine code {m:7.2f} s  LLVM {p + m:7.2f} s  code {code:8.0f} B"
    )


def measure(folder: str, variants: list[str], limit: int | None) -> None:
    rows: dict[str, list[dict]] = {v: [] for v in variants}
    for path, unroll in _o3_modules(folder)[:limit]:
        text = open(path).read()
        for v in variants:
            rows[v].append({"in": instructions(text), **compile_timed(text, unroll, **VARIANTS[v])})
    for v in variants:
        print(_report(v, rows[v]))


def compare(base: str, branch: str, limit: int | None) -> None:
    def keyed(folder):
        found = {}
        for path, unroll in _o3_modules(folder):
            key = kernels_key(open(path).read())
            if key:
                found.setdefault(key, (path, unroll))
        return found

    a, b = keyed(base), keyed(branch)
    pairs = [(a[k], b[k]) for k in a if k in b][:limit]
    got = {"base": [], "branch": []}
    for pair in pairs:
        for label, (path, unroll) in zip(got, pair):
            text = open(path).read()
            got[label].append({"in": instructions(text), **compile_timed(text, unroll)})
    for label, rows in got.items():
        print(_report(label, rows))
    ratios = [
        (y["passes"] + y["machine code"]) / (x["passes"] + x["machine code"])
        for x, y in zip(got["base"], got["branch"])
    ]
    if ratios:
        print(
            f"branch/base LLVM CPU per module: median {statistics.median(ratios):.3f}, "
            f"{min(ratios):.3f}-{max(ratios):.3f}"
        )


def _function_kind(linkage: str, name: str) -> str:
    if name.startswith("jit_"):
        return "entry" if "internal" not in linkage else "kernel"
    return re.sub(r"_[0-9a-f]{12}$|_\d+$", "", name)  # a per-signature worker's hash, an arity


def classify(folder: str) -> None:
    counts: dict[str, int] = {}
    paths = _o3_modules(folder)
    for path, _ in paths:
        text = open(path).read()
        for linkage, name, body in re.findall(
            r'^define ([^\n]*?)@"([^"]+)"\(.*?^{(.*?)^}', text, re.M | re.S
        ):
            kind, block = _function_kind(linkage, name), None
            for line in body.splitlines():
                if re.match(r'^"?[\w.]+"?:', line):
                    block = line.split(":")[0].strip('"')
                elif line.startswith("  ") and not line.startswith("   ") and line.strip():
                    where = kind
                    if kind == "entry":
                        first = block in (None, "entry")
                        where = "entry: arguments" if first else "entry: launches and control"
                    counts[where] = counts.get(where, 0) + 1
    total = sum(counts.values()) or 1
    print(f"{len(paths)} O3 modules, {total} instructions in, {total / max(len(paths), 1):.0f} per module")
    for kind, n in sorted(counts.items(), key=lambda item: -item[1]):
        print(f"  {kind:40s} {n:8d}  {100 * n / total:5.1f}%")


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("measure")
    m.add_argument("folder")
    m.add_argument("--variants", default="base,s2,cg2")
    m.add_argument("--limit", type=int, default=None)
    c = sub.add_parser("compare")
    c.add_argument("base")
    c.add_argument("branch")
    c.add_argument("--limit", type=int, default=None)
    k = sub.add_parser("classify")
    k.add_argument("folder")
    args = parser.parse_args(argv)
    if args.command == "measure":
        measure(args.folder, args.variants.split(","), args.limit)
    elif args.command == "classify":
        classify(args.folder)
    else:
        compare(args.base, args.branch, args.limit)


if __name__ == "__main__":
    main(sys.argv[1:])
