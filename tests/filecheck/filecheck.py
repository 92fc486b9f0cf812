"""IR text tests in the style of MLIR's lit + FileCheck, for the ``.mlir`` files in this folder.

A file holds one or more cases separated by ``// -----`` lines (mlir-opt's --split-input-file).
Each case is IR text (a ``"builtin.module"``, or bare ``"func.func"`` ops that are wrapped in one)
with comment lines that drive it:

    // RUN: kernelize,fuse        the pass pipeline (run with the verifier after each pass)
    // CHECK: text                 found after the previous match
    // CHECK-NEXT: text            found on the line after the previous match
    // CHECK-SAME: text            found on the same line as the previous match
    // CHECK-NOT: text             not found between the previous match and the next one
    // CHECK-LABEL: text           matched first; splits the output into blocks, and the other
                                   checks stay inside their block (variables are local to it)
    // CHECK-ERROR: text           the pipeline fails; checks its message like CHECK lines

Patterns are literal text, with ``{{regex}}``, ``[[NAME:regex]]`` (capture) and ``[[NAME]]``
(the captured text), ``[[@LINE]]`` / ``[[@LINE+N]]`` (the check's own line number, plus N); runs
of spaces match any run of spaces, as FileCheck's default.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from jitcore import ir, passes

SPLIT = re.compile(r"^// -----[ \t]*(?:\n|$)", re.M)
DIRECTIVE = re.compile(r"//\s*(RUN|CHECK(?:-[A-Z]+)*):(.*)$")
KINDS = ("CHECK", "CHECK-NEXT", "CHECK-SAME", "CHECK-NOT", "CHECK-LABEL", "CHECK-ERROR")
_PIECE = re.compile(r"\{\{(.*?)\}\}|\[\[([A-Za-z_]\w*|@LINE(?:[+-]\d+)?)(?::(.*?))?\]\]")


class CheckFailure(Exception):
    """A check did not hold; the message says which, where, and shows the output near it."""


@dataclass
class Check:
    kind: str
    pattern: str
    line: int  # in the .mlir file

    def where(self, path: str) -> str:
        return f"{path}:{self.line}: {self.kind}: {self.pattern}"


@dataclass
class Case:
    path: str
    line: int  # first line of the case in the file
    text: str  # padded with newlines so that parse errors give the file's line numbers
    pipeline: str | None = None
    checks: list[Check] = field(default_factory=list)

    @property
    def name(self) -> str:
        m = re.search(r'sym_name = "([^"]+)"', self.text)
        return m[1] if m else f"line{self.line}"


def split_cases(source: str, path: str) -> list[Case]:
    """The cases of one file, each with its RUN line and checks."""
    separators = list(SPLIT.finditer(source))
    starts = [0] + [m.end() for m in separators]
    ends = [m.start() for m in separators] + [len(source)]
    cases = []
    for start, end in zip(starts, ends):
        chunk = source[start:end]
        first = source.count("\n", 0, start) + 1
        case = Case(path, first, "\n" * (first - 1) + chunk)
        for k, text in enumerate(chunk.splitlines()):
            m = DIRECTIVE.search(text)
            if m is None:
                continue
            kind, body = m[1], m[2].strip()
            if kind == "RUN":
                if case.pipeline is not None:
                    raise CheckFailure(f"{path}:{first + k}: a second RUN line in one case")
                case.pipeline = body
            elif kind not in KINDS:
                raise CheckFailure(f"{path}:{first + k}: unknown directive {kind}")
            else:
                case.checks.append(Check(kind, body, first + k))
        if case.pipeline is None:
            raise CheckFailure(f"{path}:{first}: case has no RUN line")
        if not any(c.kind != "CHECK-NOT" for c in case.checks):
            raise CheckFailure(f"{path}:{first}: case has no positive CHECK line, so it cannot fail")
        cases.append(case)
    return cases


def run_case(case: Case) -> None:
    """Parse, run the pipeline, and match the checks (or CHECK-ERRORs) against the result."""
    errors = [c for c in case.checks if c.kind == "CHECK-ERROR"]
    if errors and len(errors) != len(case.checks):
        raise CheckFailure(f"{case.path}:{case.line}: CHECK-ERROR cannot mix with other checks")
    try:
        output = run_pipeline(case.text, case.pipeline)
    except ir.JitcoreError as e:
        if not errors:
            raise
        message = f"{type(e).__name__}: {e}"
        match([Check("CHECK", c.pattern, c.line) for c in errors], message, case.path)
        return
    if errors:
        raise CheckFailure(f"{errors[0].where(case.path)}\nexpected an error, but the pipeline "
                           f"succeeded with output:\n{output}")
    match(case.checks, output, case.path)


def run_pipeline(text: str, pipeline: str) -> str:
    """``text`` parsed (bare functions wrapped in a module), run through ``pipeline``, printed."""
    module = ir.parse_module(text)
    passes.PassManager(pipeline, verify_each=True).run(module)
    return ir.print_op(module)


# -- matching -----------------------------------------------------------------------------------
def compile_pattern(check: Check, variables: dict[str, str], path: str) -> re.Pattern:
    out, defined, pos = [], set(), 0
    text = check.pattern
    for m in _PIECE.finditer(text):
        out.append(_literal(text[pos:m.start()]))
        regex, name, definition = m.groups()
        if regex is not None:
            out.append(f"(?:{regex})")
        elif name.startswith("@LINE"):
            out.append(str(check.line + int(name[5:] or 0)))
        elif definition is not None:
            if check.kind == "CHECK-LABEL":
                raise CheckFailure(f"{check.where(path)}\nCHECK-LABEL cannot define variables")
            out.append(f"(?P<{name}>{definition})")
            defined.add(name)
        elif name in defined:
            out.append(f"(?P={name})")
        elif name in variables:
            out.append(re.escape(variables[name]))
        else:
            raise CheckFailure(f"{check.where(path)}\nuse of undefined variable [[{name}]]")
        pos = m.end()
    out.append(_literal(text[pos:]))
    try:
        return re.compile("".join(out))
    except re.error as e:
        raise CheckFailure(f"{check.where(path)}\nbad regex: {e}") from None


def _literal(text: str) -> str:
    return r"[ \t]+".join(re.escape(part) for part in re.split(r"[ \t]+", text))


def match(checks: list[Check], output: str, path: str = "<checks>") -> None:
    """FileCheck's semantics for ``checks`` against ``output``; raises ``CheckFailure``."""
    labels = [c for c in checks if c.kind == "CHECK-LABEL"]
    bounds, pos = [], 0
    for label in labels:
        m = compile_pattern(label, {}, path).search(output, pos)
        if m is None:
            _fail(label, path, output, pos, {}, "label not found")
        bounds.append((m.start(), m))
        pos = m.end()
    # Blocks: the checks before the first label, then each label and the checks after it.
    starts = [0] + [b for b, _ in bounds]
    ends = [b for b, _ in bounds] + [len(output)]
    groups: list[list[Check]] = [[]]
    for c in checks:
        if c.kind == "CHECK-LABEL":
            groups.append([])
        else:
            groups[-1].append(c)
    for k, (group, start, end) in enumerate(zip(groups, starts, ends)):
        previous = bounds[k - 1][1] if k else None
        _match_block(group, output, start, end, previous, path)


