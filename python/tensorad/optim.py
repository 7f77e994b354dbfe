"""``tensorad.optim``: gradient transformations with optax's names and semantics.

An optimizer is a :class:`GradientTransformation`, a pair of pure functions:
``init(params) -> state`` and ``update(updates, state, params=None) ->
(updates, state)``. States are pytrees (named tuples of arrays, see
:mod:`tensorad.tree`), so a whole training step -- gradient, update and
:func:`apply_updates` -- compiles into one :func:`tensorad.jit` function whose
parameters and optimizer state go in and come out as arrays. Step counts live
in the state as int32 arrays, so a jitted step compiles once. Optimizers are
built from small transformations joined by :func:`chain`, as in optax:
``adam(lr) == chain(scale_by_adam(), scale_by_learning_rate(lr))``.

The update math is written once with :mod:`tensorad.numpy`; ``init`` makes
numpy arrays and needs no trace.

Examples
--------
>>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> from tensorad import optim
>>> opt = optim.adam(0.1)
>>> params = {"w": np.array([1.0, -2.0])}
>>> state = opt.init(params)
>>> @ta.jit
... def step(params, state):
...     grads = ta.grad(lambda p: tnp.sum(p["w"] ** 2))(params)
...     updates, state = opt.update(grads, state, params)
...     return optim.apply_updates(params, updates), state
>>> for _ in range(3):
...     params, state = step(params, state)
>>> params["w"].round(3), state[0].count
(array([ 0.702, -1.701]), array(3, dtype=int32))
"""

from __future__ import annotations

import numbers
from typing import Any, Callable, NamedTuple

import numpy as np

from . import numpy as tnp
from . import tree

__all__ = [
    # transformations and their states
    "GradientTransformation", "EmptyState", "TraceState", "ScaleByAdamState", "ScaleByRmsState",
    "ScaleByRssState", "ScaleByLionState", "ScaleByScheduleState",
    # optimizers
    "sgd", "adam", "adamw", "rmsprop", "adagrad", "lion",
    # building blocks
    "chain", "identity", "scale", "scale_by_schedule", "scale_by_learning_rate", "trace", "scale_by_adam",
    "scale_by_rms", "scale_by_rss", "scale_by_lion", "add_decayed_weights", "clip_by_global_norm",
    "apply_updates", "global_norm", "safe_increment",
    # schedules
    "constant_schedule", "polynomial_schedule", "linear_schedule", "exponential_decay",
    "cosine_decay_schedule", "join_schedules", "warmup_cosine_decay_schedule",
]

_INT32_MAX = int(np.iinfo(np.int32).max)


class GradientTransformation(NamedTuple):
    """An optimizer: ``init(params) -> state``, ``update(updates, state, params=None) -> (updates, state)``.

    Both are pure: ``update`` returns a new state instead of changing one, so
    it can run inside :func:`tensorad.jit`.
    """

    init: Callable[[Any], Any]
    update: Callable[..., tuple]


class EmptyState(NamedTuple):
    """The state of a transformation that keeps none."""


class TraceState(NamedTuple):
    """The momentum of :func:`trace`."""

    trace: Any


class ScaleByAdamState(NamedTuple):
    """Step count (int32) and first and second moment estimates of :func:`scale_by_adam`."""

    count: Any
    mu: Any
    nu: Any


class ScaleByRmsState(NamedTuple):
    """Moving average of squared gradients of :func:`scale_by_rms`."""

    nu: Any


class ScaleByRssState(NamedTuple):
    """Sum of squared gradients of :func:`scale_by_rss`."""

    sum_of_squares: Any


class ScaleByLionState(NamedTuple):
    """Step count (int32) and momentum of :func:`scale_by_lion`."""

    count: Any
    mu: Any


class ScaleByScheduleState(NamedTuple):
    """Step count (int32) of :func:`scale_by_schedule`, the argument of the schedule."""

    count: Any


# ----------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------

def _number(who: str, name: str, value) -> float:
    """``value`` as a Python float, which keeps the dtype of the arrays it multiplies
    (a numpy float64 scalar would promote float32 parameters)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{who}: {name} must be a real number, got {type(value).__name__} {value!r}")
    return float(value)


def _optional_number(who: str, name: str, value) -> float | None:
    return None if value is None else _number(who, name, value)


def _steps(who: str, name: str, value, minimum: int = 1) -> int:
    """A whole number of steps, at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{who}: {name} must be a whole number of steps >= {minimum}, got {value!r}")
    return int(value)


