"""Forward against reverse mode on random programs: <u, J v> = <Jᵀ u, v>.

Hypothesis draws short programs from the differentiable ops of
``tensorad.numpy`` (elementwise math, broadcasting, structure, reductions,
contractions); each program is checked with the dot-product test and against
finite differences through :func:`tensorad.test_util.check_grads`.
"""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tensorad.numpy as tnp
from tensorad.test_util import check_grads

# Each step maps an array of shape (3, 4) to an array of shape (3, 4), so steps compose freely.
STEPS = {
    "sin": tnp.sin,
    "tanh": tnp.tanh,
    "exp_scaled": lambda x: tnp.exp(0.3 * x),
    "log1p_square": lambda x: tnp.log1p(x * x),
    "square_minus": lambda x: x * x - x,
    "divide": lambda x: x / (2.0 + tnp.cos(x)),
    "sqrt_positive": lambda x: tnp.sqrt(1.0 + x * x),
    "max_with_shift": lambda x: tnp.maximum(x, 0.5 * x + 0.1),
    "where": lambda x: tnp.where(x > 0.2, x * 3.0, x),
    "row_softmax": lambda x: tnp.exp(x - x.max(axis=1, keepdims=True))
    / tnp.sum(tnp.exp(x - x.max(axis=1, keepdims=True)), axis=1, keepdims=True),
    "transpose_roundtrip": lambda x: (x.T * np.arange(1.0, 4.0)).T,
    "reshape_roundtrip": lambda x: tnp.reshape(tnp.reshape(x, (2, 6)) * 1.5, (3, 4)),
    "column_mean": lambda x: x - tnp.mean(x, axis=0),
    "matmul_square": lambda x: x @ (x.T @ x) * 0.1,
    "slice_concat": lambda x: tnp.concatenate([x[:, 2:], x[:, :2] * 2.0], axis=1),
    "broadcast_row": lambda x: x + tnp.sum(x, axis=0)[None, :] * 0.5,
    "outer_rows": lambda x: tnp.tensordot(x, tnp.ones((4, 4)) * 0.1, axes=1),
}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(names=st.lists(st.sampled_from(sorted(STEPS)), min_size=1, max_size=4),
       seed=st.integers(0, 2**16))
def test_forward_and_reverse_agree_on_random_programs(names, seed):
    def program(x):
        for name in names:
            x = STEPS[name](x)
        return x

    x = np.random.default_rng(seed).uniform(-1.0, 1.0, (3, 4))
    check_grads(program, (x,), order=1, rtol=1e-5, atol=1e-7)


def test_check_grads_detects_a_wrong_derivative():
    import pytest
    import tensorad as ta

    @ta.custom_vjp
    def wrong(x):
        return tnp.sin(x)

    wrong.defvjp(lambda x: (tnp.sin(x), x), lambda x, g: (g * 2.0,))
    with pytest.raises(AssertionError, match="reverse mode"):
        check_grads(wrong, (np.ones(3),), modes=("rev",))


def test_second_order_checks():
    check_grads(lambda x, y: tnp.sum(tnp.tanh(x @ y)), (np.full((2, 3), 0.3), np.full((3, 2), -0.2)),
                order=2)
