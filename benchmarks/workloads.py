"""The workloads of the suite, each written once per framework.

A gradient workload defines its loss for tensorad, JAX and PyTorch (and its
gradient by hand in numpy where that is a fair baseline); :class:`Gradient`
turns each into one training-step function that returns the loss and the
gradients of every parameter (sorted by name). A forward workload defines
one function per framework. Every step returns a flat list of arrays so the
suite can check that all frameworks computed the same thing.

All data is float32 from a seeded generator. ``tiny=True`` shrinks every
size so the whole suite runs in seconds (the test of the suite uses it).

Examples
--------
>>> import numpy as np
>>> w = MLP(tiny=True)
>>> step = w.build("numpy", w.inputs(np.random.default_rng(0)))
>>> [a.shape for a in step()][:2]
[(), (16,)]
"""

from __future__ import annotations

import math
from typing import Callable, Optional

import numpy as np

F32 = np.float32


def _normal(rng, shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(F32)


def _dense_params(rng, widths) -> dict:
    """He-initialized ``w{i}`` of shape (in, out) and zero ``b{i}`` per layer."""
    params = {}
    for i, (n_in, n_out) in enumerate(zip(widths[:-1], widths[1:])):
        params[f"w{i:02d}"] = _normal(rng, (n_in, n_out), math.sqrt(2.0 / n_in))
        params[f"b{i:02d}"] = np.zeros(n_out, F32)
    return params


class Workload:
    """One row of the table.

    Attributes
    ----------
    key, title : str
    unit : str
        ``"ms"`` or ``"us"``: how the table shows a time.
    target : tuple (peer, factor) or None
        The issue's goal: tensorad's time at most ``factor`` times ``peer``'s.
    inner : int
        Calls per timed sample (a sample's time is divided by it).
    """

    key = title = ""
    unit = "ms"
    target: Optional[tuple] = None
    inner = 1

    def __init__(self, tiny: bool = False):
        self.tiny = tiny

    def inputs(self, rng: np.random.Generator) -> dict:
        """The workload's data: ``{"params": {...}, "args": (...)}``."""
        raise NotImplementedError

    def frameworks(self) -> tuple:
        """The frameworks this workload has an implementation for."""
        return tuple(f for f in ("tensorad", "numpy", "jax", "torch", "torch.compile")
                     if getattr(self, "_" + f.replace(".", "_"), None) is not None)

    def build(self, framework: str, data: dict) -> Callable[[], list]:
        """A zero-argument step running the workload once in ``framework``."""
        return getattr(self, "_" + framework.replace(".", "_"))(data)

    def flops(self) -> Optional[float]:
        """Floating-point operations of one step, when the table shows GFLOP/s."""
        return None


def _jax_ready(values) -> list:
    import jax
    return list(jax.block_until_ready(values))


class Gradient(Workload):
    """A loss and the gradient of every parameter, one ``value_and_grad`` step per call."""

    loss_tensorad: Callable
    loss_jax: Callable
    loss_torch: Callable
    grad_numpy: Optional[Callable] = None

    def _tensorad(self, data):
        import tensorad as ta
        step = ta.jit(ta.value_and_grad(type(self).loss_tensorad))
        params, args = data["params"], data["args"]
        names = sorted(params)

        def run():
            value, grads = step(params, *args)
            return [value, *(grads[k] for k in names)]
        return run

    def frameworks(self) -> tuple:
        names = super().frameworks()
        return names if self.grad_numpy is not None else tuple(n for n in names if n != "numpy")

    def _numpy(self, data):
        params, args = data["params"], data["args"]
        names = sorted(params)

        def run():
            value, grads = type(self).grad_numpy(params, *args)
            return [np.asarray(value), *(grads[k] for k in names)]
        return run

    def _jax(self, data):
        import jax
        import jax.numpy as jnp
        step = jax.jit(jax.value_and_grad(type(self).loss_jax))
        params = {k: jnp.asarray(v) for k, v in data["params"].items()}
        args = [jnp.asarray(a) for a in data["args"]]
        names = sorted(params)

        def run():
            value, grads = step(params, *args)
            return _jax_ready([value, *(grads[k] for k in names)])
        return run

    def _torch_step(self, data, loss: Callable):
        import torch
        params = {k: torch.from_numpy(v.copy()).requires_grad_() for k, v in data["params"].items()}
        args = [torch.from_numpy(a) for a in data["args"]]
        names = sorted(params)
        ordered = [params[k] for k in names]

        def run():
            for p in ordered:
                p.grad = None
            value = loss(params, *args)
            value.backward()
            return [value.detach(), *(p.grad for p in ordered)]
        return run

    def _torch(self, data):
        return self._torch_step(data, type(self).loss_torch)

    def _torch_compile(self, data):
        import torch
        return self._torch_step(data, torch.compile(type(self).loss_torch))


# --- W1: MLP ----------------------------------------------------------------------------

class MLP(Gradient):
    key, title = "W1", "MLP 784-512-512-10 relu, batch 128, cross-entropy"
    target = ("jax", 1.0)

    def __init__(self, tiny=False):
        super().__init__(tiny)
        self.batch, self.widths = (8, (20, 16, 16, 10)) if tiny else (128, (784, 512, 512, 10))

    def inputs(self, rng):
        params = _dense_params(rng, self.widths)
        x = _normal(rng, (self.batch, self.widths[0]))
        labels = rng.integers(0, self.widths[-1], self.batch).astype(np.int32)
        return {"params": params, "args": (x, labels)}

    @staticmethod
    def loss_tensorad(params, x, labels):
        from tensorad import nn
        n = len(params) // 2
        h = x
        for i in range(n):
            h = h @ params[f"w{i:02d}"] + params[f"b{i:02d}"]
            if i < n - 1:
                h = nn.relu(h)
        return nn.cross_entropy(h, labels)

    @staticmethod
    def loss_jax(params, x, labels):
        import jax
        import jax.numpy as jnp
        n = len(params) // 2
        h = x
        for i in range(n):
            h = h @ params[f"w{i:02d}"] + params[f"b{i:02d}"]
            if i < n - 1:
                h = jax.nn.relu(h)
        log_probs = jax.nn.log_softmax(h)
        return -jnp.mean(jnp.take_along_axis(log_probs, labels[:, None], axis=1))

    @staticmethod
    def loss_torch(params, x, labels):
        import torch.nn.functional as F
        n = len(params) // 2
        h = x
        for i in range(n):
            h = h @ params[f"w{i:02d}"] + params[f"b{i:02d}"]
            if i < n - 1:
                h = F.relu(h)
        return F.cross_entropy(h, labels.long())

    @staticmethod
    def grad_numpy(params, x, labels):
        n = len(params) // 2
        acts, h = [x], x
        for i in range(n):
            h = h @ params[f"w{i:02d}"] + params[f"b{i:02d}"]
            if i < n - 1:
                h = np.maximum(h, 0)
            acts.append(h)
        shifted = h - h.max(axis=1, keepdims=True)
        probs = np.exp(shifted)
        probs /= probs.sum(axis=1, keepdims=True)
        rows = np.arange(len(x))
        value = -np.mean(np.log(probs[rows, labels]))
        delta = probs
        delta[rows, labels] -= 1
        delta /= len(x)
        grads = {}
        for i in reversed(range(n)):
            grads[f"w{i:02d}"] = acts[i].T @ delta
            grads[f"b{i:02d}"] = delta.sum(axis=0)
            if i:
                delta = (delta @ params[f"w{i:02d}"].T) * (acts[i] > 0)
        return value, grads


# --- W2: CNN ----------------------------------------------------------------------------

class CNN(Gradient):
    key, title = "W2", "CNN conv3x3(16)-pool-conv3x3(32)-pool-dense10, batch 32x1x28x28"
    target = ("torch", 1.0)  # issue 17: the fastest peer

    def __init__(self, tiny=False):
        super().__init__(tiny)
        self.batch, self.size, self.c1, self.c2 = (2, 8, 4, 4) if tiny else (32, 28, 16, 32)

    def inputs(self, rng):
        flat = self.c2 * (self.size // 4) ** 2
        params = {"conv1_w": _normal(rng, (self.c1, 1, 3, 3), math.sqrt(2 / 9)),
                  "conv1_b": np.zeros(self.c1, F32),
                  "conv2_w": _normal(rng, (self.c2, self.c1, 3, 3), math.sqrt(2 / (9 * self.c1))),
                  "conv2_b": np.zeros(self.c2, F32),
                  "dense_w": _normal(rng, (flat, 10), math.sqrt(2 / flat)),
                  "dense_b": np.zeros(10, F32)}
        x = _normal(rng, (self.batch, 1, self.size, self.size))
        labels = rng.integers(0, 10, self.batch).astype(np.int32)
        return {"params": params, "args": (x, labels)}

    @staticmethod
    def loss_tensorad(p, x, labels):
        from tensorad import nn
        h = nn.max_pool2d(nn.relu(nn.conv2d(x, p["conv1_w"], p["conv1_b"], padding=1)), 2)
        h = nn.max_pool2d(nn.relu(nn.conv2d(h, p["conv2_w"], p["conv2_b"], padding=1)), 2)
        logits = h.reshape((h.shape[0], -1)) @ p["dense_w"] + p["dense_b"]
        return nn.cross_entropy(logits, labels)

    @staticmethod
    def loss_jax(p, x, labels):
        import jax
        import jax.numpy as jnp

        def conv(h, w, b):
            out = jax.lax.conv_general_dilated(h, w, (1, 1), ((1, 1), (1, 1)),
                                               dimension_numbers=("NCHW", "OIHW", "NCHW"))
            return out + b[None, :, None, None]

        def pool(h):
            return jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

        h = pool(jax.nn.relu(conv(x, p["conv1_w"], p["conv1_b"])))
        h = pool(jax.nn.relu(conv(h, p["conv2_w"], p["conv2_b"])))
        logits = h.reshape((h.shape[0], -1)) @ p["dense_w"] + p["dense_b"]
        log_probs = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(log_probs, labels[:, None], axis=1))

    @staticmethod
    def loss_torch(p, x, labels):
        import torch.nn.functional as F
        h = F.max_pool2d(F.relu(F.conv2d(x, p["conv1_w"], p["conv1_b"], padding=1)), 2)
        h = F.max_pool2d(F.relu(F.conv2d(h, p["conv2_w"], p["conv2_b"], padding=1)), 2)
        logits = h.reshape(h.shape[0], -1) @ p["dense_w"] + p["dense_b"]
        return F.cross_entropy(logits, labels.long())


# --- W3: RNN ----------------------------------------------------------------------------

class RNN(Gradient):
    key, title = "W3", "tanh RNN with scan, 50 steps, batch 32, input 64, hidden 256"
    target = ("jax", 1.0)  # issue 17

    def __init__(self, tiny=False):
        super().__init__(tiny)
        self.steps, self.batch, self.n_in, self.hidden = (4, 2, 8, 16) if tiny else (50, 32, 64, 256)

    def inputs(self, rng):
        params = {"w": _normal(rng, (self.hidden, self.hidden), 1 / math.sqrt(self.hidden)),
                  "u": _normal(rng, (self.n_in, self.hidden), 1 / math.sqrt(self.n_in)),
                  "b": np.zeros(self.hidden, F32)}
        xs = _normal(rng, (self.steps, self.batch, self.n_in))
        return {"params": params, "args": (xs,)}

    @staticmethod
    def loss_tensorad(p, xs):
        import tensorad.numpy as tnp
        from tensorad import lax

        def step(h, x):
            return tnp.tanh(h @ p["w"] + x @ p["u"] + p["b"]), None

        h, _ = lax.scan(step, tnp.zeros((xs.shape[1], p["w"].shape[0]), np.float32), xs)
        return tnp.sum(h * h)

    @staticmethod
    def loss_jax(p, xs):
        import jax
        import jax.numpy as jnp

        def step(h, x):
            return jnp.tanh(h @ p["w"] + x @ p["u"] + p["b"]), None

        h, _ = jax.lax.scan(step, jnp.zeros((xs.shape[1], p["w"].shape[0]), jnp.float32), xs)
        return jnp.sum(h * h)

    @staticmethod
    def loss_torch(p, xs):
        import torch
        h = torch.zeros(xs.shape[1], p["w"].shape[0])
        for x in xs:
            h = torch.tanh(h @ p["w"] + x @ p["u"] + p["b"])
        return torch.sum(h * h)

    @staticmethod
    def grad_numpy(p, xs):
        hs = [np.zeros((xs.shape[1], p["w"].shape[0]), F32)]
        for x in xs:
            hs.append(np.tanh(hs[-1] @ p["w"] + x @ p["u"] + p["b"]))
        value = np.sum(hs[-1] ** 2)
        dh = 2 * hs[-1]
        grads = {k: np.zeros_like(v) for k, v in p.items()}
        for t in reversed(range(len(xs))):
            dz = dh * (1 - hs[t + 1] ** 2)
            grads["w"] += hs[t].T @ dz
            grads["u"] += xs[t].T @ dz
            grads["b"] += dz.sum(axis=0)
            dh = dz @ p["w"].T
        return value, grads


# --- W7: transformer ---------------------------------------------------------------------

class Transformer(Gradient):
    """A pre-norm transformer encoder's training step: the squared error of its output (issue 17).

    Each layer is ``x + attention(layer_norm(x))`` then ``x + mlp(layer_norm(x))``,
    with multi-head softmax attention (no mask) and a tanh-approximated GELU MLP;
    the same program in every framework (``_layers`` with that framework's ops).
    """

    key, title = "W7", "transformer 4 layers, seq 128, width 256, 4 heads, GELU MLP 1024, batch 8"
    target = ("jax", 1.0)
    head_width = 64  # the width over the heads (4 heads of 64 at width 256)

    def __init__(self, tiny=False):
        super().__init__(tiny)
        (self.layers, self.seq, self.width, self.hidden,
         self.batch) = (1, 8, 128, 32, 2) if tiny else (4, 128, 256, 1024, 8)

    def inputs(self, rng):
        d, f = self.width, self.hidden
        params = {}
        for i in range(self.layers):
            params.update({f"l{i}_ln1_g": np.ones(d, F32), f"l{i}_ln1_b": np.zeros(d, F32),
                           f"l{i}_qkv_w": _normal(rng, (d, 3 * d), 1 / math.sqrt(d)),
                           f"l{i}_qkv_b": np.zeros(3 * d, F32),
                           f"l{i}_out_w": _normal(rng, (d, d), 1 / math.sqrt(d)), f"l{i}_out_b": np.zeros(d, F32),
                           f"l{i}_ln2_g": np.ones(d, F32), f"l{i}_ln2_b": np.zeros(d, F32),
                           f"l{i}_fc1_w": _normal(rng, (d, f), 1 / math.sqrt(d)), f"l{i}_fc1_b": np.zeros(f, F32),
                           f"l{i}_fc2_w": _normal(rng, (f, d), 1 / math.sqrt(f)), f"l{i}_fc2_b": np.zeros(d, F32)})
        x = _normal(rng, (self.batch, self.seq, d))
        target = _normal(rng, (self.batch, self.seq, d))
        return {"params": params, "args": (x, target)}

    def flops(self):
        tokens, d, f, s = self.batch * self.seq, self.width, self.hidden, self.seq
        forward = self.layers * (2 * tokens * (3 * d * d + d * d + 2 * d * f) + 4 * tokens * s * d)
        return 3 * forward  # forward, and two products back per product

    @staticmethod
    def _layers(ops, p, x, target):
        """The loss, written once: ``ops`` has the framework's ``layer_norm``, ``gelu``, ``softmax``,
        ``permute`` (numpy's ``transpose`` with axes) and ``mean``."""
        layers = len(p) // 12
        batch, seq, d = x.shape
        dh = Transformer.head_width
        heads = d // dh
        for i in range(layers):
            w = {k[len(f"l{i}_"):]: v for k, v in p.items() if k.startswith(f"l{i}_")}
            h = ops.layer_norm(x, w["ln1_g"], w["ln1_b"])
            qkv = ops.permute((h @ w["qkv_w"] + w["qkv_b"]).reshape(batch, seq, 3, heads, dh), (2, 0, 3, 1, 4))
            q, k, v = qkv[0], qkv[1], qkv[2]
            attention = ops.softmax((q @ ops.permute(k, (0, 1, 3, 2))) * (1 / math.sqrt(dh)))
            context = ops.permute(attention @ v, (0, 2, 1, 3)).reshape(batch, seq, d)
            x = x + (context @ w["out_w"] + w["out_b"])
            h = ops.layer_norm(x, w["ln2_g"], w["ln2_b"])
            x = x + (ops.gelu(h @ w["fc1_w"] + w["fc1_b"]) @ w["fc2_w"] + w["fc2_b"])
        return ops.mean((x - target) ** 2)

    @staticmethod
    def loss_tensorad(p, x, target):
        import types
        import tensorad.numpy as tnp
        from tensorad import nn
        ops = types.SimpleNamespace(layer_norm=nn.layer_norm, gelu=nn.gelu, softmax=nn.softmax,
                                    permute=tnp.transpose, mean=tnp.mean)
        return Transformer._layers(ops, p, x, target)

    @staticmethod
    def loss_jax(p, x, target):
        import types
        import jax
        import jax.numpy as jnp

        def layer_norm(h, g, b):
            mean = h.mean(-1, keepdims=True)
            var = ((h - mean) ** 2).mean(-1, keepdims=True)
            return (h - mean) * jax.lax.rsqrt(var + 1e-5) * g + b
        ops = types.SimpleNamespace(layer_norm=layer_norm, gelu=jax.nn.gelu, softmax=jax.nn.softmax,
                                    permute=jnp.transpose, mean=jnp.mean)
        return Transformer._layers(ops, p, x, target)

    @staticmethod
    def loss_torch(p, x, target):
        import types
        import torch
        import torch.nn.functional as F
        ops = types.SimpleNamespace(
            layer_norm=lambda h, g, b: F.layer_norm(h, (h.shape[-1],), g, b, 1e-5),
            gelu=lambda h: F.gelu(h, approximate="tanh"), softmax=lambda h: torch.softmax(h, -1),
            permute=torch.permute, mean=torch.mean)
        return Transformer._layers(ops, p, x, target)


# --- W4: GMM (ADBench) ---------------------------------------------------------------------

def _multigammaln(a: float, p: int) -> float:
    """log of the multivariate gamma function (scipy.special.multigammaln)."""
    return p * (p - 1) / 4 * math.log(math.pi) + sum(math.lgamma(a + (1 - j) / 2) for j in range(1, p + 1))


class GMM(Gradient):
    """ADBench's Gaussian mixture objective with a Wishart prior; gradients w.r.t. alphas, means, icf.

    ``icf`` holds per component the log of the diagonal of the inverse
    covariance's Cholesky factor ``Q`` (``d`` entries), then its strictly lower
    triangle column by column; the objective is ADBench's ``gmm_objective``,
    log-sum-exps shifted by their maximum.
    """

    key, title = "W4", "GMM objective (ADBench), d=10, k=25, n=1000"
    target = ("jax", 1.0)
    gamma, m = 1.0, 0

    def __init__(self, tiny=False):
        super().__init__(tiny)
        self.d, self.k, self.n = (3, 4, 16) if tiny else (10, 25, 1000)

    def inputs(self, rng):
        d, k = self.d, self.k
        params = {"alphas": _normal(rng, (k,)), "means": rng.random((k, d)).astype(F32),
                  "icf": rng.random((k, d * (d + 1) // 2)).astype(F32)}
        x = _normal(rng, (self.n, d))
        return {"params": params, "args": (x,)}

    @staticmethod
    def lower_triangle(d: int) -> tuple:
        """Index into ``icf`` of each entry of ``L`` (strictly lower, column-major) and its 0/1 mask."""
        index, mask = np.zeros((d, d), np.int32), np.zeros((d, d), F32)
        position = d
        for col in range(d):
            for row in range(col + 1, d):
                index[row, col], mask[row, col] = position, 1.0
                position += 1
        return index, mask

    @classmethod
    def constants(cls, n: int, d: int, k: int) -> float:
        """The terms of the objective that depend on no parameter."""
        n_w = d + cls.m + 1
        wishart = n_w * d * (math.log(cls.gamma) - 0.5 * math.log(2)) - _multigammaln(0.5 * n_w, d)
        return -n * d * 0.5 * math.log(2 * math.pi) - k * wishart

    @classmethod
    def objective(cls, xp, logsumexp, matmul_lx, p, x):
        """The objective written once over a numpy-like namespace ``xp``."""
        alphas, means, icf = p["alphas"], p["means"], p["icf"]
        n, d = x.shape
        k = alphas.shape[0]
        index, mask = cls.lower_triangle(d)
        log_diag = icf[:, :d]
        q_diag = xp.exp(log_diag)
        sum_qs = xp.sum(log_diag, axis=1)
        lower = xp.take(icf, index, axis=1) * xp.asarray(mask)      # (k, d, d)
        centered = x[:, None, :] - means[None, :, :]                # (n, k, d)
        q_centered = q_diag * centered + matmul_lx(lower, centered)
        inner = alphas + sum_qs - 0.5 * xp.sum(q_centered * q_centered, axis=2)
        slse = xp.sum(logsumexp(inner, axis=1))
        prior = xp.sum(0.5 * cls.gamma ** 2 * (xp.sum(q_diag * q_diag, axis=1)
                                                + xp.sum(icf[:, d:] * icf[:, d:], axis=1))
                       - cls.m * sum_qs)
        return cls.constants(n, d, k) + slse - n * logsumexp(alphas, axis=0) + prior

    @classmethod
    def loss_tensorad(cls, p, x):
        import tensorad.numpy as tnp
        from tensorad import nn

        def matmul_lx(lower, centered):  # (L_k x_ik)_j as a batched matmul over k
            out = tnp.matmul(centered.transpose((1, 0, 2)), lower.transpose((0, 2, 1)))
            return out.transpose((1, 0, 2))

        return cls.objective(tnp, nn.logsumexp, matmul_lx, p, x)

    @classmethod
    def loss_jax(cls, p, x):
        import jax.numpy as jnp
        from jax.scipy.special import logsumexp
        return cls.objective(jnp, logsumexp, lambda l, c: jnp.einsum("kjc,nkc->nkj", l, c), p, x)

    @classmethod
    def loss_torch(cls, p, x):
        import torch

        class _Torch:  # the numpy names the objective uses, on torch tensors
            exp, asarray = torch.exp, torch.from_numpy

            @staticmethod
            def sum(a, axis=None):
                return torch.sum(a) if axis is None else torch.sum(a, dim=axis)

            @staticmethod
            def take(a, index, axis):
                return a[:, torch.from_numpy(index).long()]

        def logsumexp(a, axis):
            return torch.logsumexp(a, dim=axis)

        return cls.objective(_Torch, logsumexp, lambda l, c: torch.einsum("kjc,nkc->nkj", l, c), p, x)


# --- W5: deep chain ----------------------------------------------------------------------

class DeepChain(Gradient):
    key, title = "W5", "deep chain 32 x (dense 1024x1024 + tanh), batch 256"
    target = ("jax", 1.0)

    def __init__(self, tiny=False):
        super().__init__(tiny)
        self.layers, self.width, self.batch = (3, 32, 8) if tiny else (32, 1024, 256)

    def inputs(self, rng):
        params = {}
        for i in range(self.layers):
            params[f"w{i:02d}"] = _normal(rng, (self.width, self.width), 1 / math.sqrt(self.width))
            params[f"b{i:02d}"] = np.zeros(self.width, F32)
        return {"params": params, "args": (_normal(rng, (self.batch, self.width)),)}

    def flops(self):
        return 3 * 2 * self.layers * self.batch * self.width ** 2  # forward, and two products back

    @staticmethod
    def _chain(tanh, mean, p, x):
        h = x
        for i in range(len(p) // 2):
            h = tanh(h @ p[f"w{i:02d}"] + p[f"b{i:02d}"])
        return mean(h * h)

    @classmethod
    def loss_tensorad(cls, p, x):
        import tensorad.numpy as tnp
        return cls._chain(tnp.tanh, tnp.mean, p, x)

    @classmethod
    def loss_jax(cls, p, x):
        import jax.numpy as jnp
        return cls._chain(jnp.tanh, jnp.mean, p, x)

    @classmethod
    def loss_torch(cls, p, x):
        import torch
        return cls._chain(torch.tanh, torch.mean, p, x)

    @staticmethod
    def grad_numpy(p, x):
        hs = [x]
        for i in range(len(p) // 2):
            hs.append(np.tanh(hs[-1] @ p[f"w{i:02d}"] + p[f"b{i:02d}"]))
        value = np.mean(hs[-1] ** 2)
        dh = 2 * hs[-1] / hs[-1].size
        grads = {}
        for i in reversed(range(len(p) // 2)):
            dz = dh * (1 - hs[i + 1] ** 2)
            grads[f"w{i:02d}"] = hs[i].T @ dz
            grads[f"b{i:02d}"] = dz.sum(axis=0)
            dh = dz @ p[f"w{i:02d}"].T
        return value, grads


# --- forward-only workloads ------------------------------------------------------------------

class Forward(Workload):
    """A function of arrays, no gradient: ``fn_<framework>`` per framework."""

    fn_tensorad: Callable
    fn_numpy: Callable
    fn_jax: Callable
    fn_torch: Callable

    def _tensorad(self, data):
        import tensorad as ta
        step, args = ta.jit(type(self).fn_tensorad), data["args"]
        return lambda: [step(*args)]

    def _numpy(self, data):
        fn, args = type(self).fn_numpy, data["args"]
        return lambda: [fn(*args)]

    def _jax(self, data):
        import jax
        import jax.numpy as jnp
        step, args = jax.jit(type(self).fn_jax), [jnp.asarray(a) for a in data["args"]]
        return lambda: [step(*args).block_until_ready()]

    def _torch(self, data):
        import torch
        fn, args = type(self).fn_torch, [torch.from_numpy(a) for a in data["args"]]
        return lambda: [fn(*args)]

    def _torch_compile(self, data):
        import torch
        fn, args = torch.compile(type(self).fn_torch), [torch.from_numpy(a) for a in data["args"]]
        return lambda: [fn(*args)]


def _product(a, b):
    return a @ b


class Matmul(Forward):
    key, title = "W6", "matmul 1024x1024x1024 (forward)"
    target = ("numpy", 1 / 0.6)  # at least 60% of numpy's GFLOP/s
    fn_tensorad = fn_numpy = fn_jax = fn_torch = staticmethod(_product)

    def __init__(self, tiny=False):
        super().__init__(tiny)
        self.n = 64 if tiny else 1024

    def inputs(self, rng):
        return {"params": {}, "args": (_normal(rng, (self.n, self.n)), _normal(rng, (self.n, self.n)))}

    def flops(self):
        return 2 * self.n ** 3


def _plus_one(x):
    return x + 1


class Dispatch(Forward):
    key, title = "dispatch", "jitted x + 1 on a 1-element array"
    unit = "us"
    target = ("jax", 2.0)
    fn_tensorad = fn_numpy = fn_jax = fn_torch = staticmethod(_plus_one)

    def __init__(self, tiny=False):
        super().__init__(tiny)
        self.inner = 10 if tiny else 200

    def inputs(self, rng):
        return {"params": {}, "args": (np.ones(1, F32),)}


class EagerDispatch(Dispatch):
    """One op called outside any transformation: tensorad's and JAX's eager modes, PyTorch's eager ops."""

    key, title = "eager", "eager sin(x) on a 1-element array (no jit)"
    target = ("jax", 1.0)  # issue 15: no slower than JAX's eager dispatch

    def _tensorad(self, data):
        import tensorad.numpy as tnp
        (x,) = data["args"]
        return lambda: [tnp.sin(x)]

    def _numpy(self, data):
        (x,) = data["args"]
        return lambda: [np.sin(x)]

    def _jax(self, data):
        import jax.numpy as jnp
        x = jnp.asarray(data["args"][0])
        return lambda: [jnp.sin(x).block_until_ready()]

    def _torch(self, data):
        import torch
        x = torch.from_numpy(data["args"][0])
        return lambda: [torch.sin(x)]

    _torch_compile = None


class PerExampleGradients(Workload):
    """Per-example gradients of an MLP's loss: ``jit(vmap(grad(loss), in_axes=(None, 0, 0)))`` (issue 15)."""

    key, title = "W8", "per-example gradients, MLP 64-128-128-10 tanh, batch 64 (jit(vmap(grad)))"
    target = ("jax", 1.2)

    def __init__(self, tiny=False):
        super().__init__(tiny)
        self.batch, self.widths = (4, (8, 6, 6, 3)) if tiny else (64, (64, 128, 128, 10))

    def inputs(self, rng):
        params = _dense_params(rng, self.widths)
        x = _normal(rng, (self.batch, self.widths[0]))
        y = _normal(rng, (self.batch, self.widths[-1]))
        return {"params": params, "args": (x, y)}

    @staticmethod
    def _loss(tanh, params, x, y):
        n = len(params) // 2
        h = x
        for i in range(n):
            h = h @ params[f"w{i:02d}"] + params[f"b{i:02d}"]
            if i < n - 1:
                h = tanh(h)
        return ((h - y) ** 2).sum()

    def _tensorad(self, data):
        import tensorad as ta
        import tensorad.numpy as tnp
        step = ta.jit(ta.vmap(ta.grad(lambda p, x, y: self._loss(tnp.tanh, p, x, y)), in_axes=(None, 0, 0)))
        params, (x, y) = data["params"], data["args"]
        names = sorted(params)
        return lambda: (lambda g: [g[k] for k in names])(step(params, x, y))

    def _jax(self, data):
        import jax
        import jax.numpy as jnp
        step = jax.jit(jax.vmap(jax.grad(lambda p, x, y: self._loss(jnp.tanh, p, x, y)), in_axes=(None, 0, 0)))
        params = {k: jnp.asarray(v) for k, v in data["params"].items()}
        x, y = (jnp.asarray(a) for a in data["args"])
        names = sorted(params)
        return lambda: _jax_ready((lambda g: [g[k] for k in names])(step(params, x, y)))

    def _torch(self, data):
        import torch
        from torch.func import grad, vmap
        step = vmap(grad(lambda p, x, y: self._loss(torch.tanh, p, x, y)), in_dims=(None, 0, 0))
        params = {k: torch.from_numpy(v) for k, v in data["params"].items()}
        x, y = (torch.from_numpy(a) for a in data["args"])
        names = sorted(params)
        return lambda: (lambda g: [g[k] for k in names])(step(params, x, y))


WORKLOADS = (MLP, CNN, RNN, GMM, DeepChain, Matmul, Dispatch, EagerDispatch, Transformer, PerExampleGradients)