def _check_schedule(who: str, name: str, fn) -> None:
    if not callable(fn):
        raise TypeError(f"{who}: {name} must be a function of the step count, got {type(fn).__name__}")


def _expect_state(who: str, state, cls) -> None:
    """Refuse a state that another transformation's ``init`` made."""
    if not isinstance(state, cls):
        raise TypeError(f"{who}.update: expected the {cls.__name__} that its init returns, "
                        f"got {type(state).__name__}")


def _map(fn: Callable, first, *rest):
    """``tree.tree_map`` over pytrees that must have one structure (tree_map would pair
    leaves of different structures silently)."""
    structure = tree.flatten(first)[1]
    for other in rest:
        if tree.flatten(other)[1] != structure:
            raise ValueError("the updates, the optimizer state and the params have different "
                             "pytree structures; was the state made by this optimizer's init "
                             "from these params?")
    return tree.tree_map(fn, first, *rest)


def _zeros_like(params):
    return _full_like(params, 0.0)


def _full_like(params, value: float):
    # numpy arrays: init needs no trace, and inside a trace they become constants.
    return tree.tree_map(lambda p: np.full(np.shape(p), value, _dtype(p)), params)


def _dtype(x) -> np.dtype:
    return x.dtype if hasattr(x, "dtype") else np.result_type(x)


def _bias_correction(moment, decay: float, count):
    """``moment / (1 - decay ** count)``, the divisor cast to each leaf's dtype."""
    divisor = 1.0 - tnp.power(decay, count)
    return tree.tree_map(lambda t: t / tnp.astype(divisor, _dtype(t)), moment)


def safe_increment(count):
    """``count + 1``, staying at the largest int32 instead of wrapping around.

    Parameters
    ----------
    count : array of int32, shape ()
        A step count.

    Returns
    -------
    array of int32
        The next count.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.jit(safe_increment)(np.array([1, 2147483647], np.int32))
    array([         2, 2147483647], dtype=int32)
    """
    return tnp.where(count < _INT32_MAX, count + 1, _INT32_MAX)


# ----------------------------------------------------------------------------
# Building blocks
# ----------------------------------------------------------------------------

def identity() -> GradientTransformation:
    """The transformation that returns the updates unchanged.

    Examples
    --------
    >>> identity().update(np.ones(2), EmptyState())
    (array([1., 1.]), EmptyState())
    """
    def update(updates, state, params=None):
        _expect_state("identity", state, EmptyState)
        return updates, state

    return GradientTransformation(lambda params: EmptyState(), update)


def scale(step_size: float) -> GradientTransformation:
    """Multiply the updates by the constant ``step_size``.

    Parameters
    ----------
    step_size : float
        The factor.

    Returns
    -------
    GradientTransformation
        A stateless transformation.

    Examples
    --------
    >>> t = scale(-0.5)
    >>> t.update({"w": np.array([2.0, 4.0])}, t.init(None))[0]
    {'w': array([-1., -2.])}
    """
    step_size = _number("scale", "step_size", step_size)

    def update(updates, state, params=None):
        _expect_state("scale", state, EmptyState)
        return tree.tree_map(lambda g: step_size * g, updates), state

    return GradientTransformation(lambda params: EmptyState(), update)


def scale_by_schedule(step_size_fn: Callable) -> GradientTransformation:
    """Multiply the updates by ``step_size_fn(count)``, ``count`` the number of steps so far.

    Parameters
    ----------
    step_size_fn : callable
        A schedule: int32 step count -> factor.

    Returns
    -------
    GradientTransformation
        Its state is a :class:`ScaleByScheduleState` holding the count.

    Examples
    --------
    >>> import tensorad as ta
    >>> t = scale_by_schedule(lambda count: 0.5 ** count)
    >>> step = ta.jit(t.update)
    >>> updates, state = step(np.ones(2), t.init(None))
    >>> step(np.ones(2), state)[0]
    array([0.5, 0.5])
    """
    _check_schedule("scale_by_schedule", "step_size_fn", step_size_fn)

    def update(updates, state, params=None):
        _expect_state("scale_by_schedule", state, ScaleByScheduleState)
        step_size = step_size_fn(state.count)
        updates = tree.tree_map(lambda g: tnp.astype(step_size, _dtype(g)) * g, updates)
        return updates, ScaleByScheduleState(safe_increment(state.count))

    return GradientTransformation(lambda params: ScaleByScheduleState(np.zeros((), np.int32)), update)


