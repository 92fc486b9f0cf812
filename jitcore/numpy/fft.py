"""``jitcore.numpy.fft``: ``numpy.fft`` under jit (``fft``, ``ifft``, ``rfft``, ``irfft``, their
2-d and n-d forms, ``hfft``, ``ihfft``, the frequency helpers and the shifts).

Each transform is NumPy's: the same ``n``/``s``, ``axis``/``axes`` and ``norm`` arguments and
errors, the dtypes of NumPy 2 (float16, float32 and complex64 in complex64; everything else in
complex128), the input cut or zero-padded to ``n``. The one-dimensional transform along the last
axis is ``fft_plan.transform`` (mixed-radix stages, or Bluestein's algorithm), built from traced
array operations like any other NumPy code, so it fuses, runs on threads and is cached as they
are. Real transforms of even length run as a complex transform of half the length
(``fft_plan.real_forward``, ``real_backward``).
"""

from __future__ import annotations

import operator

import numpy as np

from jitcore import primitives as prims
from jitcore.errors import JitTypeError, JitValueError, UnsupportedError
from jitcore.numpy import fft_real  # noqa: F401  (installs the real radix stages in fft_plan)
from jitcore.numpy.fft_plan import (
    real_backward,
    real_backward_lanes,
    real_forward,
    real_forward_lanes,
    resized,
    transform,
    transform_lanes,
)
from jitcore.numpy.registry import implements, traced
from jitcore.tracer import Tracer, refuse_traced, user_location

__all__ = ["fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifft2", "ifftn",
           "ifftshift", "ihfft", "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn"]

_NORMS = (None, "backward", "ortho", "forward")


def _complex_dtype(dtype: np.dtype) -> np.dtype:
    """NumPy 2's: float16, float32 and complex64 transform in complex64, the rest in complex128."""
    return np.dtype(np.complex64 if dtype in (np.float16, np.float32, np.complex64) else np.complex128)


def _scale(norm, n: int, inverse: bool) -> float:
    if norm not in _NORMS:
        raise JitValueError(f'Invalid norm value {norm}; should be "backward","ortho" or "forward" '
                            f"(at {user_location()})")
    if norm == "ortho":
        return 1 / np.sqrt(n)
    return 1 / n if (norm == "forward") != inverse else 1.0


def _scaled(z, fct: float):
    """``z * fct`` part by part, as pocketfft scales: an infinite real part leaves the
    imaginary part alone (a complex product by ``fct + 0j`` would make it NaN)."""
    if fct == 1:
        return z
    fct = np.asarray(fct, z.dtype.char.lower())
    return prims.complex_from_parts(np.real(z) * fct, np.imag(z) * fct)


def _points(n, default: int) -> int:
    refuse_traced(n, "the length of numpy.fft's transform")
    n = default if n is None else operator.index(n)
    if n < 1:
        raise JitValueError(f"Invalid number of FFT data points ({n}) specified (at {user_location()})")
    return n


def _no_out(out, name: str) -> None:
    if out is not None:
        raise UnsupportedError(f"numpy.fft.{name}: out= is not supported under jit (at {user_location()}); "
                               "assign the result instead")


def _no_lanes(a, axis: int, length: int, dtype):
    """NumPy's result where the other axes hold no lane (``a`` of shape (17, 0) along axis 0):
    an empty array of the transform's shape, else None."""
    if all(d for k, d in enumerate(a.shape) if k != axis):
        return None
    shape = list(a.shape)
    shape[axis] = length
    return np.zeros(shape, dtype)


def _complex_1d(a, n, axis, norm, inverse: bool, name: str):
    """``fft``/``ifft`` along one axis."""
    a = a if isinstance(a, Tracer) else prims.array_operand(a)
    (axis,) = prims.normalize_axes(axis, a.ndim, f"numpy.fft.{name}")
    n = _points(n, a.shape[axis])
    fct = _scale(norm, n, inverse)
    empty = _no_lanes(a, axis, n, _complex_dtype(a.dtype))
    if empty is not None:
        return empty
    sign, then = (1 if inverse else -1), (lambda t: _scaled(t, fct))
    if axis != a.ndim - 1:
        out = transform_lanes(resized(a, n, axis).astype(_complex_dtype(a.dtype)), axis, sign, then)
        if out is not None:
            return out
    z = resized(np.moveaxis(a, axis, -1), n).astype(_complex_dtype(a.dtype))
    return np.moveaxis(transform(z, sign, then), -1, axis)


