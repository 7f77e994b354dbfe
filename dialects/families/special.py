"""Special functions as elementwise ``tad`` ops: ``lgamma``, ``polygamma``, ``erf_inv`` and ``ndtri``.

Upstream ``math`` has ``erf`` and ``erfc`` but none of these. Each op lowers
to one all-parallel ``linalg.generic`` whose body is a fixed composition of
scalar ``arith``/``math`` ops, as XLA expands its ``Lgamma``, ``Digamma`` and
``ErfInv``: every element takes the same straight-line code, with ``select``
between branches, so the loop vectorizes and nothing loops per element.

* ``lgamma``: ``log|Γ(x)|`` by Lanczos' approximation (g = 7, 9 terms) and
  Euler's reflection below 1/2, with the Taylor series of ``lgamma(1 + e)``
  and ``lgamma(2 + e)`` near the zeros at 1 and 2 (relative accuracy there).
* ``polygamma {order = n}``: ``ψ⁽ⁿ⁾(x)``, the digamma function for n = 0.
  The recurrence ``ψ⁽ⁿ⁾(x) = ψ⁽ⁿ⁾(x + 1) - (-1)ⁿ⁺¹ n! / x^(n+1)`` moves ``x``
  past a threshold, where the asymptotic (Stirling) series converges fast;
  negative ``x`` reflect through ``ψ(1 - x) - ψ(x) = π cot(πx)`` differentiated
  n times. Near the zero of ``ψ`` at 1.4616... a Taylor series keeps the
  relative accuracy.
* ``erf_inv``: Giles' polynomials in ``w = -log((1 - x)(1 + x))``.
* ``ndtri``, the inverse of the normal CDF: Cephes' rational functions (as
  JAX's and scipy's), in ``p`` or ``1 - p`` near the centre and in
  ``sqrt(-2 log p)`` in the tails, accurate down to the smallest ``p``.

``f16`` and ``bf16`` elements are computed in ``f32`` and rounded once.
Derivatives: ``lgamma' = ψ``, ``ψ⁽ⁿ⁾' = ψ⁽ⁿ⁺¹⁾`` (so every order exists),
``erf_inv' = √π/2 · exp(y²)``, ``ndtri' = √(2π) · exp(y²/2)``.

Examples
--------
>>> from tensorad.dialects.record import has_trait, record_of
>>> has_trait("tad.lgamma", Trait.ELEMENTWISE), record_of("tad.polygamma").lowering is not None
(True, True)
"""

from __future__ import annotations

import math
import struct
from fractions import Fraction
from functools import lru_cache

from mlir import ir

from .. import builder, linalg_builder
from ..builder import Val
from ..derivatives import defelementwise
from ..record import Family, Trait
from ..shapes import accepts_dynamic, floats, int_attr, need

family = Family("special")

_OPS = {
    "tad.lgamma": "Elementwise log|gamma(x)| of floats (Lanczos approximation, reflection below 1/2).",
    "tad.polygamma": "Elementwise polygamma function psi^(order)(x) of floats; order 0 is digamma.",
    "tad.erf_inv": "Elementwise inverse error function of floats in [-1, 1] (Giles' approximation).",
    "tad.ndtri": "Elementwise inverse of the standard normal CDF of probabilities in [0, 1].",
}
# Cost per element for rematerialization: roughly the scalar ops of the bodies below.
_FLOPS_PER_ELEMENT = {"tad.lgamma": 60, "tad.polygamma": 80, "tad.erf_inv": 40, "tad.ndtri": 45}


def _elements(op) -> int:
    # flops_of asks a record's formula of static shapes only.
    return math.prod(op.results[0].type.shape)


for _name, _summary in _OPS.items():
    family.define(_name, operands=("operand",), summary=_summary, traits=(Trait.PURE, Trait.ELEMENTWISE),
                  attributes=(("order", "integer"),) if _name == "tad.polygamma" else (),
                  flops=lambda op, per=_FLOPS_PER_ELEMENT[_name]: per * _elements(op))


