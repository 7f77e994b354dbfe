"""The sine and cosine integrals, the Fresnel integrals, Owen's T function and the Faddeeva function of
:mod:`tensorad.scipy.special`.

Ports of the algorithms scipy uses (Cephes' ``sici`` and ``fresnl`` rational
and asymptotic approximations, Patefield and Tandy's six methods for Owen's
T) and JAX's (Weideman's rational approximation of the Faddeeva function),
written as elementwise compositions: every region's formula is evaluated
and the right one selected, so they run under ``jit`` and ``vmap`` alike.
Their derivatives are the closed forms (``Si' = sin(x)/x``, ``S' = sin(π x²/2)``
and so on), as in JAX, not those of the approximations. Narrower floats are
evaluated in float64 and rounded, as scipy's float32 loops are.

This module imports :mod:`tensorad.scipy.special`, which exports its names
on first use.

Examples
--------
>>> import numpy as np, tensorad as ta
>>> si, ci = ta.jit(sici)(np.array([1.0, 10.0]))
>>> si, ci
(array([0.94608307, 1.65834759]), array([ 0.33740392, -0.04545643]))
"""

from __future__ import annotations

import math

import numpy as np

from .. import autodiff, lax
from .. import numpy as tnp
from ..numpy.bessel import power_series
from ..tracing import emits_ops
from .special import dawsn, erf, erfc, evaluate_in_float64, ndtr

__all__ = ["fresnel", "owens_t", "sici", "wofz"]

_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)

# ----------------------------------------------------------------------------
# Sine and cosine integrals (Cephes' sici.c)
# ----------------------------------------------------------------------------

# 0 < x <= 4: Si = x SN(x²)/SD(x²), Ci = γ + log x + x² CN(x²)/CD(x²).
_SICI_SN = (-8.39167827910303881427e-11, 4.62591714427012837309e-8, -9.75759303843632795789e-6,
            9.76945438170435310816e-4, -4.13470316229406538752e-2, 1.00000000000000000302e0)
_SICI_SD = (2.03269266195951942049e-12, 1.27997891179943299903e-9, 4.41827842801218905784e-7,
            9.96412122043875552487e-5, 1.42085239326149893930e-2, 9.99999999999999996984e-1)
_SICI_CN = (2.02524002389102268789e-11, -1.35249504915790756375e-8, 3.59325051419993077021e-6,
            -4.74007206873407909465e-4, 2.89159652607555242092e-2, -1.00000000000000000080e0)
_SICI_CD = (4.07746040061880559506e-12, 3.06780997581887812692e-9, 1.23210355685883423679e-6,
            3.17442024775032769882e-4, 5.10028056236446052392e-2, 4.00000000000000000080e0)
# x > 4: the auxiliary functions f = FN(z) / (x FD(z)) and g = z GN(z) / GD(z) in z = 1/x², on (4, 8) and [8, inf).
_SICI_FN4 = (4.23612862892216586994e0, 5.45937717161812843388e0, 1.62083287701538329132e0, 1.67006611831323023771e-1,
             6.81020132472518137426e-3, 1.08936580650328664411e-4, 5.48900223421373614008e-7)
_SICI_FD4 = (1.0, 8.16496634205391016773e0, 7.30828822505564552187e0, 1.86792257950184183883e0,
             1.78792052963149907262e-1, 7.01710668322789753610e-3, 1.10034357153915731354e-4,
             5.48900252756255700982e-7)
_SICI_GN4 = (8.71001698973114191777e-2, 6.11379109952219284151e-1, 3.97180296392337498885e-1,
             7.48527737628469092119e-2, 5.38868681462177273157e-3, 1.61999794598934024525e-4,
             1.97963874140963632189e-6, 7.82579040744090311069e-9)
_SICI_GD4 = (1.0, 1.64402202413355338886e0, 6.66296701268987968381e-1, 9.88771761277688796203e-2,
             6.22396345441768420760e-3, 1.73221081474177119497e-4, 2.02659182086343991969e-6,
             7.82579218933534490868e-9)
_SICI_FN8 = (4.55880873470465315206e-1, 7.13715274100146711374e-1, 1.60300158222319456320e-1,
             1.16064229408124407915e-2, 3.49556442447859055605e-4, 4.86215430826454749482e-6,
             3.20092790091004902806e-8, 9.41779576128512936592e-11, 9.70507110881952024631e-14)
