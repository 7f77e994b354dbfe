"""``tensorad.numpy.fft``: ducc0's transforms called from compiled code.

Eager calls are compared with ``numpy.fft``. Each transform's derivatives are
checked in every mode against float64 central differences
(:func:`transform_checks.check`) on a real function of real arrays: complex
inputs and results pass through (real, imag) pairs, so the checks cover the
complex conventions too.
"""

from __future__ import annotations

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp
from transform_checks import check

F = tnp.fft
rng = np.random.default_rng(0)
Z = rng.normal(size=(3, 4)) + 1j * rng.normal(size=(3, 4))
X = rng.normal(size=(3, 5))


def pairs(z):
    return np.stack([z.real, z.imag], axis=-1)


def complex_of(p):
    return p[..., 0] + 1j * p[..., 1]


EAGER = {  # name: (tensorad function, numpy function, input, keywords)
    "fft": (F.fft, np.fft.fft, Z, {}),
    "fft-n-axis-ortho": (F.fft, np.fft.fft, Z, dict(n=5, axis=0, norm="ortho")),
    "ifft": (F.ifft, np.fft.ifft, Z, dict(n=3)),
    "ifft-forward": (F.ifft, np.fft.ifft, Z, dict(norm="forward")),
    "rfft": (F.rfft, np.fft.rfft, X, {}),
    "rfft-n": (F.rfft, np.fft.rfft, X, dict(n=8, axis=0)),
    "irfft": (F.irfft, np.fft.irfft, Z, {}),
    "irfft-odd": (F.irfft, np.fft.irfft, Z, dict(n=7, norm="ortho")),
    "fftn": (F.fftn, np.fft.fftn, Z, {}),
    "fftn-s": (F.fftn, np.fft.fftn, Z, dict(s=(2, 6), axes=(0, 1))),
    "ifftn": (F.ifftn, np.fft.ifftn, Z, dict(axes=(0,))),
    "rfftn": (F.rfftn, np.fft.rfftn, X, {}),
    "irfftn": (F.irfftn, np.fft.irfftn, Z, dict(s=(3, 5), axes=(0, 1))),
    "fft2": (F.fft2, np.fft.fft2, Z, {}),
    "irfft2": (F.irfft2, np.fft.irfft2, Z, {}),
    "fftshift": (F.fftshift, np.fft.fftshift, Z, {}),
    "ifftshift": (F.ifftshift, np.fft.ifftshift, X, dict(axes=1)),
    "real-input-fft": (F.fft, np.fft.fft, X, {}),
}


@pytest.mark.parametrize("name", EAGER)
def test_eager_matches_numpy(name):
    ours, theirs, x, keywords = EAGER[name]
    got, want = ours(x, **keywords), theirs(x, **keywords)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_float32_and_frequencies():
    got = F.rfft(X.astype(np.float32))
    assert got.dtype == np.complex64
    np.testing.assert_allclose(got, np.fft.rfft(X), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(F.fftfreq(6, 0.25), np.fft.fftfreq(6, 0.25))
    np.testing.assert_allclose(F.rfftfreq(7), np.fft.rfftfreq(7))
    scaled = ta.jit(lambda d: F.fftfreq(4, d))(np.array(2.0))  # a traced sample spacing
    np.testing.assert_allclose(scaled, np.fft.fftfreq(4, 2.0))


P = pairs(rng.normal(size=(3, 5)) + 1j * rng.normal(size=(3, 5)))
H = pairs(rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3)))


def traced_pairs(z):
    return tnp.stack([tnp.real(z), tnp.imag(z)], axis=-1)


def traced_complex(p):
    return p[..., 0] + 1j * p[..., 1]


def on_pairs(transform):
    """A real function of (real, imag) pairs: ``transform`` of complex input with a complex result."""
    return lambda p: traced_pairs(transform(traced_complex(p)))


CASES = {  # name: (real function of a real array, argument, reference on numpy arrays)
    "fft": (on_pairs(F.fft), P, lambda p: pairs(np.fft.fft(complex_of(p)))),
    "ifft-n-ortho": (on_pairs(lambda z: F.ifft(z, n=4, norm="ortho")), P,
                     lambda p: pairs(np.fft.ifft(complex_of(p), n=4, norm="ortho"))),
    "fftn": (on_pairs(F.fftn), P, lambda p: pairs(np.fft.fftn(complex_of(p)))),
    "ifftn-s-forward": (on_pairs(lambda z: F.ifftn(z, s=(2, 6), axes=(0, 1), norm="forward")), P,
                        lambda p: pairs(np.fft.ifftn(complex_of(p), s=(2, 6), axes=(0, 1), norm="forward"))),
    "fft-of-real": (lambda x: traced_pairs(F.fft(x, axis=0)), X, lambda x: pairs(np.fft.fft(x, axis=0))),
    "rfft": (lambda x: traced_pairs(F.rfft(x)), X, lambda x: pairs(np.fft.rfft(x))),
    "rfft-even": (lambda x: traced_pairs(F.rfft(x, n=6)), X, lambda x: pairs(np.fft.rfft(x, n=6))),
    "rfftn": (lambda x: traced_pairs(F.rfftn(x)), X, lambda x: pairs(np.fft.rfftn(x))),
    "irfft-even": (lambda p: F.irfft(traced_complex(p)), H, lambda p: np.fft.irfft(complex_of(p))),
    "irfft-odd": (lambda p: F.irfft(traced_complex(p), n=5), H, lambda p: np.fft.irfft(complex_of(p), n=5)),
    "irfftn": (lambda p: F.irfftn(traced_complex(p), s=(3, 5), axes=(0, 1)), H,
               lambda p: np.fft.irfftn(complex_of(p), s=(3, 5), axes=(0, 1))),
    "fftshift": (on_pairs(lambda z: F.fftshift(z) * 2.0), P, lambda p: pairs(np.fft.fftshift(complex_of(p)) * 2.0)),
    "ifftshift": (lambda x: F.ifftshift(x, axes=1), X, lambda x: np.fft.ifftshift(x, axes=1)),
    "power-spectrum": (lambda x: tnp.abs(F.rfft(x)) ** 2, X, lambda x: np.abs(np.fft.rfft(x)) ** 2),
}
JACOBIANS = {"fft", "rfft", "irfft-odd", "irfftn"}


@pytest.mark.parametrize("name", CASES)
def test_traced_values_and_derivatives(name):
    f, x, reference = CASES[name]
    check(f, (x,), reference, jacobians=name in JACOBIANS)


def test_traced_complex_results_and_bad_arguments():
    spectrum = ta.jit(lambda x: F.fft(x) * 2.0)(X.astype(np.float32))
    assert spectrum.dtype == np.complex64
    np.testing.assert_allclose(spectrum, np.fft.fft(X) * 2.0, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="invalid norm"):
        F.fft(Z, norm="sideways")
    with pytest.raises(TypeError, match="real input"):
        F.rfft(Z)
    with pytest.raises(ValueError, match="out of bounds"):
        F.fft(X, axis=2)


def test_second_order_derivatives():
    from tensorad.test_util import check_grads

    check_grads(lambda x: tnp.abs(F.rfft(x)) ** 2, (X[0],), order=2, modes=("rev",))
