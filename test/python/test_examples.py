"""The training examples run end to end (with fewer epochs) and learn.

Each example's ``main(epochs=...)`` is imported from ``examples/`` by path.
The thresholds are for the reduced epoch counts here; the full runs reach at
least 95% on the digits (see the examples' docstrings).
"""

from __future__ import annotations

import importlib.util
import pathlib

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def load_example(monkeypatch):
    """Import ``examples/<name>.py``; the examples import each other, so their folder joins sys.path."""
    monkeypatch.syspath_prepend(str(EXAMPLES))

    def load(name: str):
        spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return load


@pytest.mark.parametrize("name, epochs, min_accuracy", [
    ("train_mlp_digits", 8, 0.92),
    ("train_cnn_digits", 6, 0.93),
    ("train_cells_digits", 8, 0.92),
])
def test_digit_classifiers_learn(load_example, capsys, name, epochs, min_accuracy):
    result = load_example(name).main(epochs=epochs)
    assert result["accuracy"] >= min_accuracy
    assert result["losses"][-1] < 0.5 * result["losses"][0]
    out = capsys.readouterr().out
    assert f"epoch   {epochs}/{epochs} [" in out and "test accuracy" in out


def test_char_rnn_loss_goes_down_and_it_samples(load_example, capsys):
    result = load_example("train_char_rnn").main(epochs=3)
    losses = result["losses"]
    assert all(later < earlier for earlier, later in zip(losses, losses[1:])), losses
    assert result["sample"].startswith("The ") and len(result["sample"]) == 204
    assert "sample: The " in capsys.readouterr().out
