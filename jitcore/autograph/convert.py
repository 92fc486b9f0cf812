"""From a Python function to its converted twin: read the source, rewrite the AST
(``transform``), compile it under the user's file name and line numbers, and rebuild the
function with the same globals, closure values and defaults.

The compiled code is cached per code object; the function itself is rebuilt on each call of
``converted`` from the current closure values (cheap, and it happens only while tracing).
A partial converts its function, a callable object its class's ``__call__``. Functions
without source (builtins, C functions, code typed at a prompt and not in ``linecache``),
functions of jitcore, NumPy and installed libraries, and generators run unconverted.
"""

from __future__ import annotations

import ast
import contextvars
import copy
import dis
import functools
import inspect
import linecache
import marshal
import os
import sysconfig
import textwrap
import threading
import types

from jitcore.autograph import analysis, transform
from jitcore.errors import UnsupportedError
from jitcore.tracer import is_user_file

_LIBRARY_PATHS = tuple(os.path.join(os.path.abspath(p), "") for p in {
    sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")})
_FACTORY = "__agf_factory"
_CONVERTED = "__agf_converted"
_cache: dict = {}  # (code object, file) -> (factory code, free variable names), or None: unconverted
_converted_codes: set = set()  # code objects that conversion made
_lock = threading.Lock()
# Where converted code is kept across processes (``use_code_store``), or None. A new process
# then converts no function that an earlier one converted: reading the source, parsing it,
# rewriting and compiling it cost a few milliseconds of a first call that loads its compiled
# code from the disk cache.
_store = None
# Off while a function jitted with cache=False is traced: it neither reads nor writes the store.
storing = contextvars.ContextVar("jitcore_autograph_storing", default=True)


def use_code_store(store) -> None:
    """Keep converted code in ``store``: ``load_code(code) -> bytes | None`` and
    ``store_code(code, data)``, where ``code`` is the original function's code object, marshalled
    (its bytecode, constants, names, file and line table: a function whose source changed has
    other code), and ``data`` the marshalled converted code. ``jitcore.disk_cache`` sets it."""
    global _store
    _store = store


def _convertible(fun) -> bool:
    code = getattr(fun, "__code__", None)
    if not isinstance(fun, types.FunctionType) or code is None:
        return False
    filename = code.co_filename
    # "<stdin>", "<string>": no source, unless its lines are in linecache (IPython's cells,
    # code made with exec whose maker put them there)
    if filename.startswith("<") and not linecache.getlines(filename):
        return False
    if not is_user_file(filename):
        return False
    return not os.path.abspath(filename).startswith(_LIBRARY_PATHS)


def source_unreadable(fun) -> bool:
    """Whether ``fun`` is the user's Python function whose source ``inspect`` cannot find (made
    by ``exec``, typed at ``python -``): it is then traced as is, unconverted."""
    code = getattr(fun, "__code__", None)
    if not isinstance(fun, types.FunctionType) or code is None or not is_user_file(code.co_filename):
        return False
    try:
        inspect.getsourcelines(fun)
    except (OSError, TypeError):
        return True
    return False


def converted(fun, helpers):
    """``fun`` converted, or ``fun`` itself when it is not the user's Python function.
    ``helpers`` is what the converted code calls as ``__ag__`` (the ``runtime`` module)."""
    if isinstance(fun, types.MethodType):
        inner = converted(fun.__func__, helpers)
        return fun if inner is fun.__func__ else types.MethodType(inner, fun.__self__)
    if isinstance(fun, functools.partial):
        inner = converted(fun.func, helpers)
        return fun if inner is fun.func else functools.partial(inner, *fun.args, **fun.keywords)
    call = type(fun).__call__ if callable(fun) and not isinstance(fun, type) else None
    if isinstance(call, types.FunctionType):  # an object of a class with a Python __call__
        inner = converted(call, helpers)
        return fun if inner is call else types.MethodType(inner, fun)
    if not _convertible(fun) or fun.__code__ in _converted_codes:
        return fun
    code = fun.__code__
    # Code objects compare by content, not by file: the same function in two files is equal
    # code, but its converted code must name its own file (tracebacks, source locations).
    key = (code, code.co_filename)
    with _lock:
        entry = _cache.get(key, ...)
    if entry is ...:
        entry = _stored_or_converted(fun)
        with _lock:
            _cache[key] = entry
    if entry is None:
        return fun
    factory_code, freevars = entry
    try:
        cells = [c.cell_contents for c in (fun.__closure__ or ())]
    except ValueError:  # a closure variable with no value yet
        return fun
    if _writes_cells(code):  # nonlocal: its writes must reach the enclosing function's cells
        inner = next(c for c in factory_code.co_consts if isinstance(c, types.CodeType))
        cells = dict(zip(code.co_freevars, fun.__closure__), __ag__=types.CellType(helpers))
        new = types.FunctionType(inner, fun.__globals__, fun.__name__, None,
                                 tuple(cells[name] for name in inner.co_freevars))
    else:
        closure = dict(zip(code.co_freevars, cells))
        factory = types.FunctionType(factory_code, fun.__globals__, _FACTORY)
        new = factory(helpers, *[closure[name] for name in freevars])
    new.__name__, new.__qualname__ = fun.__name__, fun.__qualname__
    new.__defaults__ = fun.__defaults__
    new.__kwdefaults__ = fun.__kwdefaults__
    new.__dict__.update(fun.__dict__)
    return new


def _stored_or_converted(fun):
    """``_factory(fun)``, from the code store when it has it (see ``use_code_store``)."""
    store = _store if storing.get() else None
    if store is None:
        return _factory(fun)
    key = marshal.dumps(fun.__code__)
    data = store.load_code(key)
    if data is not None:
        try:
            factory_code, freevars = marshal.loads(data)
        except (EOFError, ValueError, TypeError):  # not what store_code wrote: convert anew
            pass
        else:
            if isinstance(factory_code, types.CodeType) and freevars == tuple(
                    n for n in fun.__code__.co_freevars if n != "__ag__"):
                _mark_converted(factory_code)
                return factory_code, freevars
    entry = _factory(fun)
    if entry is not None:
        store.store_code(key, marshal.dumps(entry))
    return entry


def _factory(fun):
    """The compiled factory of ``fun``'s converted code and its parameters, or None."""
    code = fun.__code__
    if code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
        return None
    try:
        lines, first = inspect.getsourcelines(fun)
    except (OSError, TypeError):
        return None
    source = textwrap.dedent("".join(lines))
    if code.co_name == "<lambda>":
        node = _find_lambda(code, source, lines, first)
    else:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            return None
        ast.increment_lineno(tree, first - 1)
        node = _find(tree, fun, code)
    if node is None:
        return None
    if isinstance(node, ast.Lambda):
        node = ast.FunctionDef(name=code.co_name, args=node.args, body=[ast.Return(value=node.body)],
                               decorator_list=[], returns=None, type_comment=None,
                               lineno=node.lineno, col_offset=node.col_offset)
        if "type_params" in ast.FunctionDef._fields:
            node.type_params = []
    transform.convert_function(node)
    _strip_definition_time(node)
    node.name = _CONVERTED  # the factory must not bind the user's name: f may call (global) f
    freevars = tuple(n for n in code.co_freevars if n != "__ag__")
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=a) for a in ("__ag__", *freevars)],
                         vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    factory = ast.FunctionDef(name=_FACTORY, args=args,
                              body=[node, ast.Return(value=ast.Name(id=node.name, ctx=ast.Load()))],
                              decorator_list=[], returns=None, type_comment=None,
                              lineno=node.lineno, col_offset=0)
    if "type_params" in ast.FunctionDef._fields:
        factory.type_params = []
    module = ast.Module(body=[factory], type_ignores=[])
    analysis.fix_missing_locations(module)
    for n in ast.walk(module):  # generated nodes span their statement's first line
        if hasattr(n, "lineno") and (n.end_lineno is None or n.end_lineno < n.lineno):
            n.end_lineno, n.end_col_offset = n.lineno, n.col_offset
    try:
        compiled = compile(module, code.co_filename, "exec", dont_inherit=True)
    except SyntaxError as e:
        raise UnsupportedError(f"jitcore could not convert {fun.__qualname__}() at "
                               f"{code.co_filename}:{code.co_firstlineno}: {e}") from None
    factory_code = next(c for c in compiled.co_consts if isinstance(c, types.CodeType))
    # The converted function's code under the user's name, for tracebacks.
    names = {"co_name": code.co_name}
    if hasattr(code, "co_qualname"):
        names["co_qualname"] = code.co_qualname
    factory_code = factory_code.replace(co_consts=tuple(
        c.replace(**names) if isinstance(c, types.CodeType) and c.co_name == _CONVERTED else c
        for c in factory_code.co_consts))
    _mark_converted(factory_code)
    return factory_code, freevars