def scale_by_learning_rate(learning_rate, flip_sign: bool = True) -> GradientTransformation:
    """Multiply the updates by ``-learning_rate`` (a number or a schedule of the step count).

    Parameters
    ----------
    learning_rate : float or callable
        A constant, or a schedule: int32 step count -> learning rate.
    flip_sign : bool
        Negate it (the default), so that the updates descend.

    Returns
    -------
    GradientTransformation
        :func:`scale` for a number, :func:`scale_by_schedule` for a schedule.

    Examples
    --------
    >>> t = scale_by_learning_rate(0.1)
    >>> t.update(np.array([1.0, -2.0]), t.init(None))[0]
    array([-0.1,  0.2])
    """
    sign = -1.0 if flip_sign else 1.0
    if callable(learning_rate):
        return scale_by_schedule(lambda count: sign * learning_rate(count))
    if isinstance(learning_rate, bool) or not isinstance(learning_rate, numbers.Real):
        raise TypeError("learning_rate must be a number or a schedule (a function of the step "
                        f"count), got {type(learning_rate).__name__} {learning_rate!r}")
    return scale(sign * float(learning_rate))


def trace(decay: float, nesterov: bool = False) -> GradientTransformation:
    """Momentum: ``t = g + decay * t``; the updates become ``t`` (or ``g + decay * t`` with Nesterov).

    Parameters
    ----------
    decay : float
        The momentum coefficient.
    nesterov : bool
        Use Nesterov's momentum.

    Returns
    -------
    GradientTransformation
        Its state is a :class:`TraceState`.

    Examples
    --------
    >>> t = trace(0.5)
    >>> updates, state = t.update(np.ones(2), t.init(np.zeros(2)))
    >>> t.update(np.ones(2), state)[0]
    array([1.5, 1.5])
    """
    decay = _number("trace", "decay", decay)

    def update(updates, state, params=None):
        _expect_state("trace", state, TraceState)
        new_trace = _map(lambda g, t: g + decay * t, updates, state.trace)
        if nesterov:  # the same step once more, from the new trace
            return _map(lambda g, t: g + decay * t, updates, new_trace), TraceState(new_trace)
        return new_trace, TraceState(new_trace)

    return GradientTransformation(lambda params: TraceState(_zeros_like(params)), update)


def scale_by_adam(b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8, eps_root: float = 0.0,
                  *, nesterov: bool = False) -> GradientTransformation:
    """Adam's scaling (Kingma and Ba, 2015): ``m_hat / (sqrt(v_hat + eps_root) + eps)``.

    ``m`` and ``v`` are moving averages of the gradients and their squares, and
    ``m_hat = m / (1 - b1**t)``, ``v_hat = v / (1 - b2**t)`` correct their bias
    toward the zeros they start from at step ``t``.

    Parameters
    ----------
    b1, b2 : float
        Decay rates of the first and second moment estimates.
    eps, eps_root : float
        Added to the denominator outside and inside the square root.
    nesterov : bool
        Nadam (Dozat, 2016): Nesterov momentum on the first moment.

    Returns
    -------
    GradientTransformation
        Its state is a :class:`ScaleByAdamState`.

    Examples
    --------
    >>> import tensorad as ta
    >>> t = scale_by_adam()
    >>> ta.jit(t.update)(np.array([0.5, -3.0]), t.init(np.zeros(2)))[0].round(6)
    array([ 1., -1.])
    """
    who = "scale_by_adam"
    b1, b2 = _number(who, "b1", b1), _number(who, "b2", b2)
    eps, eps_root = _number(who, "eps", eps), _number(who, "eps_root", eps_root)

    def init(params):
        return ScaleByAdamState(np.zeros((), np.int32), _zeros_like(params), _zeros_like(params))

    def update(updates, state, params=None):
        _expect_state(who, state, ScaleByAdamState)
        mu = _map(lambda g, m: (1.0 - b1) * g + b1 * m, updates, state.mu)
        nu = _map(lambda g, v: (1.0 - b2) * (g * g) + b2 * v, updates, state.nu)
        count = safe_increment(state.count)
        if nesterov:
            mu_hat = _map(lambda m, g: b1 * m + (1.0 - b1) * g,
                          _bias_correction(mu, b1, safe_increment(count)),
                          _bias_correction(updates, b1, count))
        else:
            mu_hat = _bias_correction(mu, b1, count)
        nu_hat = _bias_correction(nu, b2, count)
        updates = _map(lambda m, v: m / (tnp.sqrt(v + eps_root) + eps), mu_hat, nu_hat)
        return updates, ScaleByAdamState(count, mu, nu)

    return GradientTransformation(init, update)