@family.shape_rule(*_OPS)
@accepts_dynamic
def _float_elementwise_shape(operands, attrs, results):
    (x,) = operands
    floats(x, "operand")
    if "order" in attrs:
        need(int_attr(attrs, "order") >= 0, f"order must be non-negative, got {attrs['order']}")
    return [x]


# ----------------------------------------------------------------------------
# Series constants (exact rationals and sums, computed once)
# ----------------------------------------------------------------------------

@lru_cache(maxsize=None)
def _bernoulli(n: int) -> Fraction:
    """The Bernoulli number B_n (B_1 = -1/2), by the Akiyama-Tanigawa algorithm.

    Examples
    --------
    >>> _bernoulli(2), _bernoulli(12)
    (Fraction(1, 6), Fraction(-691, 2730))
    """
    row = [Fraction(0)] * (n + 1)
    for m in range(n + 1):
        row[m] = Fraction(1, m + 1)
        for j in range(m, 0, -1):
            row[j - 1] = j * (row[j - 1] - row[j])
    return row[0] if n != 1 else Fraction(-1, 2)


@lru_cache(maxsize=None)
def _zeta(k: int) -> float:
    """Riemann's zeta(k) for an integer k >= 2: 20 terms, then Euler-Maclaurin's tail.

    Examples
    --------
    >>> abs(_zeta(4) - math.pi ** 4 / 90) < 1e-15
    True
    """
    n = 20
    terms = [m ** -k for m in range(1, n)] + [n ** (1 - k) / (k - 1), 0.5 * n ** -k]
    rising = k  # k (k + 1) ... (k + 2j - 2)
    for j in range(1, 8):
        terms.append(float(_bernoulli(2 * j)) / math.factorial(2 * j) * rising * n ** (-k - 2 * j + 1))
        rising *= (k + 2 * j - 1) * (k + 2 * j)
    return math.fsum(terms)


def _horner(z, coefficients) -> Val:
    """``c[0] * z**(n-1) + ... + c[n-1]``, highest power first."""
    out = coefficients[0]
    for c in coefficients[1:]:
        out = out * z + c
    return out


def _is_f64(x: Val) -> bool:
    return isinstance(x.type, ir.F64Type)


# ----------------------------------------------------------------------------
# lgamma
# ----------------------------------------------------------------------------

_LANCZOS_G = 7.0
_LANCZOS_BASE = 0.99999999999980993227684700473478
_LANCZOS = (676.520368121885098567009190444019, -1259.13921672240287047156078755283,
            771.3234287776530788486528258894, -176.61502916214059906584551354,
            12.507343278686904814458936853, -0.13857109526572011689554707,
            9.984369578019570859563e-6, 1.50563273514931155834e-7)
_EULER_GAMMA = 0.57721566490153286061


def _lgamma_series(e: Val, at_two: bool, terms: int) -> Val:
    """``lgamma(1 + e)`` (``lgamma(2 + e)`` when ``at_two``) by its Taylor series, for small ``|e|``.

    ``lgamma(1 + e) = -γe + Σ_{k≥2} (-1)^k ζ(k)/k e^k``; from 2, ``log(1 + e)``
    more: the coefficients are ``(-1)^k (ζ(k) - 1)/k`` and the slope ``1 - γ``.
    """
    coefficients = [(-1) ** k * (_zeta(k) - at_two) / k for k in range(terms, 1, -1)]
    slope = (1.0 - _EULER_GAMMA) if at_two else -_EULER_GAMMA
    # + 0.0: lgamma(1) and lgamma(2) are +0, not the -0 of 0 * (negative slope).
    return e * (slope + e * _horner(e, coefficients)) + 0.0


