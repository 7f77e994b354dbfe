"""Train a network that owns its parameters (``tensorad.nn.Module``) as a MindSpore user would.

Run ``python examples/train_cells_digits.py [--epochs N]``.

The network is a ``nn.SequentialCell`` of ``nn.Dense`` layers; the loop is
MindSpore's: ``forward_fn(data, label)`` returns the loss and the logits,
``ta.value_and_grad(forward_fn, None, weights, has_aux=True)`` gives the
gradients of ``weights = net.trainable_params()``, and an Adam update
(``tensorad.optim``, one compiled function) writes the new values back with
``Parameter.set_data``. The gradient function is compiled once: the weights
are arguments of the compiled code, read afresh at every step.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import tensorad as ta
from tensorad import nn, optim
from train_mlp_digits import SEED, batches, load_data, progress


def make_net(seed: int = SEED) -> nn.Module:
    """A 64-128-10 perceptron with relu, float32."""
    return nn.SequentialCell(nn.Dense(64, 128, dtype=np.float32, seed=seed), nn.ReLU(),
                             nn.Dense(128, 10, dtype=np.float32, seed=seed + 1))


def main(epochs: int = 20, batch_size: int = 64) -> dict:
    """Train and evaluate; return the test accuracy, the epoch losses and the wall time."""
    start = time.perf_counter()
    (x_train, y_train), (x_test, y_test) = load_data()
    net = make_net()
    weights = net.trainable_params()

    def forward_fn(data, label):
        logits = net(data)
        return nn.cross_entropy(logits, label), logits

    grad_fn = ta.value_and_grad(forward_fn, None, weights, has_aux=True)
    optimizer = optim.adam(3e-3)
    state = optimizer.init([w.asnumpy() for w in weights])

    @ta.jit
    def update(values, grads, state):
        updates, state = optimizer.update(list(grads), state, values)
        return optim.apply_updates(values, updates), state

    rng, losses = np.random.default_rng(SEED), []
    for epoch in range(1, epochs + 1):
        epoch_batches, total = batches(rng, len(x_train), batch_size), 0.0
        for i, index in enumerate(epoch_batches, 1):
            (loss, _), grads = grad_fn(x_train[index], y_train[index])
            values, state = update([w.asnumpy() for w in weights], grads, state)
            for w, value in zip(weights, values):
                w.set_data(value)
            total += float(loss)
            progress(f"epoch {epoch:3d}/{epochs}", i, len(epoch_batches), total / i)
        losses.append(total / len(epoch_batches))
    accuracy = float(np.mean(np.argmax(net(x_test), axis=1) == y_test))
    wall = time.perf_counter() - start
    print(f"test accuracy {accuracy:.3f} after {epochs} epochs ({wall:.1f} s)")
    return {"accuracy": accuracy, "losses": losses, "seconds": wall}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20)
    main(parser.parse_args().epochs)
