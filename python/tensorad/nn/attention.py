"""Scaled dot-product attention in ``jax.nn``'s ``[B]TNH`` layout, as its ``implementation='xla'``.

``softmax(scale * q k^T + bias, masked) v`` over the key axis, with grouped
heads (each key/value head serves ``N // K`` query heads), boolean masks, a
causal mask, a local window and per-batch sequence lengths, all combined into
one mask. Masked logits become a large negative finite number (not ``-inf``),
so a row with every key masked averages the values instead of giving NaN.

Examples
--------
>>> import numpy as np, tensorad as ta
>>> q = k = np.zeros((1, 2, 1, 4))
>>> v = np.arange(2.0).reshape(1, 2, 1, 1) * np.ones(4)
>>> ta.jit(lambda q, k, v: dot_product_attention(q, k, v, is_causal=True))(q, k, v)[0, :, 0, 0]
array([0. , 0.5])
"""

from __future__ import annotations

import numpy as np

from .. import numpy as tnp
from ..autodiff import stop_gradient
from ..tracing import emits_ops
from .activations import logsumexp, softmax


def _as_batched(t):
    """``t`` with leading axes of size 1 up to rank 4 (a ``TNH`` array is one batch)."""
    t = tnp.asarray(t)
    return tnp.reshape(t, (1,) * (4 - t.ndim) + t.shape) if t.ndim < 4 else t


def _check(t, shape, dtype, name: str) -> None:
    """Raise ``ValueError`` unless ``t`` has ``shape`` (-1: any size) and ``dtype`` (None: any)."""
    if t.ndim != len(shape):
        raise ValueError(f"dot_product_attention: {name} should have {len(shape)} dimensions, got {t.ndim}")
    if dtype is not None and t.dtype != dtype:
        raise ValueError(f"dot_product_attention: {name}'s dtype should be {np.dtype(dtype)}, got {t.dtype}")
    if any(want not in (-1, got) for want, got in zip(shape, t.shape)):
        raise ValueError(f"dot_product_attention: {name}'s shape should be {tuple(shape)} (-1: any), "
                         f"got {t.shape}")


def _grouped(t, heads: int, groups: int):
    """A ``(B, N, T, S)`` bias or mask as ``(B, K, G, T, S)``, the grouped heads' layout (``N = 1`` broadcasts)."""
    batch, n, rows, columns = t.shape
    if n == 1:
        return tnp.reshape(t, (batch, 1, 1, rows, columns))
    if n != heads * groups:
        raise ValueError(f"dot_product_attention: a bias or mask has {n} heads, the query {heads * groups}")
    return tnp.reshape(t, (batch, heads, groups, rows, columns))


def _allowed(mask, is_causal, query_lengths, key_lengths, local_window_size, query_len: int, key_len: int):
    """Which logits of ``(B, K, G, T, S)`` take part (broadcastable to it), or None for all."""
    query_pos = tnp.arange(query_len)[:, None]
    key_pos = tnp.arange(key_len)[None, :]
    allowed = [] if mask is None else [mask]
    if is_causal:
        allowed.append(key_pos <= query_pos)
    if local_window_size is not None:
        left, right = local_window_size
        allowed.append((query_pos <= key_pos + left) & (query_pos >= key_pos - right))
    if query_lengths is not None:
        allowed.append((query_pos < query_lengths[:, None, None])[:, None, None])
    if key_lengths is not None:
        allowed.append((key_pos < key_lengths[:, None, None])[:, None, None])
    if not allowed:
        return None
    combined = allowed[0]
    for more in allowed[1:]:
        combined = combined & more
    return combined