def scale_by_rms(decay: float = 0.9, eps: float = 1e-8, initial_scale: float = 0.0) -> GradientTransformation:
    """RMSProp's scaling: ``g / sqrt(v + eps)``, ``v`` the moving average of ``g**2``.

    Parameters
    ----------
    decay : float
        Decay rate of the average.
    eps : float
        Added to ``v`` inside the square root.
    initial_scale : float
        The value ``v`` starts from.

    Returns
    -------
    GradientTransformation
        Its state is a :class:`ScaleByRmsState`.

    Examples
    --------
    >>> import tensorad as ta
    >>> t = scale_by_rms(decay=0.75)
    >>> ta.jit(t.update)(np.array([2.0]), t.init(np.zeros(1)))[0].round(6)
    array([2.])
    """
    who = "scale_by_rms"
    decay, eps = _number(who, "decay", decay), _number(who, "eps", eps)
    initial_scale = _number(who, "initial_scale", initial_scale)

    def update(updates, state, params=None):
        _expect_state(who, state, ScaleByRmsState)
        nu = _map(lambda g, v: (1.0 - decay) * (g * g) + decay * v, updates, state.nu)
        return _map(lambda g, v: g * tnp.rsqrt(v + eps), updates, nu), ScaleByRmsState(nu)

    return GradientTransformation(lambda params: ScaleByRmsState(_full_like(params, initial_scale)), update)


def scale_by_rss(initial_accumulator_value: float = 0.1, eps: float = 1e-7) -> GradientTransformation:
    """Adagrad's scaling: ``g / sqrt(s + eps)``, ``s`` the sum of all ``g**2`` so far (0 where ``s`` is 0).

    Parameters
    ----------
    initial_accumulator_value : float
        The value ``s`` starts from.
    eps : float
        Added to ``s`` inside the square root.

    Returns
    -------
    GradientTransformation
        Its state is a :class:`ScaleByRssState`.

    Examples
    --------
    >>> import tensorad as ta
    >>> t = scale_by_rss(initial_accumulator_value=0.0, eps=0.0)
    >>> ta.jit(t.update)(np.array([3.0, 0.0]), t.init(np.zeros(2)))[0]
    array([1., 0.])
    """
    who = "scale_by_rss"
    initial = _number(who, "initial_accumulator_value", initial_accumulator_value)
    eps = _number(who, "eps", eps)

    def update(updates, state, params=None):
        _expect_state(who, state, ScaleByRssState)
        sum_of_squares = _map(lambda g, s: g * g + s, updates, state.sum_of_squares)
        updates = _map(lambda g, s: tnp.where(s > 0, tnp.rsqrt(s + eps), 0.0) * g, updates, sum_of_squares)
        return updates, ScaleByRssState(sum_of_squares)

    return GradientTransformation(lambda params: ScaleByRssState(_full_like(params, initial)), update)


def scale_by_lion(b1: float = 0.9, b2: float = 0.99) -> GradientTransformation:
    """Lion's direction (Chen et al., 2023): ``sign((1 - b1) g + b1 m)``, then ``m = (1 - b2) g + b2 m``.

    Parameters
    ----------
    b1 : float
        Interpolation of gradient and momentum in the direction.
    b2 : float
        Decay rate of the momentum.

    Returns
    -------
    GradientTransformation
        Its state is a :class:`ScaleByLionState`.

    Examples
    --------
    >>> import tensorad as ta
    >>> t = scale_by_lion()
    >>> ta.jit(t.update)(np.array([0.3, -2.0, 0.0]), t.init(np.zeros(3)))[0]
    array([ 1., -1.,  0.])
    """
    who = "scale_by_lion"
    b1, b2 = _number(who, "b1", b1), _number(who, "b2", b2)

    def update(updates, state, params=None):
        _expect_state(who, state, ScaleByLionState)
        direction = _map(lambda g, m: tnp.sign((1.0 - b1) * g + b1 * m), updates, state.mu)
        mu = _map(lambda g, m: (1.0 - b2) * g + b2 * m, updates, state.mu)
        return direction, ScaleByLionState(safe_increment(state.count), mu)

    def init(params):
        return ScaleByLionState(np.zeros((), np.int32), _zeros_like(params))

    return GradientTransformation(init, update)