def _match_block(checks, output, start, end, previous, path) -> None:
    variables: dict[str, str] = {}
    pos = previous.end() if previous else start
    last_end = previous.end() if previous else None
    nots: list[tuple[Check, re.Pattern]] = []
    for c in checks:
        pattern = compile_pattern(c, variables, path)
        if c.kind == "CHECK-NOT":
            nots.append((c, pattern))
            continue
        m = pattern.search(output, pos, end)
        if m is None:
            _fail(c, path, output, pos, variables, "expected text not found")
        between = output[last_end if last_end is not None else pos:m.start()]
        if c.kind == "CHECK-NEXT" and (last_end is None or between.count("\n") != 1):
            _fail(c, path, output, pos, variables,
                  f"found on line {_line_of(output, m.start())}, not on the line after the previous match")
        if c.kind == "CHECK-SAME" and (last_end is None or "\n" in between):
            _fail(c, path, output, pos, variables,
                  f"found on line {_line_of(output, m.start())}, not on the line of the previous match")
        _check_nots(nots, output, pos, m.start(), variables, path)
        nots = []
        variables.update({k: v for k, v in m.groupdict().items() if v is not None})
        pos = last_end = m.end()
    _check_nots(nots, output, pos, end, variables, path)


def _check_nots(nots, output, start, end, variables, path) -> None:
    for c, pattern in nots:
        m = pattern.search(output, start, end)
        if m is not None:
            _fail(c, path, output, m.start(), variables, "excluded text found")


def _line_of(output: str, pos: int) -> int:
    return output.count("\n", 0, pos) + 1


def _fail(check: Check, path: str, output: str, pos: int, variables: dict, why: str, context: int = 3):
    lines = output.splitlines()
    at = _line_of(output, pos)
    shown = []
    for n in range(max(1, at - context), min(len(lines), at + context) + 1):
        shown.append(f"{'>' if n == at else ' '} {n:4d} | {lines[n - 1]}")
    names = "".join(f"\n  [[{k}]] = {v!r}" for k, v in variables.items())
    raise CheckFailure(f"{check.where(path)}\n{why}" + (f"\nwith variables:{names}" if names else "")
                       + f"\noutput near the search point (line {at}):\n" + "\n".join(shown))
