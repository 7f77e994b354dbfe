"""Train a character-level recurrent network on a small text with tensorad, then sample from it.

Run ``python examples/train_char_rnn.py [--epochs N]``.

The network reads ``examples/data/harbor_town.txt`` (original prose written
for this example) in windows of ``SEQ_LEN`` characters and learns to predict
each next character. The recurrence is one ``tensorad.lax.scan`` (an
``scf.for`` loop in the IR), differentiated through by the compiler
(truncated backpropagation through time: each window starts from a zero
state). Dropout on the states feeding the readout draws its masks from a
PRNG key threaded through the step. As in the digits examples, the gradient,
gradient clipping and the Adam update (``optim.chain(optim.clip_by_global_norm,
optim.adam)``) form one compiled step.
"""

from __future__ import annotations

import argparse
import pathlib
import time

import numpy as np

import tensorad as ta
import tensorad.numpy as tnp
from tensorad import lax, nn, optim

from train_mlp_digits import SEED, dense_init, fit

TEXT = pathlib.Path(__file__).with_name("data") / "harbor_town.txt"
SEQ_LEN, STRIDE, HIDDEN, DROPOUT = 48, 8, 128, 0.3


def load_text(path=TEXT, held_out: float = 0.1):
    """The characters as int64 ids; returns ``(vocabulary, train ids, held-out ids)``.

    The held-out part is the end of the text: the network never sees it in training.
    """
    text = pathlib.Path(path).read_text()
    vocabulary = sorted(set(text))
    ids = np.array([vocabulary.index(c) for c in text], np.int64)
    split = int(len(ids) * (1.0 - held_out))
    return vocabulary, ids[:split], ids[split:]


def windows(ids: np.ndarray, stride: int):
    """Overlapping windows of ``SEQ_LEN + 1`` ids as (inputs, next-character targets)."""
    starts = np.arange(0, len(ids) - SEQ_LEN - 1, stride)
    chunks = ids[starts[:, None] + np.arange(SEQ_LEN + 1)]
    return chunks[:, :-1], chunks[:, 1:]


def init_params(rng, vocab_size: int) -> dict:
    """An Elman network: input embedding, recurrent matrix (scaled orthogonal), readout."""
    recurrent, _ = np.linalg.qr(rng.standard_normal((HIDDEN, HIDDEN)))
    return {"embed": (rng.standard_normal((vocab_size, HIDDEN)) * 0.1).astype(np.float32),
            "recurrent": (0.9 * recurrent).astype(np.float32),
            "bias": np.zeros(HIDDEN, np.float32),
            "out": dense_init(rng, HIDDEN, vocab_size)}


def cell(params, h, x_projected):
    """One step of the recurrence: ``h' = tanh(x W_in + h W_rec + b)``."""
    return tnp.tanh(x_projected + h @ params["recurrent"] + params["bias"])


def readout(params, h):
    """Next-character logits from hidden states."""
    return h @ params["out"]["w"] + params["out"]["b"]


def logits(params, inputs, dropout_key=None):
    """Next-character logits of shape (batch, time, vocabulary) for int ids (batch, time).

    With a key, dropout is applied to the states on their way to the readout
    (not on the recurrent path, after Zaremba et al., 2014).
    """
    # The embedding lookup is the input projection of a one-hot character, done
    # for all steps at once; the loop carries only the recurrent part.
    projected = tnp.swapaxes(nn.embedding(inputs, params["embed"]), 0, 1)  # time-major
    h0 = tnp.zeros((inputs.shape[0], HIDDEN), tnp.float32)
    _, states = lax.scan(lambda h, x: (cell(params, h, x),) * 2, h0, projected)
    if dropout_key is not None:
        states = nn.dropout(states, DROPOUT, dropout_key)
    return readout(params, tnp.swapaxes(states, 0, 1))


def loss_fn(params, key, inputs, targets):
    """Mean cross-entropy of every next character in the batch (training mode: with dropout)."""
    z = logits(params, inputs, key)
    return nn.cross_entropy(tnp.reshape(z, (-1, z.shape[-1])), tnp.ravel(targets))


def evaluate(params, inputs, targets) -> tuple:
    """Held-out ``(mean cross-entropy, next-character accuracy)``."""
    z = ta.jit(logits)(params, inputs)
    loss = ta.jit(lambda z, t: nn.cross_entropy(z, t))(np.swapaxes(z, 1, 2), targets)
    return float(loss), float(np.mean(np.argmax(z, axis=-1) == targets))


def next_character(params, h, char):
    """One step for generation: the new state and the logits of the character after ``char``."""
    h = cell(params, h, nn.embedding(char, params["embed"]))
    return h, readout(params, h)


def sample(params, vocabulary, prompt: str, length: int, temperature: float = 0.7,
           seed: int = SEED) -> str:
    """Continue ``prompt`` by ``length`` characters drawn from the network."""
    step = ta.jit(next_character)
    rng = np.random.default_rng(seed)
    ids = [vocabulary.index(c) for c in prompt]
    h = np.zeros((1, HIDDEN), np.float32)
    for char in ids[:-1]:  # read the prompt
        h, _ = step(params, h, np.array([char]))
    while len(ids) < len(prompt) + length:
        h, z = step(params, h, np.array([ids[-1]]))
        p = np.exp((z[0] - z[0].max()) / temperature)
        ids.append(int(rng.choice(len(p), p=p / p.sum())))
    return "".join(vocabulary[i] for i in ids)


def main(epochs: int = 10) -> dict:
    """Train, report held-out loss and accuracy, print a sample; return the numbers."""
    start = time.perf_counter()
    vocabulary, train_ids, test_ids = load_text()
    rng = np.random.default_rng(SEED)
    params = init_params(rng, len(vocabulary))
    optimizer = optim.chain(optim.clip_by_global_norm(1.0), optim.adam(3e-3))
    params, losses = fit(params, loss_fn, windows(train_ids, STRIDE), epochs, batch_size=32,
                         optimizer=optimizer)
    test_loss, test_acc = evaluate(params, *windows(test_ids, SEQ_LEN))
    wall = time.perf_counter() - start
    print(f"held-out loss {test_loss:.3f}, next-character accuracy {test_acc:.4f}; "
          f"wall time {wall:.1f} s (compilation included)")
    text = sample(params, vocabulary, "The ", 200)
    print("sample:", text)
    return {"accuracy": test_acc, "losses": losses, "test_loss": test_loss, "sample": text,
            "seconds": wall}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=10)
    main(parser.parse_args().epochs)