def add_decayed_weights(weight_decay: float = 0.0) -> GradientTransformation:
    """Add ``weight_decay * params`` to the updates (decoupled weight decay, as in AdamW).

    Parameters
    ----------
    weight_decay : float
        The factor.

    Returns
    -------
    GradientTransformation
        A stateless transformation; its ``update`` needs ``params``.

    Examples
    --------
    >>> t = add_decayed_weights(0.1)
    >>> t.update(np.zeros(2), t.init(None), params=np.array([1.0, 2.0]))[0]
    array([0.1, 0.2])
    """
    weight_decay = _number("add_decayed_weights", "weight_decay", weight_decay)

    def update(updates, state, params=None):
        _expect_state("add_decayed_weights", state, EmptyState)
        if params is None:
            raise ValueError("add_decayed_weights needs the current parameters: call "
                             "update(updates, state, params)")
        return _map(lambda g, p: g + weight_decay * p, updates, params), state

    return GradientTransformation(lambda params: EmptyState(), update)


def global_norm(updates):
    """The L2 norm of all the leaves of ``updates`` together.

    Parameters
    ----------
    updates : pytree of arrays

    Returns
    -------
    array, shape ()

    Examples
    --------
    >>> import tensorad as ta
    >>> ta.jit(global_norm)({"a": np.array([3.0]), "b": np.array([[4.0]])})
    array(5.)
    """
    return tnp.sqrt(sum(tnp.sum(x * x) for x in tree.flatten(updates)[0]))


def clip_by_global_norm(max_norm: float) -> GradientTransformation:
    """Scale the updates down to the global norm ``max_norm`` where :func:`global_norm` exceeds it.

    Parameters
    ----------
    max_norm : float
        The largest global norm let through (positive).

    Returns
    -------
    GradientTransformation
        A stateless transformation.

    Examples
    --------
    >>> import tensorad as ta
    >>> t = clip_by_global_norm(1.0)
    >>> ta.jit(t.update)({"a": np.array([3.0]), "b": np.array([4.0])}, t.init(None))[0]
    {'a': array([0.6]), 'b': array([0.8])}
    """
    max_norm = _number("clip_by_global_norm", "max_norm", max_norm)
    if not max_norm > 0:
        raise ValueError(f"clip_by_global_norm: max_norm must be positive, got {max_norm}")

    def update(updates, state, params=None):
        _expect_state("clip_by_global_norm", state, EmptyState)
        norm = global_norm(updates)
        keep = norm < max_norm
        return tree.tree_map(lambda t: tnp.where(keep, t, t / tnp.astype(norm, _dtype(t)) * max_norm),
                             updates), state

    return GradientTransformation(lambda params: EmptyState(), update)


def chain(*transforms: GradientTransformation) -> GradientTransformation:
    """Apply ``transforms`` one after the other; the state is the tuple of their states.

    Parameters
    ----------
    *transforms : GradientTransformation

    Returns
    -------
    GradientTransformation

    Examples
    --------
    >>> t = chain(add_decayed_weights(0.5), scale(-1.0))
    >>> t.update(np.array([1.0]), t.init(np.zeros(1)), params=np.array([2.0]))
    (array([-2.]), (EmptyState(), EmptyState()))
    """
    for i, t in enumerate(transforms):
        if not (callable(getattr(t, "init", None)) and callable(getattr(t, "update", None))):
            raise TypeError(f"chain: argument {i} is a {type(t).__name__}, not a GradientTransformation")

    def init(params):
        return tuple(t.init(params) for t in transforms)

    def update(updates, state, params=None):
        if type(state) is not tuple or len(state) != len(transforms):  # a named tuple is one state
            raise ValueError(f"chain of {len(transforms)} transformations: expected the tuple of "
                             f"{len(transforms)} states that its init returns, got {type(state).__name__}")
        states = []
        for t, s in zip(transforms, state):
            updates, s = t.update(updates, s, params)
            states.append(s)
        return updates, tuple(states)

    return GradientTransformation(init, update)


def apply_updates(params, updates):
    """``params + updates``, leaf by leaf, in the dtype of each parameter.

    Parameters
    ----------
    params, updates : pytrees of one structure

    Returns
    -------
    pytree
        The new parameters.

    Examples
    --------
    >>> apply_updates({"w": np.ones(2, np.float32)}, {"w": np.array([0.5, -0.5])})
    {'w': array([1.5, 0.5], dtype=float32)}
    """
    return _map(lambda p, u: (p + u).astype(_dtype(p)), params, updates)


# ----------------------------------------------------------------------------
# Optimizers
# ----------------------------------------------------------------------------