_SICI_FD8 = (1.0, 9.17463611873684053703e-1, 1.78685545332074536321e-1, 1.22253594771971293032e-2,
             3.58696481881851580297e-4, 4.92435064317881464393e-6, 3.21956939101046018377e-8,
             9.43720590350276732376e-11, 9.70507110881952025725e-14)
_SICI_GN8 = (6.97359953443276214934e-1, 3.30410979305632063225e-1, 3.84878767649974295920e-2,
             1.71718239052347903558e-3, 3.48941165502279436777e-5, 3.47131167084116673800e-7,
             1.70404452782044526189e-9, 3.85945925430276600453e-12, 3.14040098946363334640e-15)
_SICI_GD8 = (1.0, 1.68548898811011640017e0, 4.87852258695304967486e-1, 4.67913194259625806320e-2,
             1.90284426674399523638e-3, 3.68475504442561108162e-5, 3.57043223443740838771e-7,
             1.72693748966316146736e-9, 3.87830166023954706752e-12, 3.14040098946363335242e-15)


def _sici(x):
    """``(Si(x), Ci(x))``, each region's formula evaluated and the right one selected."""
    ax = tnp.abs(x)
    # Each region at |x| clamped into it, so that the others stay finite.
    near = tnp.minimum(ax, 4.0)
    z = near * near
    si_near = near * power_series(z, _SICI_SN) / power_series(z, _SICI_SD)
    ci_near = np.euler_gamma + tnp.log(near) + z * power_series(z, _SICI_CN) / power_series(z, _SICI_CD)
    # Above 4 (1e9 and beyond too, where Cephes' f -> 1/x and g -> 1/x² are its separate formula; x² may
    # overflow to z = 0 there, as it does in Cephes).
    far = tnp.maximum(ax, 4.0)
    z = 1.0 / (far * far)
    middle = tnp.less(far, 8.0)
    f = tnp.where(middle, power_series(z, _SICI_FN4) / power_series(z, _SICI_FD4),
                  power_series(z, _SICI_FN8) / power_series(z, _SICI_FD8)) / far
    g = z * tnp.where(middle, power_series(z, _SICI_GN4) / power_series(z, _SICI_GD4),
                      power_series(z, _SICI_GN8) / power_series(z, _SICI_GD8))
    sin, cos = tnp.sin(far), tnp.cos(far)
    si_far = tnp.where(tnp.equal(ax, np.inf), math.pi / 2, math.pi / 2 - f * cos - g * sin)
    ci_far = tnp.where(tnp.equal(ax, np.inf), 0.0, f * sin - g * cos)
    is_near = tnp.less_equal(ax, 4.0)
    si = tnp.where(is_near, si_near, si_far)
    # For x < 0, Ci's real part: Ci(|x|), as scipy's; NaN at -inf, as scipy's.
    ci = tnp.where(is_near, ci_near, tnp.where(tnp.equal(x, -np.inf), np.nan, ci_far))
    return tnp.where(tnp.less(x, 0), -si, si), tnp.where(tnp.equal(x, 0), -np.inf, ci)


# Si and Ci are differentiated apart, so that the gradient of Si alone does not meet Ci's infinite slope at 0
# (reverse mode transposes a rule: a zero cotangent times Ci' = inf would make Si's gradient NaN there).
_si = autodiff.custom_jvp(lambda x: _sici(x)[0])
_ci = autodiff.custom_jvp(lambda x: _sici(x)[1])
# Si' = sin(x)/x (1 at 0), Ci' = cos(x)/x.
_si.defjvps(lambda dx, out, x: tnp.where(tnp.equal(x, 0), 1.0, tnp.sin(x) / tnp.where(tnp.equal(x, 0), 1.0, x)) * dx)
_ci.defjvps(lambda dx, out, x: tnp.cos(x) / x * dx)