def _real_forward(a, n, axis, norm, name: str, inverse: bool = False):
    """``rfft`` (and ``ihfft``: the inverse's conjugate): the first ``n // 2 + 1`` terms."""
    if a.dtype.kind == "c":
        raise JitTypeError(f"numpy.fft.{name} needs real input, got {a.dtype} (at {user_location()}); "
                            "use numpy.fft.fft for complex input")
    (axis,) = prims.normalize_axes(axis, a.ndim, f"numpy.fft.{name}")
    n = _points(n, a.shape[axis])
    fct = _scale(norm, n, inverse)
    empty = _no_lanes(a, axis, n // 2 + 1, _complex_dtype(a.dtype))
    if empty is not None:
        return empty
    then = lambda t: _scaled(np.conjugate(t) if inverse else t, fct)  # noqa: E731
    if axis != a.ndim - 1:  # in place over the lanes after the axis, where they are enough
        out = real_forward_lanes(resized(a, n, axis), axis, _complex_dtype(a.dtype), then)
        if out is not None:
            return out
    out = real_forward(resized(np.moveaxis(a, axis, -1), n), _complex_dtype(a.dtype), then)
    return np.moveaxis(out, -1, axis)


def _real_backward(a, n, axis, norm, name: str, forward: bool = False):
    """``irfft`` (and ``hfft``: the forward transform of the Hermitian signal): a real result."""
    a = a if isinstance(a, Tracer) else prims.array_operand(a)
    (axis,) = prims.normalize_axes(axis, a.ndim, f"numpy.fft.{name}")
    n = _points(n, 2 * (a.shape[axis] - 1))
    fct = _scale(norm, n, not forward)
    real = np.float16 if a.dtype == np.float16 else _complex_dtype(a.dtype).char.lower()
    empty = _no_lanes(a, axis, n, real)
    if empty is not None:
        return empty
    c = a.astype(_complex_dtype(a.dtype))
    if forward:
        c = np.conjugate(c)
    then = lambda t: (t * np.asarray(fct, t.dtype) if fct != 1 else t).astype(real)  # noqa: E731
    if axis != a.ndim - 1:  # in place over the lanes after the axis, where they are enough
        out = real_backward_lanes(c, n, axis, then)
        if out is not None:
            return out
    return np.moveaxis(real_backward(np.moveaxis(c, axis, -1), n, then), -1, axis)


def _one_axis(np_fn, body, *extra):
    """The registered traced function for ``numpy.fft.<name>`` with NumPy's signature."""
    name = np_fn.__name__

    def fn(a, n=None, axis=-1, norm=None, out=None):
        if not traced(a):
            return np_fn(a, n, axis, norm, out)
        _no_out(out, name)
        return body(a, n, axis, norm, *extra, name=name) if extra else body(a, n, axis, norm, name=name)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``numpy.fft.{name}`` along ``axis``, traced."
    implements(np_fn)(fn)
    return fn


def _complex_body(inverse: bool):
    def body(a, n, axis, norm, name):
        return _complex_1d(a, n, axis, norm, inverse, name)
    return body


fft = _one_axis(np.fft.fft, _complex_body(False))
ifft = _one_axis(np.fft.ifft, _complex_body(True))
rfft = _one_axis(np.fft.rfft, lambda a, n, axis, norm, name: _real_forward(a, n, axis, norm, name))
ihfft = _one_axis(np.fft.ihfft, lambda a, n, axis, norm, name: _real_forward(a, n, axis, norm, name, True))
irfft = _one_axis(np.fft.irfft, lambda a, n, axis, norm, name: _real_backward(a, n, axis, norm, name))
hfft = _one_axis(np.fft.hfft, lambda a, n, axis, norm, name: _real_backward(a, n, axis, norm, name, True))


def _shape_and_axes(a: Tracer, s, axes, name: str, last_axes: int | None = None):
    """NumPy's reading of ``s`` and ``axes``: every axis by default, or the last ``len(s)``."""
    refuse_traced(s if s is not None else (), f"the lengths of numpy.fft.{name}")
    if axes is None:
        axes = tuple(range(-len(s), 0)) if s is not None else tuple(range(-(last_axes or a.ndim), 0))
    axes = tuple(operator.index(x) for x in axes)
    if s is not None and len(s) != len(axes):
        raise JitValueError(f"numpy.fft.{name}: Shape and axes have different lengths (at {user_location()})")
    for x in axes:
        prims.normalize_axes(x, a.ndim, f"numpy.fft.{name}")
    return (None,) * len(axes) if s is None else tuple(s), axes


def _many_axes(np_fn, default_axes=None):
    """``fftn``/``ifftn``/``rfftn``/``irfftn`` and their 2-d forms (``default_axes=(-2, -1)``):
    one-axis transforms, the last axis first as NumPy does."""
    name = np_fn.__name__
    real = name.startswith(("rfft", "irfft"))
    inverse = name.startswith(("ifft", "irfft"))

    def fn(a, s=None, axes=default_axes, norm=None, out=None):
        if not traced(a):
            return np_fn(a, s, axes, norm, out)
        _no_out(out, name)
        s, axes = _shape_and_axes(a, s, axes, name)
        if not axes:
            return a.astype(_complex_dtype(a.dtype))
        one = ifft if inverse else fft
        if real and not inverse:
            a = rfft(a, s[-1], axes[-1], norm)
        elif real:
            for n, axis in zip(s[:-1], axes[:-1]):
                a = one(a, n, axis, norm)
            return irfft(a, s[-1], axes[-1], norm)
        else:
            a = one(a, s[-1], axes[-1], norm)
        for n, axis in reversed(list(zip(s[:-1], axes[:-1]))):
            a = one(a, n, axis, norm)
        return a

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``numpy.fft.{name}``: one-axis transforms over ``axes``, traced."
    implements(np_fn)(fn)
    return fn


fftn, ifftn = _many_axes(np.fft.fftn), _many_axes(np.fft.ifftn)
rfftn, irfftn = _many_axes(np.fft.rfftn), _many_axes(np.fft.irfftn)
fft2, ifft2 = _many_axes(np.fft.fft2, (-2, -1)), _many_axes(np.fft.ifft2, (-2, -1))
rfft2, irfft2 = _many_axes(np.fft.rfft2, (-2, -1)), _many_axes(np.fft.irfft2, (-2, -1))


def _shift(np_fn, sign: int):
    name = np_fn.__name__

    def fn(x, axes=None):
        if not traced(x):
            return np_fn(x, axes)
        axes = tuple(range(x.ndim)) if axes is None else axes
        axes = (axes,) if isinstance(axes, (int, np.integer)) else tuple(axes)
        shifts = [sign * (x.shape[ax] // 2) for ax in axes]
        return np.roll(x, shifts, axes)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``numpy.fft.{name}``: ``np.roll`` by half of each axis, traced."
    implements(np_fn)(fn)
    return fn


fftshift, ifftshift = _shift(np.fft.fftshift, 1), _shift(np.fft.ifftshift, -1)


@implements(np.fft.fftfreq)
def fftfreq(n, d=1.0, device=None):
    """``numpy.fft.fftfreq`` with a traced spacing ``d`` (``n`` is a length: static)."""
    if not traced(d):
        return np.fft.fftfreq(n, d, device=device)
    refuse_traced(n, "the length of numpy.fft.fftfreq")
    k = np.concatenate([np.arange(0, (n - 1) // 2 + 1), np.arange(-(n // 2), 0)])
    return k * (1.0 / (n * d))


@implements(np.fft.rfftfreq)
def rfftfreq(n, d=1.0, device=None):
    """``numpy.fft.rfftfreq`` with a traced spacing ``d``."""
    if not traced(d):
        return np.fft.rfftfreq(n, d, device=device)
    refuse_traced(n, "the length of numpy.fft.rfftfreq")
    return np.arange(0, n // 2 + 1) * (1.0 / (n * d))
