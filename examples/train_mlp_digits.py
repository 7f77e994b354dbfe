"""Train a multilayer perceptron on scikit-learn's 8x8 handwritten digits with tensorad.

Run ``python examples/train_mlp_digits.py [--epochs N]``.

The whole training step -- forward pass with dropout, softmax cross-entropy,
gradient by ``tensorad.value_and_grad`` and the Adam update of
``tensorad.optim`` -- is ONE compiled function: parameters, optimizer state and
the PRNG key go in and come out as pytrees (dicts of arrays), so a step costs
one native call. The dropout mask is a pure function of the key, so the
backward pass sees the forward's mask. The data ships with scikit-learn (no
download). The helpers here (data, the training loop) are reused by the other
training examples.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import tensorad as ta
from tensorad import nn, optim
from tensorad.nn import random

SEED = 0
DROPOUT = 0.2


def load_data(seed: int = SEED):
    """The digits as float32 pixels in [0, 1] and int64 labels, split 80/20 (stratified).

    Returns ``(x_train, y_train), (x_test, y_test)`` with ``x`` of shape (N, 64).
    """
    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int64)
    x_train, x_test, y_train, y_test = train_test_split(
        x, y, test_size=0.2, random_state=seed, stratify=y)
    return (x_train, y_train), (x_test, y_test)


def dense_init(rng, fan_in: int, fan_out: int) -> dict:
    """He-initialized weights (suited to relu) and zero biases, float32."""
    w = rng.standard_normal((fan_in, fan_out)) * np.sqrt(2.0 / fan_in)
    return {"w": w.astype(np.float32), "b": np.zeros(fan_out, np.float32)}


def make_train_step(loss_fn, optimizer: optim.GradientTransformation):
    """Compile ``(params, state, key, *batch) -> (params, state, key, loss)``.

    ``loss_fn(params, key, *batch)`` gets a fresh key split off ``key`` for its
    random layers; the gradient goes through ``optimizer`` (a
    ``tensorad.optim`` transformation, e.g. ``optim.adam(3e-3)``) and the
    parameters are updated in the same compiled function.
    """
    value_and_grad = ta.value_and_grad(loss_fn)

    @ta.jit
    def train_step(params, state, key, *batch):
        key, step_key = random.split(key)
        # Under `mpiexec -n N` each process takes 1/N of the batch and the gradients are
        # averaged over processes (data parallelism); in one process this is value_and_grad.
        on_shard = ta.data_parallel(value_and_grad, batch_argnums=range(2, 2 + len(batch)))
        loss, grads = on_shard(params, step_key, *batch)
        updates, state = optimizer.update(grads, state, params)
        return optim.apply_updates(params, updates), state, key, loss

    return train_step


def progress(prefix: str, done: int, total: int, loss: float, width: int = 30) -> None:
    """Redraw a one-line text progress bar with the running loss.

    Only a terminal shows the bar grow; a log (a pipe or a file) gets the finished line.
    """
    if done < total and not sys.stdout.isatty():
        return
    filled = width * done // total
    bar = "#" * filled + "." * (width - filled)
    end = "\n" if done == total else ""
    sys.stdout.write(f"\r{prefix} [{bar}] {done}/{total} loss {loss:.4f}{end}")
    sys.stdout.flush()


def batches(rng, n: int, batch_size: int):
    """Shuffled index batches of one epoch; the last partial batch is dropped so
    that every step has the same shapes (one compilation)."""
    order = rng.permutation(n)
    return [order[i:i + batch_size] for i in range(0, n - batch_size + 1, batch_size)]


def fit(params, loss_fn, train: tuple, epochs: int, batch_size: int,
        optimizer: optim.GradientTransformation, seed: int = SEED) -> tuple:
    """Train with ``optimizer`` on minibatches of the arrays ``train``; print the loss of each epoch.

    Returns ``(params, mean loss of each epoch)``.
    """
    train_step = make_train_step(loss_fn, optimizer)
    state, key = optimizer.init(params), random.key(seed)
    rng = np.random.default_rng(seed)
    losses = []
    for epoch in range(1, epochs + 1):
        epoch_batches = batches(rng, len(train[0]), batch_size)
        total = 0.0
        for i, index in enumerate(epoch_batches, 1):
            params, state, key, loss = train_step(params, state, key, *(a[index] for a in train))
            total += float(loss)
            progress(f"epoch {epoch:3d}/{epochs}", i, len(epoch_batches), total / i)
        losses.append(total / len(epoch_batches))
    return params, losses


def accuracy(predict, params, x: np.ndarray, y: np.ndarray) -> float:
    """Fraction of ``x`` whose highest-scoring class is the label."""
    return float(np.mean(np.argmax(ta.jit(predict)(params, x), axis=1) == y))


def mlp(params, x, dropout_key=None):
    """Logits of a 64-128-10 perceptron with relu; dropout on the hidden layer when given a key."""
    h = nn.relu(x @ params["hidden"]["w"] + params["hidden"]["b"])
    if dropout_key is not None:
        h = nn.dropout(h, DROPOUT, dropout_key)
    return h @ params["out"]["w"] + params["out"]["b"]


def mlp_loss(params, key, x, y):
    """Mean softmax cross-entropy of the labels ``y`` (training mode: with dropout)."""
    return nn.cross_entropy(mlp(params, x, key), y)


def main(epochs: int = 20) -> dict:
    """Train and evaluate; return the test accuracy, the epoch losses and the wall time."""
    start = time.perf_counter()
    train, (x_test, y_test) = load_data()
    rng = np.random.default_rng(SEED)
    params = {"hidden": dense_init(rng, 64, 128), "out": dense_init(rng, 128, 10)}
    params, losses = fit(params, mlp_loss, train, epochs, batch_size=64, optimizer=optim.adam(3e-3))
    acc = accuracy(mlp, params, x_test, y_test)
    wall = time.perf_counter() - start
    print(f"test accuracy {acc:.4f} ({len(y_test)} images); wall time {wall:.1f} s "
          "(compilation included)")
    return {"accuracy": acc, "losses": losses, "seconds": wall}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20)
    main(parser.parse_args().epochs)
