"""IR that reads like the user's code: function names and argument order in every stage, file:line in errors."""

import importlib.util
import re
import shutil
import sys

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp
from tensorad.compiler import STAGES
from tensorad.errors import TracingError

W, X = np.ones((3, 2)), np.ones((4, 3))


def loss(w, x):
    return tnp.sum(tnp.tanh(x @ w) ** 2)


def signature(text: str, name: str) -> str:
    """The argument list of ``@name`` in ``text`` (func or llvm dialect)."""
    found = re.search(rf"func @{name}\((.*?)\) ", text)
    assert found, f"no function @{name} in:\n{text}"
    return found.group(1)


@pytest.mark.parametrize("stage", [name for name, _ in STAGES])
def test_entry_keeps_the_users_name_and_argument_order(stage):
    text = ta.jit(loss).lower(W, X).as_text(stage)
    assert "@main" not in text
    args = signature(text, "loss")
    if stage != "llvm":  # in LLVM each tensor is spread over pointers and sizes
        assert re.search(r"3x2xf64.*4x3xf64", args), args


def test_a_lambda_is_named_after_its_line():
    square = lambda x: x * x  # noqa: E731
    text = ta.jit(square).lower(X).as_text("tad")
    assert f"func.func @lambda_L{square.__code__.co_firstlineno}(" in text


def test_derivatives_are_named_after_the_function():
    text = ta.jit(ta.grad(loss)).lower(W, X).as_text("tad")
    assert {"@grad_loss", "@loss", "@loss_vjp"} <= set(re.findall(r"@\w+", text))
    assert "tad.vjp = {of = @loss," in text
    assert "@grad_loss" in ta.jit(ta.grad(loss)).lower(W, X).as_text("llvm")


def test_two_functions_of_one_name_get_distinct_symbols():
    def scaled(scale):
        def loss(x):
            return tnp.sum(x * scale)
        return loss

    two, three = scaled(2.0), scaled(3.0)

    def total(x):
        return ta.grad(two)(x) + ta.grad(three)(x)

    text = ta.jit(total).lower(np.ones(2)).as_text("tad")
    defined = re.findall(r"func.func (?:private )?@(\w+)", text)
    assert sorted(defined) == sorted(["total", "loss", "loss_vjp", "loss_2", "loss_2_vjp"])
    np.testing.assert_allclose(ta.jit(total)(np.ones(2)), [5.0, 5.0])


def test_nested_gradients_have_unique_names():
    def cube(x):
        return x ** 3

    text = ta.jit(ta.grad(ta.grad(cube))).lower(2.0).as_text("tad")
    defined = re.findall(r"func.func (?:private )?@(\w+)", text)
    assert len(defined) == len(set(defined)) and "cube" in defined and "cube_vjp" in defined
    assert ta.grad(ta.grad(cube))(2.0) == 12.0


def test_names_stay_short_however_many_functions_were_traced():
    for _ in range(3):
        assert "func.func @loss(" in ta.jit(loss).lower(W, X).as_text("tad")


def test_an_entry_named_like_a_c_function_does_not_replace_it():
    def tanh(x):  # compiled code calls libm's tanh; the entry must not take its place
        return tnp.tanh(x)

    lowered = ta.jit(tanh).lower(np.ones(3))
    assert lowered.entry == "tanh_2"
    np.testing.assert_allclose(ta.jit(tanh)(np.ones(3)), np.tanh(np.ones(3)))


@pytest.mark.skipif(not shutil.which("cc") and not shutil.which("gcc"), reason="export links with a C compiler")
def test_export_under_the_functions_own_name(tmp_path):
    def twice(x):
        return x * 2.0

    folder = ta.jit(twice).lower(np.ones(3)).compile().export(tmp_path / "twice")
    spec = importlib.util.spec_from_file_location("twice_loader", folder / "twice.py")
    loader = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loader)
    np.testing.assert_allclose(loader.twice(np.ones(3)), [2.0, 2.0, 2.0])


def here() -> str:
    """``file:line`` of the caller, as error messages show it."""
    frame = sys._getframe(1)
    return f"{re.escape(frame.f_code.co_filename)}:{frame.f_lineno + 1}: "


def test_shape_error_message_starts_with_the_users_line():
    where = here()
    matmul = lambda a, b: tnp.matmul(a, b)  # noqa: E731
    with pytest.raises(TracingError, match=rf"^{where}matmul: contracting dimensions differ: \(3, 4\) @ \(3, 4\)$"):
        ta.jit(matmul)(np.ones((3, 4)), np.ones((3, 4)))


def test_operator_error_names_the_line_inside_a_branch():
    def f(p, x):
        where[0] = here()
        return ta.lax.cond(p, lambda x: (tnp.sin(x) @ x).sum(), lambda x: x.sum(), x)

    where = [None]
    with pytest.raises(TracingError) as info:
        ta.jit(f)(True, np.ones((3, 4)))
    assert re.match(rf"{where[0]}matmul: contracting dimensions differ", str(info.value)), str(info.value)


def test_dtype_error_message_starts_with_the_users_line():
    def negate(x):
        where[0] = here()
        return -x

    where = [None]
    with pytest.raises(TypeError) as info:
        ta.jit(negate)(np.array([True, False]))
    assert re.match(rf"{where[0]}negative of a bool array is not supported", str(info.value)), str(info.value)


def test_the_users_own_errors_are_left_alone():
    def body(i, x):
        raise ValueError("my own message")

    with pytest.raises(ValueError, match="^my own message$"):
        ta.jit(lambda x: ta.lax.fori_loop(0, 2, body, x))(np.ones(2))