def _lgamma(x: Val) -> Val:
    inf, pi = float("inf"), math.pi
    reflect = builder.less(x, 0.5)
    z = builder.select(reflect, builder.negative(x), x - 1.0)  # Γ(z + 1), of 1 - x when reflected
    series = _LANCZOS_BASE
    for i, c in enumerate(_LANCZOS):
        series = series + c / (z + float(i + 1))
    t = z + (_LANCZOS_G + 0.5)
    log_t = math.log(_LANCZOS_G + 0.5) + builder.log1p(z / (_LANCZOS_G + 0.5))
    # (z + 1/2) log t - t, as (z + 1/2 - t / log t) log t: t log t would overflow first.
    log_y = 0.5 * math.log(2 * pi) + (z + 0.5 - t / log_t) * log_t + builder.log(series)
    # Reflection: lgamma(x) = log(π) - lgamma(1 - x) - log|sin(πx)|, with sin(π frac(|x|)) exact
    # (0 at integers, where lgamma is +inf) and frac folded into [0, 1/2] for precision.
    magnitude = builder.absf(x)
    frac = magnitude - builder.floor(magnitude)
    frac = builder.select(builder.greater(frac, 0.5), 1.0 - frac, frac)
    log_sin = builder.log(builder.sin(pi * frac))
    reflected = builder.select(builder.less(builder.absf(log_sin), inf), math.log(pi) - log_sin - log_y,
                               builder.negative(log_sin))
    out = builder.select(reflect, reflected, log_y)
    terms = 24 if _is_f64(x) else 10
    for centre in (1.0, 2.0):
        e = x - centre
        out = builder.select(builder.less(builder.absf(e), 0.2), _lgamma_series(e, centre == 2.0, terms), out)
    return builder.select(builder.equal(magnitude, inf), inf, out)


# ----------------------------------------------------------------------------
# polygamma (digamma for order 0)
# ----------------------------------------------------------------------------

# The positive zero of ψ, to 36 digits.
_DIGAMMA_ROOT = Fraction("1.461632144968362341262659542325721325")


def _cot_derivative(n: int) -> list:
    """Coefficients (constant first) of the polynomial P with ``d^n/dx^n cot(πx) = P(cot(πx))``.

    ``P_0(c) = c`` and ``P_{k+1}(c) = -π (1 + c²) P_k'(c)``.

    Examples
    --------
    >>> [round(c, 6) + 0.0 for c in _cot_derivative(1)]  # -π (1 + c²)
    [-3.141593, 0.0, -3.141593]
    """
    poly = [0.0, 1.0]
    for _ in range(n):
        slope = [k * poly[k] for k in range(1, len(poly))] + [0.0]
        times = [0.0] * (len(slope) + 2)
        for k, c in enumerate(slope):  # (1 + c²) * slope
            times[k] += c
            times[k + 2] += c
        poly = [-math.pi * c for c in times[:len(poly) + 1]]  # degree one more
    return poly


def _powers_of(inv: Val, n: int) -> Val:
    """``inv ** n`` for a positive integer ``n``, by repeated squaring."""
    result, base = None, inv
    while n:
        if n & 1:
            result = base if result is None else result * base
        n >>= 1
        if n:
            base = base * base
    return result


def _polygamma_positive(y0: Val, n: int, f64: bool) -> Val:
    """``ψ⁽ⁿ⁾(y0)`` for ``y0 > 0``: the recurrence up to a threshold, then the asymptotic series."""
    threshold = (12 + n) if f64 else (6 + n)
    terms = 9 if f64 else 4
    shifted, y = 0.0, y0
    for _ in range(threshold):
        below = builder.less(y, float(threshold))
        inv = builder.reciprocal(y)
        shifted = shifted + builder.select(below, inv if n == 0 else _powers_of(inv, n + 1), 0.0)
        y = builder.select(below, y + 1.0, y)
    inv = builder.reciprocal(y)
    inv2 = inv * inv
    if n == 0:
        # ψ(y) ~ log y - 1/(2y) - Σ B_2k / (2k y^2k)
        tail = _horner(inv2, [float(_bernoulli(2 * k)) / (2 * k) for k in range(terms, 0, -1)] + [0.0])
        return builder.log(y) - 0.5 * inv - tail - shifted
    # ψ⁽ⁿ⁾(y) ~ (-1)^(n+1) y^-n [(n-1)! + n!/(2y) + Σ B_2k (2k+n-1)!/(2k)! y^-2k]
    tail = _horner(inv2, [float(_bernoulli(2 * k)) * math.factorial(2 * k + n - 1) / math.factorial(2 * k)
                          for k in range(terms, 0, -1)] + [0.0])
    core = _powers_of(inv, n) * (math.factorial(n - 1) + (0.5 * math.factorial(n)) * inv + tail)
    sign = 1.0 if n % 2 else -1.0
    return sign * (core + math.factorial(n) * shifted)


