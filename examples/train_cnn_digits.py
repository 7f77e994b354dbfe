"""Train a small convolutional network on scikit-learn's 8x8 handwritten digits with tensorad.

Run ``python examples/train_cnn_digits.py [--epochs N]``.

The images are read as 1x8x8 NCHW arrays:
conv 3x3 (16 channels, padding 1), relu, 2x2 max-pool -> 16x4x4;
conv 3x3 (32 channels, padding 1), relu, 2x2 max-pool -> 32x2x2;
dropout, dense 128 -> 10, softmax cross-entropy. The convolutions and pools
are single ``tad`` ops whose gradients are their backward ops; as in
``train_mlp_digits.py`` (whose data and training loop this reuses),
gradient and Adam update (``tensorad.optim.adam``) form one compiled step.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from tensorad import nn, optim

from train_mlp_digits import DROPOUT, SEED, accuracy, dense_init, fit, load_data


def conv_init(rng, in_channels: int, out_channels: int, size: int = 3) -> dict:
    """He-initialized OIHW filters and zero biases, float32."""
    fan_in = in_channels * size * size
    w = rng.standard_normal((out_channels, in_channels, size, size)) * np.sqrt(2.0 / fan_in)
    return {"w": w.astype(np.float32), "b": np.zeros(out_channels, np.float32)}


def as_images(x: np.ndarray) -> np.ndarray:
    """(N, 64) pixel rows as (N, 1, 8, 8) images."""
    return x.reshape(-1, 1, 8, 8)


def cnn(params, images, dropout_key=None):
    """Class logits of NCHW ``images``; dropout before the dense layer when given a key."""
    h = images
    for layer in ("conv1", "conv2"):
        h = nn.conv2d(h, params[layer]["w"], params[layer]["b"], padding=1)
        h = nn.max_pool2d(nn.relu(h), 2)
    h = h.reshape(h.shape[0], -1)
    if dropout_key is not None:
        h = nn.dropout(h, DROPOUT, dropout_key)
    return h @ params["out"]["w"] + params["out"]["b"]


def cnn_loss(params, key, images, labels):
    """Mean softmax cross-entropy of the labels (training mode: with dropout)."""
    return nn.cross_entropy(cnn(params, images, key), labels)


def main(epochs: int = 15) -> dict:
    """Train and evaluate; return the test accuracy, the epoch losses and the wall time."""
    start = time.perf_counter()
    (x_train, y_train), (x_test, y_test) = load_data()
    rng = np.random.default_rng(SEED)
    params = {"conv1": conv_init(rng, 1, 16), "conv2": conv_init(rng, 16, 32),
              "out": dense_init(rng, 32 * 2 * 2, 10)}
    params, losses = fit(params, cnn_loss, (as_images(x_train), y_train), epochs,
                         batch_size=64, optimizer=optim.adam(3e-3))
    acc = accuracy(cnn, params, as_images(x_test), y_test)
    wall = time.perf_counter() - start
    print(f"test accuracy {acc:.4f} ({len(y_test)} images); wall time {wall:.1f} s "
          "(compilation included)")
    return {"accuracy": acc, "losses": losses, "seconds": wall}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=15)
    main(parser.parse_args().epochs)