@emits_ops
def sici(x):
    """The sine and cosine integrals ``Si(x) = ∫_0^x sin(t)/t dt``, ``Ci(x) = γ + log x + ∫_0^x (cos t - 1)/t dt``.

    Cephes' rational approximations, as scipy: for ``|x| <= 4`` in ``x²``,
    above through the auxiliary functions ``f`` and ``g`` (``Si = π/2 - f cos x
    - g sin x``, ``Ci = f sin x - g cos x``) in ``1/x²``. ``Si`` is odd; for
    ``x < 0``, ``Ci`` is the real part, ``Ci(|x|)``, as in scipy. ``Ci(0) = -inf``,
    ``Si(±inf) = ±π/2``, ``Ci(inf) = 0`` and ``Ci(-inf)`` NaN. The derivatives
    are ``sin(x)/x`` and ``cos(x)/x``.

    Parameters
    ----------
    x : array_like
        Real arguments.

    Returns
    -------
    si, ci : Tracer
        ``Si(x)`` and ``Ci(x)``.

    Examples
    --------
    >>> import numpy as np
    >>> sici(np.array([0.5, -2.0]))
    (array([ 0.49310742, -1.60541298]), array([-0.17778408,  0.42298083]))
    """
    # In float64, as scipy: next to the zeros of Ci (0.62, 3.38, 6.43, ...) its terms cancel, and float32
    # arithmetic would lose all of its digits there.
    return evaluate_in_float64(lambda x: (_si(x), _ci(x)), x)


# ----------------------------------------------------------------------------
# Fresnel integrals (Cephes' fresnl.c)
# ----------------------------------------------------------------------------

# x² < 2.5625 (x < 1.6008): S = x³ SN(x⁴)/SD(x⁴), C = x CN(x⁴)/CD(x⁴).
_FRESNEL_BOUND = math.sqrt(2.5625)
_FRESNEL_SN = (-2.99181919401019853726e3, 7.08840045257738576863e5, -6.29741486205862506537e7,
               2.54890880573376359104e9, -4.42979518059697779103e10, 3.18016297876567817986e11)
_FRESNEL_SD = (1.0, 2.81376268889994315696e2, 4.55847810806532581675e4, 5.17343888770096400730e6,
               4.19320245898111231129e8, 2.24411795645340920940e10, 6.07366389490084639049e11)
_FRESNEL_CN = (-4.98843114573573548651e-8, 9.50428062829859605134e-6, -6.45191435683965050962e-4,
               1.88843319396703850064e-2, -2.05525900955013891793e-1, 9.99999999999999998822e-1)
_FRESNEL_CD = (3.99982968972495980367e-12, 9.15439215774657478799e-10, 1.25001862479598821474e-7,
               1.22262789024179030997e-5, 8.68029542941784300606e-4, 4.12142090722199792936e-2,
               1.00000000000000000118e0)
# Above: the auxiliary functions f = 1 - u FN(u)/FD(u) and g = t GN(u)/GD(u), t = 1/(π x²), u = t².
_FRESNEL_FN = (4.21543555043677546506e-1, 1.43407919780758885261e-1, 1.15220955073585758835e-2,
               3.45017939782574027900e-4, 4.63613749287867322088e-6, 3.05568983790257605827e-8,
               1.02304514164907233465e-10, 1.72010743268161828879e-13, 1.34283276233062758925e-16,
               3.76329711269987889006e-20)
_FRESNEL_FD = (1.0, 7.51586398353378947175e-1, 1.16888925859191382142e-1, 6.44051526508858611005e-3,
               1.55934409164153020873e-4, 1.84627567348930545870e-6, 1.12699224763999035261e-8,
               3.60140029589371370404e-11, 5.88754533621578410010e-14, 4.52001434074129701496e-17,
               1.25443237090011264384e-20)
_FRESNEL_GN = (5.04442073643383265887e-1, 1.97102833525523411709e-1, 1.87648584092575249293e-2,
               6.84079380915393090172e-4, 1.15138826111884280931e-5, 9.82852443688422223854e-8,
               4.45344415861750144738e-10, 1.08268041139020870318e-12, 1.37555460633261799868e-15,
               8.36354435630677421531e-19, 1.86958710162783235106e-22)
_FRESNEL_GD = (1.0, 1.47495759925128324529e0, 3.37748989120019970451e-1, 2.53603741420338795122e-2,
               8.14679107184306179049e-4, 1.27545075667729118702e-5, 1.04314589657571990585e-7,
               4.60680728146520428211e-10, 1.10273215066240270757e-12, 1.38796531259578871258e-15,
               8.39158816283118707363e-19, 1.86958710162783236342e-22)


