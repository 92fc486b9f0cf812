"""The public names of NumPy that ``jitcore.numpy`` does not export, each with the reason.

One list, kept here: tests/test_namespace.py walks NumPy's public names (``numpy`` and
``numpy.linalg``) and checks that each is either exported by ``jitcore.numpy`` (under NumPy's
name) or listed here, and that docs/numpy_support.md shows this list as ``markdown()`` writes it
(``python -m jitcore.numpy.not_supported`` prints it). A NumPy function listed here, called on a
traced array, raises ``UnsupportedError``; one exported but missing here is supported.
"""

from __future__ import annotations

# reason -> names of ``numpy``
NOT_SUPPORTED: dict[str, tuple[str, ...]] = {
    "not lowered yet (raises UnsupportedError on traced arrays)": (
        "einsum_path",
        "nextafter",
        "row_stack", "spacing", "random", "polynomial",
    ),
    "results whose dtype depends on the data (raise JitTypeError on traced complex arrays)": (
        "real_if_close",
    ),
    "results whose shape depends on the data (a compiled function's shapes are fixed)": (
        "intersect1d", "setdiff1d", "setxor1d", "trim_zeros", "union1d", "unique_all",
        "unique_counts", "unique_inverse", "unique_values",
    ),
    "index helpers computed from static shapes: call them outside jit (plain NumPy)": (
        "diag_indices", "index_exp", "indices", "mask_indices", "mgrid",
        "ogrid", "s_", "tril_indices", "triu_indices", "fromfunction",
    ),
    "dtypes jitcore has no IR type for (strings, objects, dates, extended precision)": (
        "bytes_", "character", "clongdouble", "complex256", "datetime64", "flexible", "float128",
        "longdouble", "object_", "str_", "timedelta64", "void", "busday_count", "busday_offset",
        "busdaycalendar", "datetime_as_string", "datetime_data", "is_busday", "isnat", "char",
        "strings", "rec", "recarray", "record",
    ),
    "array subclasses and array-like containers (refused as arguments: convert to ndarray)": (
        "ma", "matrix", "asmatrix", "bmat", "memmap", "poly1d", "asanyarray", "asarray_chkfinite",
        "ascontiguousarray", "asfortranarray", "require", "from_dlpack", "frombuffer", "fromiter",
    ),
    "input, output and printing": (
        "array2string", "array_repr", "array_str", "base_repr", "binary_repr",
        "format_float_positional", "format_float_scientific", "fromfile", "fromregex", "fromstring",
        "genfromtxt", "get_printoptions", "info", "load", "loadtxt", "printoptions", "save", "savetxt",
        "savez", "savez_compressed", "set_printoptions",
    ),
    "NumPy's own machinery, not array functions": (
        "ScalarType", "broadcast", "core", "ctypeslib", "errstate", "exceptions", "f2py",
        "flatiter", "frompyfunc", "get_include", "getbufsize", "geterr", "geterrcall", "isfortran",
        "iterable", "lib", "little_endian", "may_share_memory", "min_scalar_type", "mintypecode",
        "common_type", "ndenumerate", "ndindex", "nditer", "nested_iters", "sctypeDict", "setbufsize",
        "seterr", "seterrcall", "shares_memory", "show_config", "show_runtime", "test", "testing",
        "typecodes", "typename", "typing", "ufunc", "vectorize", "dtypes", "isscalar",
    ),
}

# reason -> names of ``numpy.linalg``
NOT_SUPPORTED_LINALG: dict[str, tuple[str, ...]] = {
    "NumPy's own machinery, not array functions": ("test",),
}


def names(table: dict[str, tuple[str, ...]]) -> set[str]:
    return {name for group in table.values() for name in group}


def markdown() -> str:
    """The lists as docs/numpy_support.md shows them."""
    lines = []
    for title, table in (("`numpy`", NOT_SUPPORTED), ("`numpy.linalg`", NOT_SUPPORTED_LINALG)):
        lines.append(f"Names of {title} not in `jitcore.numpy`:")
        lines.append("")
        for reason, group in table.items():
            lines.append(f"- {reason}: " + ", ".join(f"`{n}`" for n in sorted(group)) + ".")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