def sgd(learning_rate, momentum: float | None = None, nesterov: bool = False) -> GradientTransformation:
    """Stochastic gradient descent, with (Nesterov) momentum if given.

    Parameters
    ----------
    learning_rate : float or callable
        A constant or a schedule of the step count.
    momentum : float, optional
        The momentum coefficient (:func:`trace`).
    nesterov : bool
        Nesterov's momentum (needs ``momentum``).

    Returns
    -------
    GradientTransformation

    Examples
    --------
    >>> opt = sgd(0.1, momentum=0.9)
    >>> updates, state = opt.update(np.array([1.0]), opt.init(np.zeros(1)))
    >>> opt.update(np.array([1.0]), state)[0]
    array([-0.19])
    """
    momentum = _optional_number("sgd", "momentum", momentum)
    if nesterov and momentum is None:
        raise ValueError("sgd: nesterov=True needs a momentum")
    return chain(trace(momentum, nesterov) if momentum is not None else identity(),
                 scale_by_learning_rate(learning_rate))


def adam(learning_rate, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8, eps_root: float = 0.0,
         *, nesterov: bool = False) -> GradientTransformation:
    """Adam: :func:`scale_by_adam`, then the learning rate.

    Parameters
    ----------
    learning_rate : float or callable
        A constant or a schedule of the step count.
    b1, b2, eps, eps_root, nesterov
        As in :func:`scale_by_adam`.

    Returns
    -------
    GradientTransformation

    Examples
    --------
    >>> import tensorad as ta
    >>> opt = adam(0.01)
    >>> ta.jit(opt.update)(np.array([3.0, -0.1]), opt.init(np.zeros(2)))[0]
    array([-0.01,  0.01])
    """
    return chain(scale_by_adam(b1, b2, eps, eps_root, nesterov=nesterov),
                 scale_by_learning_rate(learning_rate))


def adamw(learning_rate, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8, eps_root: float = 0.0,
          *, weight_decay: float = 1e-4, nesterov: bool = False) -> GradientTransformation:
    """Adam with decoupled weight decay (Loshchilov and Hutter, 2019).

    The step is ``-learning_rate * (adam_direction + weight_decay * params)``.

    Parameters
    ----------
    learning_rate : float or callable
        A constant or a schedule of the step count.
    b1, b2, eps, eps_root, nesterov
        As in :func:`scale_by_adam`.
    weight_decay : float
        The factor of :func:`add_decayed_weights`.

    Returns
    -------
    GradientTransformation

    Examples
    --------
    >>> import tensorad as ta
    >>> opt = adamw(0.1, weight_decay=0.5)
    >>> params = np.array([2.0])
    >>> ta.jit(opt.update)(np.array([1.0]), opt.init(params), params)[0]
    array([-0.2])
    """
    return chain(scale_by_adam(b1, b2, eps, eps_root, nesterov=nesterov),
                 add_decayed_weights(weight_decay), scale_by_learning_rate(learning_rate))


def rmsprop(learning_rate, decay: float = 0.9, eps: float = 1e-8, *, initial_scale: float = 0.0,
            momentum: float | None = None, nesterov: bool = False) -> GradientTransformation:
    """RMSProp (Tieleman and Hinton, 2012): :func:`scale_by_rms`, the learning rate, then momentum.

    Parameters
    ----------
    learning_rate : float or callable
        A constant or a schedule of the step count.
    decay, eps, initial_scale
        As in :func:`scale_by_rms`.
    momentum : float, optional
        Momentum applied to the scaled steps (:func:`trace`).
    nesterov : bool
        Nesterov's momentum (needs ``momentum``).

    Returns
    -------
    GradientTransformation

    Examples
    --------
    >>> import tensorad as ta
    >>> opt = rmsprop(0.01, decay=0.75, eps=0.0)
    >>> ta.jit(opt.update)(np.array([5.0]), opt.init(np.zeros(1)))[0]
    array([-0.02])
    """
    momentum = _optional_number("rmsprop", "momentum", momentum)
    if nesterov and momentum is None:
        raise ValueError("rmsprop: nesterov=True needs a momentum")
    return chain(scale_by_rms(decay, eps, initial_scale), scale_by_learning_rate(learning_rate),
                 trace(momentum, nesterov) if momentum is not None else identity())