@lru_cache(maxsize=None)
def _root_series(f64: bool) -> tuple:
    """(centre, coefficients of ``ψ(centre + e)`` in ``e``, constant first) near the zero of ``ψ``.

    The centre is the zero rounded to the element type, so that ``x - centre``
    is exact; the constant ``ψ(centre)`` is its distance from the true zero
    times ``ψ'``. The coefficients ``ψ⁽ᵏ⁾(x0)/k! = (-1)^(k+1) ζ(k+1, x0)`` are
    Hurwitz zeta sums: 100 terms, then Euler-Maclaurin's tail.
    """
    centre = float(_DIGAMMA_ROOT) if f64 else struct.unpack("f", struct.pack("f", float(_DIGAMMA_ROOT)))[0]
    x0, n = float(_DIGAMMA_ROOT), 100
    coefficients = []
    for k in range(1, (22 if f64 else 9) + 1):
        s = k + 1
        a = x0 + n
        tail = [a ** (1 - s) / (s - 1), 0.5 * a ** -s, s / 12.0 * a ** (-s - 1),
                -s * (s + 1) * (s + 2) / 720.0 * a ** (-s - 3)]
        coefficients.append((-1) ** (k + 1) * math.fsum([(x0 + m) ** -s for m in range(n)] + tail))
    constant = coefficients[0] * float(Fraction(centre) - _DIGAMMA_ROOT)
    return centre, [constant] + coefficients


def _digamma_near_root(x: Val, f64: bool) -> Val:
    """``ψ(x)`` near its positive zero, by its Taylor series there: relative accuracy where ``ψ`` is small."""
    centre, coefficients = _root_series(f64)
    return _horner(x - centre, list(reversed(coefficients)))


def _polygamma(x: Val, n: int) -> Val:
    f64 = _is_f64(x)
    nan, pi = float("nan"), math.pi
    reflect = builder.less(x, 0.0)
    positive = _polygamma_positive(builder.select(reflect, 1.0 - x, x), n, f64)
    # ψ⁽ⁿ⁾(x) = (-1)^n ψ⁽ⁿ⁾(1 - x) - π P_n(cot(πx)); cot from x - round(x), exact near integers.
    r = x - builder.floor(x + 0.5)
    cot = builder.cos(pi * r) / builder.sin(pi * r)
    cot_term = _horner(cot, list(reversed(_cot_derivative(n))))
    reflected = (positive if n % 2 == 0 else builder.negative(positive)) - pi * cot_term
    out = builder.select(reflect, reflected, positive)
    if n == 0:
        near_root = builder.less(builder.absf(x - float(_DIGAMMA_ROOT)), 0.25)
        out = builder.select(near_root, _digamma_near_root(x, f64), out)
    # Poles at 0, -1, -2, ...: NaN (as JAX's digamma and polygamma).
    pole = builder.logical_and(builder.compare("le", x, 0.0), builder.equal(x, builder.floor(x)))
    return builder.select(pole, nan, out)


# ----------------------------------------------------------------------------
# erf_inv and ndtri (Giles, "Approximating the erfinv function")
# ----------------------------------------------------------------------------

# Single precision: two polynomials, split at w = 5.
_GILES_32 = ((2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
              -0.00125372503, -0.00417768164, 0.246640727, 1.50140941),
             (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
              -0.0076224613, 0.00943887047, 1.00167406, 2.83297682))