def _sincos_half_pi_square(x):
    """``sin(π x²/2)`` and ``cos(π x²/2)`` for finite ``x >= 0``, with ``x²/2`` reduced modulo 2 exactly.

    With ``n`` the integer part of ``x`` and ``f`` the rest, ``x²/2 = n²/2 + n f + f²/2``: ``n²/2`` is 0 or
    1/2 modulo 2 as ``n`` is even or odd, and ``n f`` is exact (its bits are those of ``x``), so only
    ``f²/2`` and the sum round. Reducing ``x * x`` instead (scipy's ``sinpi(x * x / 2)``) loses
    ``eps x²`` of the angle: 1e-7 at ``x = 36974``.
    """
    n = tnp.floor(x)
    f = x - n
    turns = tnp.fmod(tnp.fmod(n * f, 2.0) + 0.5 * tnp.fmod(n, 2.0) + 0.5 * f * f, 2.0)
    return tnp.sin(math.pi * turns), tnp.cos(math.pi * turns)


@autodiff.custom_jvp
def _fresnel(x):
    ax = tnp.abs(x)
    infinite = tnp.equal(ax, np.inf)
    # Cephes' two regions, x² < 2.5625 and beyond; each at |x| clamped into it, so that the other stays finite.
    near = tnp.minimum(ax, _FRESNEL_BOUND)
    t = near ** 4
    s_near = near ** 3 * power_series(t, _FRESNEL_SN) / power_series(t, _FRESNEL_SD)
    c_near = near * power_series(t, _FRESNEL_CN) / power_series(t, _FRESNEL_CD)
    # Beyond, up to inf: Cephes' separate formula above 36974 is this one at f = 1, g = 0; π x² may overflow
    # there, to t = 0, which these formulas take.
    far = tnp.where(infinite, _FRESNEL_BOUND, tnp.maximum(ax, _FRESNEL_BOUND))
    t = 1.0 / (math.pi * far * far)
    u = t * t
    f = 1.0 - u * power_series(u, _FRESNEL_FN) / power_series(u, _FRESNEL_FD)
    g = t * power_series(u, _FRESNEL_GN) / power_series(u, _FRESNEL_GD)
    sin, cos = _sincos_half_pi_square(far)
    c_far = 0.5 + (f * sin - g * cos) / (math.pi * far)
    s_far = 0.5 - (f * cos + g * sin) / (math.pi * far)
    is_near = tnp.less(ax * ax, _FRESNEL_BOUND ** 2)
    s = tnp.where(is_near, s_near, tnp.where(infinite, 0.5, s_far))
    c = tnp.where(is_near, c_near, tnp.where(infinite, 0.5, c_far))
    negative = tnp.less(x, 0)
    return tnp.where(negative, -s, s), tnp.where(negative, -c, c)


@_fresnel.defjvp
def _fresnel_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    sin, cos = _sincos_half_pi_square(tnp.abs(x))
    return _fresnel(x), (sin * dx, cos * dx)


@emits_ops
def fresnel(x):
    """The Fresnel integrals ``S(x) = ∫_0^x sin(π t²/2) dt`` and ``C(x) = ∫_0^x cos(π t²/2) dt``.

    Cephes' rational approximations, as scipy: in ``x⁴`` for ``x² < 2.5625``,
    above through the auxiliary functions ``f`` and ``g`` in ``1/(π x²)``
    (``C = 1/2 + (f sin - g cos)/(π x)``, ``S = 1/2 - (f cos + g sin)/(π x)``
    of ``π x²/2``). That angle is reduced exactly (see Notes). Both are odd,
    ``±1/2`` at ``±inf``; the derivatives are ``sin(π x²/2)`` and ``cos(π x²/2)``.

    Parameters
    ----------
    x : array_like
        Real arguments.

    Returns
    -------
    s, c : Tracer
        ``S(x)`` and ``C(x)``.

    Notes
    -----
    scipy reduces ``x * x``, which is rounded: its values lose ``eps x`` relative
    for large ``x`` (1e-12 at ``x = 1e4``), and are NaN where ``x * x`` overflows
    (``x > 1.3e154``), where these are ``±1/2``.

    Examples
    --------
    >>> import numpy as np
    >>> fresnel(np.array([1.0, -3.0]))
    (array([ 0.43825915, -0.496313  ]), array([ 0.7798934 , -0.60572079]))
    """
    return evaluate_in_float64(_fresnel, x)


# ----------------------------------------------------------------------------
# Owen's T function (Patefield and Tandy, as scipy)
# ----------------------------------------------------------------------------