def adagrad(learning_rate, initial_accumulator_value: float = 0.1,
            eps: float = 1e-7) -> GradientTransformation:
    """Adagrad (Duchi et al., 2011): :func:`scale_by_rss`, then the learning rate.

    Parameters
    ----------
    learning_rate : float or callable
        A constant or a schedule of the step count.
    initial_accumulator_value, eps
        As in :func:`scale_by_rss`.

    Returns
    -------
    GradientTransformation

    Examples
    --------
    >>> import tensorad as ta
    >>> opt = adagrad(1.0, initial_accumulator_value=0.0, eps=0.0)
    >>> ta.jit(opt.update)(np.array([-4.0]), opt.init(np.zeros(1)))[0]
    array([1.])
    """
    return chain(scale_by_rss(initial_accumulator_value, eps), scale_by_learning_rate(learning_rate))


def lion(learning_rate, b1: float = 0.9, b2: float = 0.99, *,
         weight_decay: float = 1e-3) -> GradientTransformation:
    """Lion (Chen et al., 2023): :func:`scale_by_lion`, decoupled weight decay, the learning rate.

    Parameters
    ----------
    learning_rate : float or callable
        A constant or a schedule of the step count (typically 3-10 times
        smaller than Adam's: every step has unit size per coordinate).
    b1, b2
        As in :func:`scale_by_lion`.
    weight_decay : float
        The factor of :func:`add_decayed_weights` (optax's default, 1e-3).

    Returns
    -------
    GradientTransformation

    Examples
    --------
    >>> import tensorad as ta
    >>> opt = lion(0.1, weight_decay=0.0)
    >>> params = np.array([1.0, 1.0])
    >>> ta.jit(opt.update)(np.array([2.0, -0.5]), opt.init(params), params)[0]
    array([-0.1,  0.1])
    """
    return chain(scale_by_lion(b1, b2), add_decayed_weights(weight_decay),
                 scale_by_learning_rate(learning_rate))


# ----------------------------------------------------------------------------
# Learning-rate schedules: functions of the int32 step count
# ----------------------------------------------------------------------------

def constant_schedule(value: float) -> Callable:
    """The schedule that is always ``value``.

    Examples
    --------
    >>> constant_schedule(0.1)(1000)
    0.1
    """
    value = _number("constant_schedule", "value", value)
    return lambda count: value


def polynomial_schedule(init_value: float, end_value: float, power: float, transition_steps: int,
                        transition_begin: int = 0) -> Callable:
    """From ``init_value`` to ``end_value`` along ``(1 - t/T)**power`` in ``transition_steps``.

    The value is ``init_value`` up to step ``transition_begin`` and ``end_value``
    after ``transition_begin + transition_steps``.

    Examples
    --------
    >>> import tensorad as ta
    >>> schedule = polynomial_schedule(1.0, 0.0, power=2, transition_steps=10)
    >>> float(ta.jit(schedule)(np.int32(5)))
    0.25
    """
    who = "polynomial_schedule"
    init_value, end_value = _number(who, "init_value", init_value), _number(who, "end_value", end_value)
    power = _number(who, "power", power)
    transition_steps = _steps(who, "transition_steps", transition_steps)
    transition_begin = _steps(who, "transition_begin", transition_begin, minimum=0)

    def schedule(count):
        count = tnp.clip(count - transition_begin, 0, transition_steps)
        return (init_value - end_value) * (1.0 - count / transition_steps) ** power + end_value

    return schedule


def linear_schedule(init_value: float, end_value: float, transition_steps: int,
                    transition_begin: int = 0) -> Callable:
    """From ``init_value`` to ``end_value`` in a straight line over ``transition_steps``.

    Examples
    --------
    >>> import tensorad as ta
    >>> float(ta.jit(linear_schedule(0.0, 1.0, transition_steps=4))(np.int32(1)))
    0.25
    """
    return polynomial_schedule(init_value, end_value, 1, transition_steps, transition_begin)