# Double precision: three, split at w = 6.25 and w = 16.
_GILES_64 = ((-3.6444120640178196996e-21, -1.685059138182016589e-19, 1.2858480715256400167e-18,
              1.115787767802518096e-17, -1.333171662854620906e-16, 2.0972767875968561637e-17,
              6.6376381343583238325e-15, -4.0545662729752068639e-14, -8.1519341976054721522e-14,
              2.6335093153082322977e-12, -1.2975133253453532498e-11, -5.4154120542946279317e-11,
              1.051212273321532285e-09, -4.1126339803469836976e-09, -2.9070369957882005086e-08,
              4.2347877827932403518e-07, -1.3654692000834678645e-06, -1.3882523362786468719e-05,
              0.0001867342080340571352, -0.00074070253416626697512, -0.0060336708714301490533,
              0.24015818242558961693, 1.6536545626831027356),
             (2.2137376921775787049e-09, 9.0756561938885390979e-08, -2.7517406297064545428e-07,
              1.8239629214389227755e-08, 1.5027403968909827627e-06, -4.013867526981545969e-06,
              2.9234449089955446044e-06, 1.2475304481671778723e-05, -4.7318229009055733981e-05,
              6.8284851459573175448e-05, 2.4031110387097893999e-05, -0.0003550375203628474796,
              0.00095328937973738049703, -0.0016882755560235047313, 0.0024914420961078508066,
              -0.0037512085075692412107, 0.005370914553590063617, 1.0052589676941592334,
              3.0838856104922207635),
             (-2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09,
              -3.7894654401267369937e-09, 7.6157012080783393804e-09, -1.4960026627149240478e-08,
              2.9147953450901080826e-08, -6.7711997758452339498e-08, 2.2900482228026654717e-07,
              -9.9298272942317002539e-07, 4.5260625972231537039e-06, -1.9681778105531670567e-05,
              7.5995277030017761139e-05, -0.00021503011930044477347, -0.00013871931833623122026,
              1.0103004648645343977, 4.8499064014085844221))


def _giles(w: Val) -> Val:
    """Giles' ``p(w)`` with ``erfinv(x) = p(w) x`` for ``w = -log((1 - x)(1 + x))``."""
    if _is_f64(w):
        central, middle, tail = _GILES_64
        root = builder.sqrt(w)
        low, high = builder.less(w, 6.25), builder.less(w, 16.0)
        return builder.select(low, _horner(w - 3.125, central),
                              builder.select(high, _horner(root - 3.25, middle), _horner(root - 5.0, tail)))
    central, tail = _GILES_32
    return builder.select(builder.less(w, 5.0), _horner(w - 2.5, central),
                          _horner(builder.sqrt(w) - 3.0, tail))


def _erf_inv(x: Val) -> Val:
    # (1 - x)(1 + x), not 1 - x*x: 1 - x is exact near 1, where erfinv is steep.
    w = builder.negative(builder.log((1.0 - x) * (1.0 + x)))
    # ±1 map to ±inf (the polynomial would give NaN or a finite value there).
    return builder.select(builder.equal(builder.absf(x), 1.0), x * float("inf"), _giles(w) * x)


# Cephes' ndtri: a rational function of p - 1/2 in the centre (p or 1 - p above exp(-2)), and in the
# tails, where z = sqrt(-2 log p), z - log(z)/z minus a rational function of 1/z (two, split at z = 8).
# Highest power first.
_NDTRI_CENTRE = ((-59.96335010141079, 98.00107541859997, -56.67628574690703, 13.931260938727968,
                  -1.2391658386738125),
                 (1.0, 1.9544885833814176, 4.676279128988815, 86.36024213908905, -225.46268785411937,
                  200.26021238006066, -82.03722561683334, 15.90562251262117, -1.1833162112133))
_NDTRI_TAIL = ((4.0554489230596245, 31.525109459989388, 57.16281922464213, 44.08050738932008,
                14.684956192885803, 2.1866330685079025, -0.1402560791713545, -0.03504246268278482,
                -0.0008574567851546854),
               (1.0, 15.779988325646675, 45.39076351288792, 41.3172038254672, 15.04253856929075,
                2.504649462083094, -0.14218292285478779, -0.03808064076915783, -0.0009332594808954574))