# The method and order for each (a, h) cell: h split at _OWENS_T_H_BOUNDS, a at _OWENS_T_A_BOUNDS; cell
# (i, j) (a's interval i, h's j) selects entry _OWENS_T_SELECT[15 i + j] of the methods and orders.
_OWENS_T_H_BOUNDS = (0.02, 0.06, 0.09, 0.125, 0.26, 0.4, 0.6, 1.6, 1.7, 2.33, 2.4, 3.36, 3.4, 4.8)
_OWENS_T_A_BOUNDS = (0.025, 0.09, 0.15, 0.36, 0.5, 0.9, 0.99999)
_OWENS_T_SELECT = (0, 0, 1, 12, 12, 12, 12, 12, 12, 12, 12, 15, 15, 15, 8, 0, 1, 1, 2, 2, 4, 4, 13, 13, 14, 14, 15, 15,
                   15, 8, 1, 1, 2, 2, 2, 4, 4, 14, 14, 14, 14, 15, 15, 15, 9, 1, 1, 2, 4, 4, 4, 4, 6, 6, 15, 15, 15,
                   15, 15, 9, 1, 2, 2, 4, 4, 5, 5, 7, 7, 16, 16, 16, 11, 11, 10, 1, 2, 4, 4, 4, 5, 5, 7, 7, 16, 16, 16,
                   11, 11, 11, 1, 2, 3, 3, 5, 5, 7, 7, 16, 16, 16, 16, 16, 11, 11, 1, 2, 3, 3, 5, 5, 17, 17, 17, 17, 16,
                   16, 16, 11, 11)
_OWENS_T_ORDER = (2, 3, 4, 5, 7, 10, 12, 18, 10, 20, 30, 0, 4, 7, 8, 20, 0, 0)
_OWENS_T_METHOD = (1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 3, 4, 4, 4, 4, 5, 6)
# Method 3's Chebyshev-derived coefficients, and method 5's 13-point quadrature (nodes in a², weights).
_OWENS_T_C = (1.0, -1.0, 1.0, -0.9999999999999998, 0.9999999999999839, -0.9999999999993063, 0.9999999999797337,
              -0.9999999995749584, 0.9999999933226235, -0.9999999188923242, 0.9999992195143483, -0.9999939351372067,
              0.9999613559769055, -0.9997955636651394, 0.9990927896296171, -0.9965938374119182, 0.9891001713838613,
              -0.9700785580406933, 0.9291143868326319, -0.8542058695956156, 0.737965260330301, -0.585234698828374,
              0.4159977761456763, -0.25882108752419436, 0.13755358251638927, -0.060795276632595575,
              0.021633768329987153, -0.005934056934551867, 0.0011743414818332946, -0.0001489155613350369,
              9.072354320794358e-06)
_OWENS_T_NODES = (0.35082039676451715489e-02, 0.31279042338030753740e-01, 0.85266826283219451090e-01,
                  0.16245071730812277011e+00, 0.25851196049125434828e+00, 0.36807553840697533536e+00,
                  0.48501092905604697475e+00, 0.60277514152618576821e+00, 0.71477884217753226516e+00,
                  0.81475510988760098605e+00, 0.89711029755948965867e+00, 0.95723808085944261843e+00,
                  0.99178832974629703586e+00)
_OWENS_T_WEIGHTS = (0.18831438115323502887e-01, 0.18567086243977649478e-01, 0.18042093461223385584e-01,
                    0.17263829606398753364e-01, 0.16243219975989856730e-01, 0.14994592034116704829e-01,
                    0.13535474469662088392e-01, 0.11886351605820165233e-01, 0.10070377242777431897e-01,
                    0.81130545742299586629e-02, 0.60419009528470238773e-02, 0.38862217010742057883e-02,
                    0.16793031084546090448e-02)
# Per cell, the method and the order it runs to.
_OWENS_T_CELL_METHOD = np.array([_OWENS_T_METHOD[i] for i in _OWENS_T_SELECT], np.int32)
_OWENS_T_CELL_ORDER = np.array([_OWENS_T_ORDER[i] for i in _OWENS_T_SELECT], np.int32)


