"""tensorad.scipy's signal, fft, ndimage, integrate and interpolate modules against scipy (and JAX where JAX departs).

Each check traces many calls into one compiled function, since compiling
dominates the cost of these tests.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.fft as sfft
import scipy.integrate as sint
import scipy.interpolate as sinterp
import scipy.ndimage as sndi
import scipy.signal as ssig

import tensorad as ta
import tensorad.numpy as tnp
from tensorad.scipy import fft, integrate, interpolate, ndimage, signal
from tensorad.test_util import check_grads

MODES = ("full", "same", "valid")
RNG = np.random.default_rng(0)
TOLERANCE = {np.float32: dict(rtol=2e-5, atol=2e-5), np.float64: dict(rtol=1e-12, atol=1e-12)}


def _assert_all_close(got: dict, want: dict, dtype) -> None:
    """Each result close to scipy's, in ``dtype`` (its complex counterpart for complex results)."""
    for key in want:
        expected_dtype = np.result_type(dtype, np.complex64) if np.iscomplexobj(want[key]) else dtype
        assert got[key].dtype == expected_dtype, key
        np.testing.assert_allclose(got[key], want[key], err_msg=str(key), **TOLERANCE[dtype])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_convolutions_match_scipy(dtype):
    a, b = RNG.normal(size=7).astype(dtype), RNG.normal(size=3).astype(dtype)
    m, k = RNG.normal(size=(5, 4)).astype(dtype), RNG.normal(size=(2, 3)).astype(dtype)
    mc = (m + 1j * RNG.normal(size=m.shape)).astype(np.result_type(dtype, np.complex64))

    def everything(a, b, m, k, mc):
        out = {}
        for mode in MODES:
            out[f"convolve {mode}"] = signal.convolve(a, b, mode)
            out[f"correlate {mode}"] = signal.correlate(b, a, mode)
            out[f"fftconvolve {mode}"] = signal.fftconvolve(a, b, mode)
            out[f"convolve fft {mode}"] = signal.convolve(m, k, mode, method="fft")
            out[f"convolve2d {mode}"] = signal.convolve2d(mc, k, mode)
            out[f"correlate2d {mode}"] = signal.correlate2d(k, mc, mode)
            out[f"correlate2d larger first {mode}"] = signal.correlate2d(mc, k, mode)
        out["fftconvolve axes"] = signal.fftconvolve(m, m[:, :2], axes=1)
        return out

    want = {}
    for mode in MODES:
        want[f"convolve {mode}"] = ssig.convolve(a, b, mode)
        want[f"correlate {mode}"] = ssig.correlate(b, a, mode)
        want[f"fftconvolve {mode}"] = ssig.fftconvolve(a, b, mode)
        want[f"convolve fft {mode}"] = ssig.convolve(m, k, mode, method="fft")
        want[f"convolve2d {mode}"] = ssig.convolve2d(mc, k, mode)
        want[f"correlate2d {mode}"] = ssig.correlate2d(k, mc, mode)
        want[f"correlate2d larger first {mode}"] = ssig.correlate2d(mc, k, mode)
    want["fftconvolve axes"] = ssig.fftconvolve(m, m[:, :2], axes=1)
    _assert_all_close(ta.jit(everything)(a, b, m, k, mc), want, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_detrend_and_spectral_estimators_match_scipy(dtype):
    x, y = RNG.normal(size=(2, 64)).astype(dtype), RNG.normal(size=(2, 64)).astype(dtype)

    def everything(x, y):
        _, _, z = signal.stft(x, nperseg=16)
        return {"detrend": signal.detrend(x, bp=[20, 40]), "detrend axis 0": signal.detrend(x, axis=0),
                "constant": signal.detrend(x, type="constant"),
                "welch": signal.welch(x, nperseg=16)[1],
                "welch boxcar spectrum": signal.welch(x, window="boxcar", nperseg=10, noverlap=3, nfft=12,
                                                      scaling="spectrum", detrend="linear")[1],
                "csd median": signal.csd(x, y, nperseg=16, average="median")[1],
                "stft": z, "stft frequencies": signal.stft(x, nperseg=16)[0],
                "istft": signal.istft(z, nperseg=16)[1]}

    _, _, z = ssig.stft(x, nperseg=16)
    want = {"detrend": ssig.detrend(x, bp=[20, 40]), "detrend axis 0": ssig.detrend(x, axis=0),
            "constant": ssig.detrend(x, type="constant"),
            "welch": ssig.welch(x, nperseg=16)[1],
            "welch boxcar spectrum": ssig.welch(x, window="boxcar", nperseg=10, noverlap=3, nfft=12,
                                                scaling="spectrum", detrend="linear")[1],
            "csd median": ssig.csd(x, y, nperseg=16, average="median")[1],
            "stft": z, "stft frequencies": ssig.stft(x, nperseg=16)[0],
            "istft": ssig.istft(z, nperseg=16)[1]}
    _assert_all_close(ta.jit(everything)(x, y), want, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cosine_transforms_match_scipy(dtype):
    x = RNG.normal(size=(5, 6)).astype(dtype)

    def everything(x):
        out = {}
        for norm in (None, "ortho"):
            out[f"dct {norm}"] = fft.dct(x, norm=norm)
            out[f"dct n {norm}"] = fft.dct(x, n=4, axis=0, norm=norm)
            out[f"idct {norm}"] = fft.idct(x, n=8, norm=norm)
            out[f"dctn {norm}"] = fft.dctn(x, norm=norm)
            out[f"idctn {norm}"] = fft.idctn(x, s=(3, 7), norm=norm)
            out[f"complex {norm}"] = fft.dct(x + 2j * x, axis=0, norm=norm)
        return out

    want = {}
    for norm in (None, "ortho"):
        want[f"dct {norm}"] = sfft.dct(x, norm=norm)
        want[f"dct n {norm}"] = sfft.dct(x, n=4, axis=0, norm=norm)
        want[f"idct {norm}"] = sfft.idct(x, n=8, norm=norm)
        want[f"dctn {norm}"] = sfft.dctn(x, norm=norm)
        want[f"idctn {norm}"] = sfft.idctn(x, s=(3, 7), norm=norm)
        want[f"complex {norm}"] = sfft.dct(x + 2j * x, axis=0, norm=norm)
    _assert_all_close(ta.jit(everything)(x), want, dtype)


def test_map_coordinates_interpolator_and_trapezoid_match_scipy():
    image = RNG.normal(size=(4, 5))
    inside = [RNG.uniform(0, 3, size=9), RNG.uniform(0, 4, size=9)]
    outside = [RNG.uniform(-3, 7, size=9), RNG.uniform(-3, 8, size=9)]
    grid = (np.array([0.0, 1.0, 3.0]), np.array([0.0, 2.0, 3.0, 5.0]))
    values = RNG.normal(size=(3, 4))
    points = RNG.uniform(-0.5, 5.5, size=(7, 2))
    y = RNG.normal(size=(3, 5))

    def everything(image, values, points, y):
        out = {f"{mode} {order}": ndimage.map_coordinates(image, outside, order, mode=mode)
               for mode in ("nearest", "mirror", "reflect") for order in (0, 1)}
        out["constant inside"] = ndimage.map_coordinates(image, inside, 1, cval=2.0)
        for method in ("linear", "nearest"):
            out[method] = interpolate.RegularGridInterpolator(grid, values, method)(points)
        out["extrapolated"] = interpolate.RegularGridInterpolator(grid, values, fill_value=None)(points)
        out["trapezoid"] = integrate.trapezoid(y, x=np.arange(5.0) ** 2)
        return out

    want = {f"{mode} {order}": sndi.map_coordinates(image, outside, order=order, mode=mode, prefilter=False)
            for mode in ("nearest", "mirror", "reflect") for order in (0, 1)}
    want["constant inside"] = sndi.map_coordinates(image, inside, order=1, cval=2.0)
    for method in ("linear", "nearest"):
        want[method] = sinterp.RegularGridInterpolator(grid, values, method, bounds_error=False)(points)
    want["extrapolated"] = sinterp.RegularGridInterpolator(grid, values, bounds_error=False, fill_value=None)(points)
    want["trapezoid"] = sint.trapezoid(y, x=np.arange(5.0) ** 2)
    got = ta.jit(everything)(image, values, points, y)
    for key in want:
        np.testing.assert_allclose(got[key], want[key], err_msg=str(key), rtol=1e-12, atol=1e-12)


MAP_MODES = ("constant", "nearest", "wrap", "mirror", "reflect")


def _jax_map_coordinates(jax, image, ints, coordinates):
    """JAX's map_coordinates in every mode and order (scipy's "wrap" and edge "constant" differ from JAX's)."""
    out = {f"{mode} {order}": jax.scipy.ndimage.map_coordinates(image, coordinates, order, mode=mode, cval=1.5)
           for mode in MAP_MODES for order in (0, 1)}
    return out | {"ints": jax.scipy.ndimage.map_coordinates(ints, coordinates, 1)}


def test_map_coordinates_modes_match_jax_outside_the_image(jax_reference):
    image, ints = RNG.normal(size=(4, 5)), np.arange(20, dtype=np.int32).reshape(4, 5)
    coordinates = [RNG.uniform(-3, 7, size=9), RNG.uniform(-3, 8, size=9)]

    def everything(image, ints):
        return {f"{mode} {order}": ndimage.map_coordinates(image, coordinates, order, mode=mode, cval=1.5)
                for mode in MAP_MODES for order in (0, 1)} | {"ints": ndimage.map_coordinates(ints, coordinates, 1)}

    got = ta.jit(everything)(image, ints)
    want = jax_reference(_jax_map_coordinates, image, ints, coordinates)
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-12, atol=1e-12, err_msg=key)
    assert got["ints"].dtype == np.int32


def test_vmap_over_each_module():
    signals, kernels = RNG.normal(size=(3, 8)), RNG.normal(size=(3, 3))
    image = RNG.normal(size=(3, 4, 5))
    coordinates = RNG.uniform(0, 3, size=(3, 2, 6))
    grid = (np.array([0.0, 1.0, 3.0]),)

    def per_row(s, k, img, c):
        return {"convolve": signal.convolve(s, k), "welch": signal.welch(s, nperseg=4)[1], "dct": fft.dct(s),
                "map_coordinates": ndimage.map_coordinates(img, [c[0], c[1]], 1),
                "trapezoid": integrate.trapezoid(s),
                "interpolate": interpolate.RegularGridInterpolator(grid, k)(c[0][:, None])}

    got = ta.jit(ta.vmap(per_row))(signals, kernels, image, coordinates)
    for i in range(3):
        want = {"convolve": ssig.convolve(signals[i], kernels[i]), "welch": ssig.welch(signals[i], nperseg=4)[1],
                "dct": sfft.dct(signals[i]),
                "map_coordinates": sndi.map_coordinates(image[i], coordinates[i], order=1),
                "trapezoid": sint.trapezoid(signals[i]),
                "interpolate": sinterp.RegularGridInterpolator(grid, kernels[i], bounds_error=False)(
                    coordinates[i, 0][:, None])}
        for key in want:
            np.testing.assert_allclose(got[key][i], want[key], rtol=1e-12, atol=1e-12, err_msg=key)


def test_gradients_match_finite_differences():
    grid = (np.array([0.0, 1.0, 3.0]), np.array([0.0, 2.0, 3.0, 5.0]))
    coordinates = np.array([[0.3, 1.7, 2.2], [0.4, 2.6, 3.1]])

    def scalar(a, b, image, values, points):
        return (tnp.sum(signal.convolve(a, b) * np.arange(9.0)) + tnp.sum(signal.fftconvolve(a, b, "same") ** 2)
                + tnp.sum(signal.correlate2d(image, values[:2, :2]) ** 2)
                + tnp.sum(fft.dct(a, norm="ortho") * np.arange(6.0)) + tnp.sum(fft.idctn(image) ** 2)
                + tnp.sum(signal.welch(a, nperseg=4)[1]) + tnp.sum(signal.detrend(a) ** 2)
                + tnp.sum(ndimage.map_coordinates(image, [coordinates[0], coordinates[1]], 1) ** 2)
                + tnp.sum(interpolate.RegularGridInterpolator(grid, values)(points) ** 2)
                + integrate.trapezoid(a * a))

    args = (RNG.normal(size=6), RNG.normal(size=4), RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4)),
            RNG.uniform(0.1, 2.9, size=(5, 2)))
    check_grads(scalar, args, order=1, modes=("rev",), rtol=1e-6, atol=1e-8)


def test_errors_name_the_user_line():
    with pytest.raises(ValueError, match=r"test_scipy_signal.py:\d+: convolve: mode must be one of"):
        signal.convolve(np.ones(3), np.ones(2), "middle")
    with pytest.raises(ValueError, match=r"one input must be smaller than the other"):
        signal.convolve2d(np.ones((3, 1)), np.ones((1, 3)))
    with pytest.raises(NotImplementedError, match="only DCT type 2"):
        fft.dct(np.ones(3), type=3)
    with pytest.raises(NotImplementedError, match="order<=1"):
        ndimage.map_coordinates(np.ones(3), [np.ones(2)], 3)
    with pytest.raises(NotImplementedError, match="bounds_error"):
        interpolate.RegularGridInterpolator((np.arange(3.0),), np.ones(3), bounds_error=True)