def exponential_decay(init_value: float, transition_steps: int, decay_rate: float, transition_begin: int = 0,
                      staircase: bool = False, end_value: float | None = None) -> Callable:
    """``init_value * decay_rate ** ((count - transition_begin) / transition_steps)``.

    Parameters
    ----------
    init_value : float
        The value up to ``transition_begin``.
    transition_steps : int
        Steps over which the value is multiplied by ``decay_rate`` once.
    decay_rate : float
        Positive; above 1 the value grows.
    transition_begin : int
        Steps before the decay starts.
    staircase : bool
        Decay in whole multiples of ``transition_steps``.
    end_value : float, optional
        A floor (a ceiling when ``decay_rate > 1``).

    Returns
    -------
    callable

    Examples
    --------
    >>> import tensorad as ta
    >>> schedule = exponential_decay(1.0, transition_steps=10, decay_rate=0.5, staircase=True)
    >>> float(ta.jit(schedule)(np.int32(25)))
    0.25
    """
    who = "exponential_decay"
    init_value = _number(who, "init_value", init_value)
    transition_steps = _steps(who, "transition_steps", transition_steps)
    decay_rate = _number(who, "decay_rate", decay_rate)
    if not decay_rate > 0:
        raise ValueError(f"{who}: decay_rate must be positive, got {decay_rate}")
    transition_begin = _steps(who, "transition_begin", transition_begin, minimum=0)
    end_value = _optional_number(who, "end_value", end_value)
    bound = tnp.maximum if decay_rate < 1.0 else tnp.minimum

    def schedule(count):
        steps = count - transition_begin
        exponent = steps / transition_steps
        if staircase:
            exponent = tnp.floor(exponent)
        value = tnp.where(steps <= 0, init_value, init_value * tnp.power(decay_rate, exponent))
        return value if end_value is None else bound(value, end_value)

    return schedule


def cosine_decay_schedule(init_value: float, decay_steps: int, alpha: float = 0.0,
                          exponent: float = 1.0) -> Callable:
    """Half a cosine from ``init_value`` down to ``alpha * init_value`` over ``decay_steps``, then flat.

    Examples
    --------
    >>> import tensorad as ta
    >>> float(ta.jit(cosine_decay_schedule(2.0, decay_steps=10))(np.int32(5)))
    1.0
    """
    who = "cosine_decay_schedule"
    init_value, alpha = _number(who, "init_value", init_value), _number(who, "alpha", alpha)
    exponent = _number(who, "exponent", exponent)
    decay_steps = _steps(who, "decay_steps", decay_steps)

    def schedule(count):
        count = tnp.minimum(count, decay_steps)
        cosine = 0.5 * (1.0 + tnp.cos(np.pi * count / decay_steps))
        return init_value * ((1.0 - alpha) * cosine ** exponent + alpha)

    return schedule


def join_schedules(schedules, boundaries) -> Callable:
    """Run ``schedules[i + 1]`` from step ``boundaries[i]`` on, its count restarting at 0.

    Examples
    --------
    >>> import tensorad as ta
    >>> schedule = join_schedules([constant_schedule(1.0), linear_schedule(1.0, 0.0, 10)], [5])
    >>> [float(ta.jit(schedule)(np.int32(n))) for n in (4, 5, 10)]
    [1.0, 1.0, 0.5]
    """
    schedules, boundaries = list(schedules), [int(b) for b in boundaries]
    if len(schedules) != len(boundaries) + 1:
        raise ValueError(f"join_schedules: {len(schedules)} schedules need {len(schedules) - 1} "
                         f"boundaries, got {len(boundaries)}")
    for fn in schedules:
        _check_schedule("join_schedules", "each schedule", fn)

    def schedule(count):
        value = schedules[0](count)
        for boundary, fn in zip(boundaries, schedules[1:]):
            value = tnp.where(count < boundary, value, fn(count - boundary))
        return value

    return schedule


def warmup_cosine_decay_schedule(init_value: float, peak_value: float, warmup_steps: int, decay_steps: int,
                                 end_value: float = 0.0, exponent: float = 1.0) -> Callable:
    """Linear warm-up from ``init_value`` to ``peak_value``, then cosine decay to ``end_value``.

    ``decay_steps`` counts the warm-up too: the value reaches ``end_value`` at
    step ``decay_steps``.

    Examples
    --------
    >>> import tensorad as ta
    >>> schedule = ta.jit(warmup_cosine_decay_schedule(0.0, 1.0, warmup_steps=10, decay_steps=20))
    >>> [float(schedule(np.int32(n))) for n in (5, 10, 15, 20)]
    [0.5, 1.0, 0.5, 0.0]
    """
    who = "warmup_cosine_decay_schedule"
    peak_value, end_value = _number(who, "peak_value", peak_value), _number(who, "end_value", end_value)
    warmup_steps = _steps(who, "warmup_steps", warmup_steps, minimum=0)
    # decay_steps counts the warm-up as well.
    decay_steps = _steps(who, "decay_steps", decay_steps, minimum=warmup_steps + 1)
    alpha = 0.0 if peak_value == 0.0 else end_value / peak_value
    decay = cosine_decay_schedule(peak_value, decay_steps - warmup_steps, alpha, exponent)
    if warmup_steps == 0:
        return decay
    return join_schedules([linear_schedule(init_value, peak_value, warmup_steps), decay], [warmup_steps])