def _owens_t_series(h, a, order):
    """Methods 1 (Owen's series in ``a``), 2 and 4 (series in ``1/h²`` and in ``h²``), each to its cell's ``order``.

    The loops run to the largest order any cell uses; a term past an element's own order adds 0.
    """
    hs = -0.5 * h * h
    # Method 1, Owen's series: atan(a)/2π + sum_j d_j a^(2j-1) / (2π (2j-1)), d_1 = e^hs - 1,
    # d_(j+1) = hs^j e^hs / j! - d_j.
    t1 = tnp.arctan(a) / (2 * math.pi)
    power, partial, gj = a / (2 * math.pi), tnp.expm1(hs), hs * tnp.exp(hs)
    for j in range(1, max(_OWENS_T_ORDER[:8]) + 1):
        t1 = t1 + tnp.where(tnp.less_equal(j, order), partial * power / (2 * j - 1), 0.0)
        power, partial, gj = power * a * a, gj - partial, gj * hs / (j + 1)
    # Method 2: exp(-h²/2)/sqrt(2π) sum_k z_k, z_0 = (ndtr(ah) - 1/2)/h, z_k = (v_(k-1) - (2k-1) z_(k-1))/h²,
    # v_k = (-a²)^k a φ(ah).
    ah = a * h
    inverse_square = 1.0 / (h * h)
    z, v = (ndtr(ah) - 0.5) / h, a * tnp.exp(-0.5 * ah * ah) * _INV_SQRT_2PI
    t2 = z
    for k in range(1, max(_OWENS_T_ORDER[8:11]) + 1):
        z, v = inverse_square * (v - (2 * k - 1) * z), v * -(a * a)
        t2 = t2 + tnp.where(tnp.less_equal(k, order), z, 0.0)
    t2 = t2 * tnp.exp(hs) * _INV_SQRT_2PI
    # Method 4: a exp(-h²(1+a²)/2)/2π sum_k (-a²)^k y_k, y_0 = 1, y_k = (1 - h² y_(k-1))/(2k+1).
    term, y = a * tnp.exp(hs * (1.0 + a * a)) / (2 * math.pi), tnp.ones_like(h)
    t4 = term
    for k in range(1, max(_OWENS_T_ORDER[12:16]) + 1):
        term, y = term * -(a * a), (1.0 - h * h * y) / (2 * k + 1)
        t4 = t4 + tnp.where(tnp.less_equal(k, order), term * y, 0.0)
    return t1, t2, t4


def _owens_t_fixed(h, a):
    """Methods 3 (31 terms of a series with Chebyshev-fitted coefficients), 5 (quadrature) and 6 (``a`` near 1)."""
    ah = a * h
    inverse_square = 1.0 / (h * h)
    z, v = 0.5 * erf(ah / math.sqrt(2.0)) / h, a * tnp.exp(-0.5 * ah * ah) * _INV_SQRT_2PI
    t3 = tnp.zeros_like(h)
    for i, c in enumerate(_OWENS_T_C):
        t3 = t3 + c * z
        z, v = inverse_square * ((2 * i + 1) * z - v), v * a * a
    t3 = t3 * tnp.exp(-0.5 * h * h) * _INV_SQRT_2PI
    t5 = tnp.zeros_like(h)
    for node, weight in zip(_OWENS_T_NODES, _OWENS_T_WEIGHTS):
        r = 1.0 + a * a * node
        t5 = t5 + weight * tnp.exp(-0.5 * h * h * r) / r
    t5 = a * t5
    tail = 0.5 * erfc(h / math.sqrt(2.0))
    y = 1.0 - a
    r = tnp.arctan2(y, 1.0 + a)
    safe_r = tnp.where(tnp.equal(r, 0), 1.0, r)
    t6 = 0.5 * tail * (1.0 - tail) - tnp.where(tnp.equal(r, 0), 0.0,
                                               r * tnp.exp(-y * h * h / (2.0 * safe_r)) / (2 * math.pi))
    return t3, t5, t6