@emits_ops
def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None, is_causal: bool = False,
                          query_seq_lengths=None, key_value_seq_lengths=None, local_window_size=None,
                          implementation=None, return_residual: bool = False):
    """Scaled dot-product attention, as ``jax.nn.dot_product_attention(..., implementation='xla')``.

    Parameters
    ----------
    query : array of shape ``(B, T, N, H)`` or ``(T, N, H)``
    key, value : arrays of shape ``(B, S, K, H)`` or ``(S, K, H)``
        Of the query's dtype; ``N`` must be a multiple of ``K`` (grouped-query attention).
    bias : array broadcastable to ``(B, N, T, S)``, optional
        Added to the scaled logits.
    mask : bool array broadcastable to ``(B, N, T, S)``, optional
        The logits to keep.
    scale : float, optional
        Of the logits; ``1 / sqrt(H)`` by default.
    is_causal : bool
        Query ``t`` attends to keys ``s <= t`` only.
    query_seq_lengths, key_value_seq_lengths : int32 arrays of shape ``(B,)``, optional
        The valid lengths of each batch's queries and keys; the outputs of
        padding queries are 0.
    local_window_size : int or (int, int), optional
        Query ``t`` attends to keys ``t - left <= s <= t + right``.
    implementation : {None, "xla"}
        ``"cudnn"`` (a GPU kernel) is not available.
    return_residual : bool
        Also return the log-sum-exp of each query's logits, ``(B, T, N)``.

    Returns
    -------
    array of the query's shape, or the pair with the residual

    Raises
    ------
    ValueError
        Shapes or dtypes that do not fit, or an unknown ``implementation``.
    NotImplementedError
        ``implementation="cudnn"``.

    Notes
    -----
    The logits and the softmax are computed in the query's dtype promoted to
    at least float32, as JAX's; JAX also rounds float64 logits to float32
    for the softmax, where this keeps float64.

    Examples
    --------
    >>> import numpy as np
    >>> q, k = np.ones((1, 2, 1, 1)), np.array([1.0, 0.0]).reshape(1, 2, 1, 1)
    >>> v = np.array([10.0, 20.0]).reshape(1, 2, 1, 1)
    >>> dot_product_attention(q, k, v, scale=np.log(3.0))[0, :, 0, 0]
    array([12.5, 12.5])
    """
    if implementation == "cudnn":
        raise NotImplementedError("dot_product_attention: implementation='cudnn' (a cuDNN kernel) is not "
                                  "available in tensorad; use implementation=None or 'xla'")
    if implementation not in (None, "xla"):
        raise ValueError(f"dot_product_attention: unknown implementation {implementation!r}")
    output_shape = tnp.asarray(query).shape
    query, key, value = _as_batched(query), _as_batched(key), _as_batched(value)
    batch, key_len, kv_heads, width = key.shape
    _check(value, (batch, key_len, kv_heads, width), key.dtype, "value")
    _check(query, (batch, -1, -1, width), key.dtype, "query")
    query_len, heads = query.shape[1], query.shape[2]
    if heads % kv_heads:
        raise ValueError(f"dot_product_attention: the number of query heads ({heads}) must be a multiple "
                         f"of the number of key/value heads ({kv_heads})")
    groups = heads // kv_heads
    if bias is not None:
        bias = _grouped(_as_batched(bias), kv_heads, groups)
    if mask is not None:
        mask = _as_batched(mask)
        _check(mask, (-1,) * 4, np.bool_, "mask")
        mask = _grouped(mask, kv_heads, groups)
    lengths = []
    for name, length in (("query_seq_lengths", query_seq_lengths), ("key_value_seq_lengths", key_value_seq_lengths)):
        if length is not None:
            length = tnp.asarray(length)
            _check(length, (batch,), np.int32, name)
        lengths.append(length)
    query_lengths, key_lengths = lengths
    if isinstance(local_window_size, int):
        local_window_size = (local_window_size, local_window_size)

    logits_dtype = tnp.promote_types(query.dtype, np.float32)
    grouped_query = tnp.reshape(query, (batch, query_len, kv_heads, groups, width))
    logits = tnp.einsum("BTKGH,BSKH->BKGTS", grouped_query, key, preferred_element_type=logits_dtype)
    logits = logits * tnp.asarray(1.0 / np.sqrt(width) if scale is None else scale).astype(logits_dtype)
    if bias is not None:
        logits = (logits + bias).astype(logits_dtype)
    allowed = _allowed(mask, is_causal, query_lengths, key_lengths, local_window_size, query_len, key_len)
    if allowed is not None:
        # JAX's finite stand-in for -inf, within float32's range: a fully masked row stays finite.
        large_negative = -0.7 * min(np.finfo(logits_dtype).max, np.finfo(np.float32).max)
        logits = tnp.where(allowed, logits, np.asarray(large_negative, logits_dtype))
    probabilities = softmax(logits, axis=-1).astype(key.dtype)
    encoded = tnp.einsum("BKGTS,BSKH->BTKGH", probabilities, value)
    encoded = tnp.reshape(encoded, (batch, query_len, heads, width))
    if query_lengths is not None:
        valid_query = tnp.arange(query_len)[None, :] < query_lengths[:, None]
        encoded = encoded * valid_query[:, :, None, None].astype(encoded.dtype)
    encoded = tnp.reshape(encoded, output_shape)
    if not return_residual:
        return encoded
    # (B, K, G, T) -> (B, T, K, G) -> (B, T, N): the query's layout without H.
    residual = tnp.transpose(logsumexp(logits, axis=-1).astype(key.dtype), (0, 3, 1, 2))
    residual = tnp.reshape(residual, (batch, query_len, heads))
    return encoded, stop_gradient(tnp.reshape(residual, output_shape[:-1]))
