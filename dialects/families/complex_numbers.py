"""Complex tensors: ``tad.complex`` builds them from two real tensors, ``tad.real`` and ``tad.imag`` take them apart.

Upstream ``complex`` ops (``complex.add``, ``complex.exp``) act on scalars
only, not on tensors, so a complex tensor's arithmetic is written on its
parts: the builder (:mod:`tensorad.dialects.builder`) expands ``z * w`` into
``complex(re z re w - im z im w, re z im w + im z re w)``, and elementwise
fusion makes one loop of it. These three ops are the only ones that cross
between complex and real tensors, so their rules fix the derivative
conventions, which are JAX's: the cotangent ``w`` of a complex value ``z``
pairs with a change ``dz`` as ``Re(w dz)`` (no conjugate). Hence the
transposes: ``real``'s maps ``ct`` to ``ct + 0j``, ``imag``'s to ``-ct j``
and ``complex``'s maps ``w`` to ``(re w, -im w)``; ``grad`` of a real
function then returns ``∂f/∂x - i ∂f/∂y``, and of a holomorphic one ``f'(z)``.

Each lowers to an all-parallel ``linalg.generic`` over ``complex.create``,
``complex.re`` or ``complex.im``, which ``convert-complex-to-llvm`` makes
struct fields.

Examples
--------
>>> from tensorad.dialects.record import has_trait, record_of
>>> has_trait("tad.real", Trait.ELEMENTWISE), record_of("tad.complex").vjp is not None
(True, True)
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import complex as complex_dialect

from .. import builder, linalg_builder
from ..derivatives import deflinear
from ..record import Family, Trait
from ..shapes import TensorSpec, accepts_dynamic, need

family = Family("complex")

family.define("tad.complex", operands=("real", "imag"),
              summary="Elementwise complex number real + i imag of two float tensors of one shape (f32 or f64).",
              traits=(Trait.PURE, Trait.ELEMENTWISE))
family.define("tad.real", operands=("operand",), summary="Elementwise real part of a complex tensor.",
              traits=(Trait.PURE, Trait.ELEMENTWISE))
family.define("tad.imag", operands=("operand",), summary="Elementwise imaginary part of a complex tensor.",
              traits=(Trait.PURE, Trait.ELEMENTWISE))


@family.shape_rule("tad.complex")
@accepts_dynamic
def _complex_shape(operands, attrs, results):
    re, im = operands
    need(isinstance(re.element_type, (ir.F32Type, ir.F64Type)),
         f"real and imag must be f32 or f64 tensors, got {re.element_type}")
    need(re.element_type == im.element_type and re.shape == im.shape,
         f"real and imag must have one shape and element type, got {re.to_type()} and {im.to_type()}")
    return [TensorSpec(re.shape, ir.ComplexType.get(re.element_type))]


@family.shape_rule("tad.real", "tad.imag")
@accepts_dynamic
def _part_shape(operands, attrs, results):
    (z,) = operands
    need(isinstance(z.element_type, ir.ComplexType), f"operand must be a complex tensor, got {z.to_type()}")
    return [TensorSpec(z.shape, z.element_type.element_type)]


@family.lowering("tad.complex")
def _lower_complex(op):
    re, im = op.operands
    t = op.results[0].type
    return [linalg_builder.parallel([re, im], [range(t.rank)] * 2, t,
                                    lambda a, b, _out: complex_dialect.CreateOp(t.element_type, a, b).result)]


@family.lowering("tad.real", "tad.imag")
def _lower_part(op):
    (z,) = op.operands
    t = op.results[0].type
    part = complex_dialect.ReOp if op.name == "tad.real" else complex_dialect.ImOp
    return [linalg_builder.parallel([z], [range(t.rank)], t, lambda v, _out: part(v).result)]


def _producer(value: ir.Value, name: str):
    owner = value.owner
    return owner if isinstance(owner, (ir.Operation, ir.OpView)) and owner.name == name else None


@family.fold("tad.real", "tad.imag")
def _fold_part(op):
    # The part of a complex(re, im) is re or im: cotangents summed part by part lose their round trips.
    made = _producer(op.operands[0], "tad.complex")
    return None if made is None else made.operands[0 if op.name == "tad.real" else 1]


@family.fold("tad.complex")
def _fold_complex(op):
    # complex(real(z), imag(z)) is z.
    re, im = (_producer(v, name) for v, name in zip(op.operands, ("tad.real", "tad.imag")))
    if re is None or im is None or re.operands[0] != im.operands[0]:
        return None
    return re.operands[0]


def _complex_apply(c, tangents):
    """The tangent of ``re + i im``: that of each part, zeros (with the tangents' batch prefix) for a missing one."""
    re_t, im_t = tangents
    like = re_t if re_t is not None else im_t
    re_t = re_t if re_t is not None else c.zeros_like_input(0, like)
    im_t = im_t if im_t is not None else c.zeros_like_input(1, like)
    return builder.make_complex(re_t, im_t)


deflinear(family, "tad.complex", _complex_apply,
          lambda c, ct: [builder.real(ct), builder.negative(builder.imag(ct))])
deflinear(family, "tad.real", lambda c, tangents: builder.real(tangents[0]),
          lambda c, ct: [builder.make_complex(ct, builder.zeros_like(ct))])
deflinear(family, "tad.imag", lambda c, tangents: builder.imag(tangents[0]),
          lambda c, ct: [builder.make_complex(builder.zeros_like(ct), builder.negative(ct))])