def _owens_t_reduced(h, a):
    """``T(h, a)`` for ``h >= 0`` and ``0 <= a <= 1``: the method of ``(h, a)``'s cell, with the exact cases."""
    h_cell = sum(tnp.astype(tnp.greater(h, bound), np.int32) for bound in _OWENS_T_H_BOUNDS)
    a_cell = sum(tnp.astype(tnp.greater(a, bound), np.int32) for bound in _OWENS_T_A_BOUNDS)
    cell = a_cell * (len(_OWENS_T_H_BOUNDS) + 1) + h_cell
    method, order = tnp.take(_OWENS_T_CELL_METHOD, cell), tnp.take(_OWENS_T_CELL_ORDER, cell)
    # The series divide by h and exponentiate h²: at h = 0 (an exact case below) they read h = 1.
    safe_h = tnp.where(tnp.equal(h, 0), 1.0, h)
    t1, t2, t4 = _owens_t_series(safe_h, a, order)
    t3, t5, t6 = _owens_t_fixed(safe_h, a)
    value = tnp.select([tnp.equal(method, m) for m in range(1, 6)], [t1, t2, t3, t4, t5], t6)
    tail = 0.5 * erfc(h / math.sqrt(2.0))
    value = tnp.where(tnp.equal(a, 1), 0.5 * tail * (1.0 - tail), value)
    value = tnp.where(tnp.equal(a, 0), 0.0, value)
    return tnp.where(tnp.equal(h, 0), tnp.arctan(a) / (2 * math.pi), value)


@autodiff.custom_jvp
def _owens_t(h, a):
    h, abs_a = tnp.abs(h), tnp.abs(a)
    small = tnp.less_equal(abs_a, 1)
    # For |a| > 1, Owen's identity T(h, a) = (Φ(h) + Φ(ah))/2 - Φ(h) Φ(ah) - T(ah, 1/a) (h >= 0): the
    # reduced function at (|a| h, 1/|a|), the normal CDFs from erf where ah <= 0.67 and erfc beyond, as scipy.
    finite_a = tnp.where(tnp.less(abs_a, np.inf), abs_a, 1.0)
    ah = finite_a * h
    # An overflowing ah is a huge h for the reduced function (where T is 0), not inf (where its series are NaN).
    reduced = _owens_t_reduced(tnp.where(small, h, tnp.minimum(ah, float(np.finfo(h.dtype).max))),
                               tnp.where(small, abs_a, 1.0 / finite_a))
    near = 0.25 - 0.25 * erf(h / math.sqrt(2.0)) * erf(ah / math.sqrt(2.0))
    tail_h, tail_ah = 0.5 * erfc(h / math.sqrt(2.0)), 0.5 * erfc(ah / math.sqrt(2.0))
    far = 0.5 * (tail_h + tail_ah) - tail_h * tail_ah
    value = tnp.where(small, reduced, tnp.where(tnp.less_equal(ah, 0.67), near, far) - reduced)
    value = tnp.where(tnp.equal(abs_a, np.inf), 0.5 * tail_h, tnp.where(tnp.equal(h, np.inf), 0.0, value))
    value = tnp.where(tnp.less(a, 0), -value, value)
    return tnp.where(tnp.logical_or(tnp.isnan(h), tnp.isnan(a)), np.nan, value)


@_owens_t.defjvp
def _owens_t_jvp(primals, tangents):
    (h, a), (dh, da) = primals, tangents
    # dT/dh = -φ(h) erf(ah/√2)/2, dT/da = exp(-(1+a²)h²/2) / (2π(1+a²)).
    by_h = -0.5 * tnp.exp(-0.5 * h * h) * _INV_SQRT_2PI * erf(a * h / math.sqrt(2.0))
    by_a = tnp.exp(-0.5 * (1.0 + a * a) * h * h) / (2 * math.pi * (1.0 + a * a))
    return _owens_t(h, a), by_h * dh + by_a * da


@emits_ops
def owens_t(h, a):
    """Owen's T function ``T(h, a) = 1/(2π) ∫_0^a exp(-h²(1+x²)/2) / (1+x²) dx``.

    Patefield and Tandy's algorithm, as scipy: ``T`` is even in ``h`` and odd in
    ``a``; ``|a| > 1`` is reduced to ``1/|a|`` by Owen's identity; then, by the
    cell of ``(h, a)`` in their table, one of six methods (three series to the
    cell's order, a 31-term series, a 13-point quadrature, a formula for ``a``
    near 1) gives about 16 digits. Derivatives: ``-φ(h) erf(ah/√2)/2`` in ``h``
    and ``exp(-(1+a²)h²/2) / (2π(1+a²))`` in ``a``.

    Parameters
    ----------
    h, a : array_like
        Real arguments, broadcast together.

    Returns
    -------
    Tracer
        ``T(h, a)``.

    Examples
    --------
    >>> import numpy as np
    >>> owens_t(np.array([0.0, 1.0, 2.0]), np.array([1.0, 0.5, 3.0]))
    array([0.125     , 0.04306469, 0.01137507])
    """
    return evaluate_in_float64(_owens_t, h, a)