_NDTRI_FAR_TAIL = ((3.2377489177694603, 6.915228890689842, 3.9388102529247444, 1.3330346081580755,
                    0.20148538954917908, 0.012371663481782003, 0.00030158155350823543,
                    2.6580697468673755e-06, 6.239745391849833e-09),
                   (1.0, 6.02427039364742, 3.6798356385616087, 1.3770209948908132, 0.21623699359449663,
                    0.013420400608854318, 0.00032801446468212774, 2.8924786474538068e-06,
                    6.790194080099813e-09))


def _rational(z: Val, coefficients: tuple) -> Val:
    numerator, denominator = coefficients
    return _horner(z, numerator) / _horner(z, denominator)


def _ndtri(p: Val) -> Val:
    upper = builder.greater(p, 1.0 - math.exp(-2.0))
    q = builder.select(upper, 1.0 - p, p)  # the tail probability, the smaller of p and 1 - p
    # Outside (0, 1) the result is set below; 1/2 keeps the unused branches finite.
    q = builder.select(builder.logical_and(builder.greater(q, 0.0), builder.less(q, 1.0)), q, 0.5)
    w = q - 0.5
    w2 = w * w
    centre = (w + w * w2 * _rational(w2, _NDTRI_CENTRE)) * -math.sqrt(2.0 * math.pi)
    z = builder.sqrt(-2.0 * builder.log(q))
    inv = builder.reciprocal(z)
    head = z - builder.log(z) / z
    tail = head - _rational(inv, _NDTRI_TAIL) / z
    far_tail = head - _rational(inv, _NDTRI_FAR_TAIL) / z
    magnitude = builder.select(builder.greater(q, math.exp(-2.0)), centre,
                               builder.select(builder.less(z, 8.0), tail, far_tail))
    out = builder.select(upper, magnitude, builder.negative(magnitude))
    inf = float("inf")
    out = builder.select(builder.equal(p, 0.0), -inf, builder.select(builder.equal(p, 1.0), inf, out))
    outside = builder.logical_or(builder.less(p, 0.0), builder.greater(p, 1.0))
    return builder.select(outside, float("nan"), out)


# ----------------------------------------------------------------------------
# Lowering and derivatives
# ----------------------------------------------------------------------------

_BODIES = {"tad.lgamma": lambda x, attrs: _lgamma(x),
           "tad.polygamma": lambda x, attrs: _polygamma(x, attrs["order"]),
           "tad.erf_inv": lambda x, attrs: _erf_inv(x),
           "tad.ndtri": lambda x, attrs: _ndtri(x)}


@family.lowering(*_OPS)
def _lower(op):
    body = _BODIES[op.name]
    attrs = {"order": op.attributes["order"].value} if "order" in op.attributes else {}  # polygamma's
    x = op.operands[0]

    def element(value, _out):
        value = Val(value)
        if builder.is_half(value.type):  # too few bits for the intermediate results
            return builder.convert(body(value.astype(ir.F32Type.get()), attrs), value.type)
        return body(value, attrs)

    return [linalg_builder.parallel([x], [range(x.type.rank)], x.type, element)]


def polygamma(x, order: int) -> Val:
    """``ψ⁽ᵒʳᵈᵉʳ⁾(x)`` (``tad.polygamma``; digamma for order 0).

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> with make_context(), ir.Location.unknown():
    ...     module = ir.Module.create()
    ...     with ir.InsertionPoint(module.body):
    ...         psi = polygamma(builder.constant(1.0, (3,), ir.F64Type.get()), 1)
    >>> psi.owner.name, psi.owner.attributes["order"].value
    ('tad.polygamma', 1)
    """
    return builder.build("tad.polygamma", [x],
                         {"order": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), order)})


defelementwise(family, "tad.lgamma", lambda c: polygamma(c.inputs[0], 0))
defelementwise(family, "tad.polygamma", lambda c: polygamma(c.inputs[0], int_attr(c.attrs, "order") + 1))
defelementwise(family, "tad.erf_inv",
               lambda c: (0.5 * math.sqrt(math.pi)) * builder.exp(builder.square(c.outputs[0])))
defelementwise(family, "tad.ndtri",
               lambda c: math.sqrt(2.0 * math.pi) * builder.exp(0.5 * builder.square(c.outputs[0])))