def _writes_cells(code) -> bool:
    """Whether ``code`` assigns a variable of an enclosing function (``nonlocal``)."""
    return any(i.opname in ("STORE_DEREF", "DELETE_DEREF") and i.argval in code.co_freevars
               for i in dis.get_instructions(code))


class _Lambdas:
    """A parsed source and the lambdas in it by their first line, kept for the other lambdas
    of the same source: a table of lambdas (a dict of them over many lines) is one statement,
    which ``inspect`` gives whole for each of its lambdas, and parsing and searching it again
    for each one made converting the table quadratic in its length."""

    def __init__(self, tree, margin: int):
        self.margin = margin
        self.by_line: dict[int, list] = {}
        for n in ast.walk(tree):
            if isinstance(n, ast.Lambda):
                self.by_line.setdefault(n.lineno, []).append(n)


_LAMBDA_SOURCES: dict[tuple, _Lambdas | None] = {}  # (file, first line, source) -> its lambdas
_LAMBDA_SOURCES_KEPT = 8  # parsed sources kept at most (one may be a whole file's)


def _find_lambda(code, source: str, lines: list[str], first: int):
    """A copy of the lambda of ``code`` in ``source`` (``inspect``'s lines of it, from line
    ``first``), or None. A copy: the parse is kept, and conversion rewrites the node it gets."""
    key = (code.co_filename, first, source)
    with _lock:
        found = _LAMBDA_SOURCES.get(key, ...)
    if found is ...:
        try:
            tree = ast.parse(source)
        except SyntaxError:  # a lambda cut out of a longer expression (a dict's or a call's line)
            tree, margin = _whole_file(code), 0
        else:
            ast.increment_lineno(tree, first - 1)
            margin = len(lines[0]) - len(source.splitlines(True)[0])  # columns dedent took off
        found = None if tree is None else _Lambdas(tree, margin)
        with _lock:
            if len(_LAMBDA_SOURCES) >= _LAMBDA_SOURCES_KEPT:
                _LAMBDA_SOURCES.clear()
            _LAMBDA_SOURCES[key] = found
    if found is None:
        return None
    lambdas = found.by_line.get(code.co_firstlineno, [])
    if len(lambdas) > 1:  # several on the line: the one whose body's span an instruction has
        lambdas = [n for n in lambdas if _span(n.body, found.margin) in _spans(code)]
    return copy.deepcopy(lambdas[0]) if len(lambdas) == 1 else None