# ----------------------------------------------------------------------------
# The Faddeeva function (Weideman's rational approximation, as JAX's)
# ----------------------------------------------------------------------------

def _weideman_coefficients(n: int) -> tuple:
    """``L`` and the coefficients (highest degree first) of Weideman's (1994) approximation with ``n`` terms.

    ``w(z) = 2 p(Z) / (L - iz)² + 1 / (sqrt(π) (L - iz))``, ``Z = (L + iz) / (L - iz)``, for ``Im z >= 0``;
    ``p``'s coefficients are the Fourier coefficients of ``exp(-t²) (L² + t²)`` at ``t = L tan(θ/2)``, by
    an FFT of ``4n`` points (his ``cef``).
    """
    scale = math.sqrt(n / math.sqrt(2.0))
    k = np.arange(-2 * n + 1, 2 * n)
    t = scale * np.tan(k * np.pi / (4 * n))
    samples = np.concatenate([[0.0], np.exp(-t * t) * (scale * scale + t * t)])
    fourier = np.real(np.fft.fft(np.fft.fftshift(samples))) / (4 * n)
    return scale, tuple(float(c) for c in fourier[n:0:-1])


# 40 terms: 6e-15 of |w| at most (JAX's 32: 3e-13); more do not improve on the rounding.
_WOFZ_L, _WOFZ_P = _weideman_coefficients(40)


@autodiff.custom_jvp
def _wofz(z):
    upper = tnp.greater_equal(tnp.imag(z), 0)
    # Below the real axis, w(z) = 2 exp(-z²) - w(-z).
    mirrored = tnp.where(upper, z, -z)
    iz = lax.complex(-tnp.imag(mirrored), tnp.real(mirrored))
    denominator = _WOFZ_L - iz
    w = 2.0 * power_series((_WOFZ_L + iz) / denominator, _WOFZ_P) / (denominator * denominator) + (
        1.0 / math.sqrt(math.pi)) / denominator
    w = tnp.where(upper, w, 2.0 * tnp.exp(-z * z) - w)
    # On the real axis w(x) = exp(-x²) + 2i/sqrt(π) D(x) (Dawson's integral): exact there, where the rational
    # function's real part is only accurate to 1e-16 |w| (exp(-x²) is below that beyond |x| = 6).
    x = tnp.real(z)
    on_axis = lax.complex(tnp.exp(-x * x), 2.0 / math.sqrt(math.pi) * dawsn(x))
    return tnp.where(tnp.equal(tnp.imag(z), 0), on_axis, w)


# w'(z) = -2z w(z) + 2i/sqrt(π).
_wofz.defjvps(lambda dz, w, z: (-2.0 * z * w + 2j / math.sqrt(math.pi)) * dz)


@emits_ops
def wofz(z):
    """The Faddeeva function ``w(z) = exp(-z²) erfc(-iz)``, as ``jax.scipy.special.wofz``.

    Weideman's rational approximation in ``(L + iz)/(L - iz)`` (40 terms; JAX
    uses 32, within 3e-13) in the upper half plane, ``2 exp(-z²) - w(-z)``
    below it; on the real axis ``exp(-x²) + 2i/sqrt(π) D(x)`` from
    :func:`dawsn` (JAX's real part there is off by up to 1e-16 ``|w|``, 1e7
    times ``exp(-49)`` at ``x = 7``). Within 1e-14 of scipy relative to
    ``|w|``. Real arguments become complex; the derivative is
    ``-2z w(z) + 2i/sqrt(π)``.

    Parameters
    ----------
    z : array_like
        Complex (or real) arguments.

    Returns
    -------
    Tracer
        ``w(z)``, complex128 (complex64 for single-precision arguments, evaluated in complex128 and rounded).

    Examples
    --------
    >>> import numpy as np
    >>> wofz(np.array([0.0, 1.0 + 1.0j]))
    array([1.        +0.j        , 0.30474421+0.20821894j])
    """
    z = tnp.asarray(z)
    single = z.dtype in (np.complex64, np.float32, np.float16, tnp.bfloat16)
    return tnp.astype(_wofz(tnp.astype(z, np.complex128)), np.complex64 if single else np.complex128)