def _whole_file(code):
    """The parsed source of the file ``code`` is in (its lines as the interpreter has them), or
    None: a lambda whose lines do not parse alone is found in it by its line and columns."""
    lines = linecache.getlines(code.co_filename)
    try:
        return ast.parse("".join(lines)) if lines else None
    except SyntaxError:
        return None


def _mark_converted(code) -> None:
    """Remember the code objects of converted code (nested functions and lambdas included):
    called later, they are converted already."""
    _converted_codes.add(code)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _mark_converted(c)


def _strip_definition_time(node) -> None:
    """Drop what a ``def`` evaluates when it runs (defaults, annotations): they may name the
    enclosing scope, which the factory does not have; the original function's defaults are
    copied onto the converted one."""
    a = node.args
    a.defaults = [ast.Constant(None) for _ in a.defaults]
    a.kw_defaults = [None if d is None else ast.Constant(None) for d in a.kw_defaults]
    for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
        if arg is not None:
            arg.annotation = None
    node.returns = None


def _find(tree, fun, code):
    """The function's node in the parsed source: the def of its name at its first line (a
    lambda is ``_find_lambda``'s). The name is the code's: ``step.__name__ = "step_plant"``
    renames only the function object."""
    for n in ast.walk(tree):
        if isinstance(n, ast.FunctionDef) and n.name == code.co_name:
            start = min([n.lineno, *(d.lineno for d in n.decorator_list)])
            if start == code.co_firstlineno:
                return n
    return None


def _span(node, margin: int) -> tuple:
    """A node's place in the file as ``co_positions`` gives an instruction's."""
    return node.lineno, node.end_lineno, node.col_offset + margin, node.end_col_offset + margin


def _spans(code) -> set:
    """The places of a code object's instructions (none before Python 3.11, which has no
    ``co_positions``: several lambdas on one line then stay unconverted)."""
    positions = getattr(code, "co_positions", None)
    return set(positions()) if positions is not None else set()


def refuse_generator(fun) -> None:
    """A jitted generator cannot be compiled: say so, at its line."""
    code = getattr(fun, "__code__", None)
    if code is not None and code.co_flags & inspect.CO_GENERATOR:
        raise UnsupportedError(f"{fun.__qualname__}() at {code.co_filename}:{code.co_firstlineno} "
                               "is a generator (it uses yield); a jitted function must return "
                               "its results")



_HELPERS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "")


def without_helper_frames(tb):
    """``tb`` without the frames of the conversion's helpers: between two lines of the user's
    converted code they would only confuse."""
    kept = []
    while tb is not None:
        if not os.path.abspath(tb.tb_frame.f_code.co_filename).startswith(_HELPERS_DIR):
            kept.append(tb)
        tb = tb.tb_next
    out = None
    for t in reversed(kept):
        out = types.TracebackType(out, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return out
