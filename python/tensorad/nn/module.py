"""Networks that own their parameters: :class:`Module` (MindSpore's ``Cell``) and :class:`Parameter`.

A module keeps its parameters as attributes: ``self.weight = Parameter(...)``
registers one, and reading ``self.weight`` gives its array (a traced array
while a transformation runs), so ``construct`` is written with plain array
code. Submodules assigned as attributes are found too:
:meth:`Module.trainable_params` lists every parameter to train, with
qualified names (``"fc1.weight"``).

A module is a pytree whose leaves are its parameters' arrays (the structure,
the names and every other attribute are static), so :func:`tensorad.jit`,
:func:`tensorad.grad` (the gradient is a module of the same structure),
:func:`tensorad.vmap` and :mod:`tensorad.optim` take it as it is.
MindSpore's interface, ``vjp(net, *inputs, weights=net.trainable_params())``
and ``grad(fn, grad_position, weights)``, is :mod:`tensorad.weights`.

Examples
--------
>>> import numpy as np, tensorad as ta
>>> from tensorad import nn
>>> class Scale(nn.Module):
...     def __init__(self):
...         super().__init__()
...         self.w = nn.Parameter(np.array([2.0, 3.0]))
...     def construct(self, x):
...         return self.w * x
>>> net = Scale()
>>> net(np.ones(2)).tolist(), [p.name for p in net.trainable_params()]
([2.0, 3.0], ['w'])
>>> ta.grad(lambda net, x: (net(x) ** 2).sum())(net, np.ones(2)).w.tolist()
[4.0, 6.0]
"""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from .. import baked, tree
from ..tracing import Tracer

class Parameter:
    """A trainable array owned by a :class:`Module` (MindSpore's ``Parameter``).

    Parameters
    ----------
    data : array_like
        The initial value (float; numpy, a Python list, or a traced array).
    name : str, optional
        A name; the owning module's attribute path names it when this is None.
    requires_grad : bool
        Whether :meth:`Module.trainable_params` lists it.

    Examples
    --------
    >>> import numpy as np
    >>> from tensorad import nn
    >>> p = nn.Parameter(np.zeros(2), name="bias")
    >>> _ = p.set_data(np.ones(2))
    >>> p.asnumpy().tolist(), p.shape
    ([1.0, 1.0], (2,))
    """

    def __init__(self, data, name: str | None = None, requires_grad: bool = True):
        self.name, self.requires_grad = name, bool(requires_grad)
        self.set_data(data)

    def set_data(self, data) -> "Parameter":
        """Replace the array (same shape and dtype as before, unless this is the first one)."""
        if not isinstance(data, Tracer):
            dtype = getattr(data, "dtype", None)
            data = np.array(data, dtype=np.float64 if dtype is None else dtype, copy=True)
            if data.dtype.kind != "f":
                raise TypeError(f"parameter {self.name or ''}: a parameter holds floats, not {data.dtype}")
        old = self.__dict__.get("_data")
        if old is not None and (tuple(old.shape), np.dtype(old.dtype)) != (tuple(data.shape), np.dtype(data.dtype)):
            raise ValueError(f"parameter {self.name}: set_data of {data.dtype}{list(data.shape)} into "
                             f"{np.dtype(old.dtype)}{list(old.shape)}")
        self._data = data
        baked.changed(self)
        return self

    @property
    def data(self):
        """The current array (a traced array while a transformation substitutes it)."""
        if not isinstance(self._data, Tracer):
            baked.note_read(self)
        return self._data

    @property
    def current(self):
        """The array this parameter stands for now, without noting a read (a trace's stand-in or the data).

        Transformations use it to save and restore what :meth:`substitute` replaces; reading it does
        not bake the value into compiled code as :attr:`data` does.
        """
        return self._data

    def substitute(self, data) -> None:
        """Let ``data`` stand for this parameter while a function is traced (no checks; not a change)."""
        self._data = data

    @property
    def shape(self) -> tuple:
        return tuple(self._data.shape)

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(self._data.dtype)

    def asnumpy(self) -> np.ndarray:
        """The value as a numpy array (a copy)."""
        return np.array(self._data)

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self._data, dtype=dtype)

    def __repr__(self):
        return f"Parameter(name={self.name}, shape={self.shape}, dtype={self.dtype.name}, " \
               f"requires_grad={self.requires_grad})"


class _ByIdentity:
    """An unhashable static attribute, compared by identity in a module's pytree structure."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, _ByIdentity) and other.value is self.value

    def __hash__(self):
        return id(self.value)

    def __repr__(self):
        return f"<{type(self.value).__name__}>"


def _static(value):
    try:
        hash(value)
    except TypeError:
        return _ByIdentity(value)
    return value


def _flatten(module: "Module"):
    params = module.__dict__["_parameters"]
    modules = module.__dict__["_modules"]
    static = tuple(sorted((k, _static(v)) for k, v in module.__dict__.items()
                          if k not in ("_parameters", "_modules")))
    aux = (tuple(params), tuple((p.name, p.requires_grad) for p in params.values()), tuple(modules), static)
    return [p.data for p in params.values()] + list(modules.values()), aux


def _unflatten(cls):
    def build(aux, children):
        names, meta, module_names, static = aux
        module = object.__new__(cls)
        for key, value in static:
            object.__setattr__(module, key, value.value if isinstance(value, _ByIdentity) else value)
        parameters = {}
        for name, (pname, requires_grad), data in zip(names, meta, children):
            parameter = object.__new__(Parameter)
            parameter.name, parameter.requires_grad = pname, requires_grad
            parameter._data = data
            parameters[name] = parameter
        object.__setattr__(module, "_parameters", parameters)
        object.__setattr__(module, "_modules", dict(zip(module_names, children[len(names):])))
        return module

    return build


class Module:
    """Base class of networks: parameters and submodules are attributes; ``construct`` is the forward.

    Subclasses call ``super().__init__()`` first, assign :class:`Parameter`
    and :class:`Module` attributes, and define ``construct(*inputs)``;
    calling the module calls it. Every subclass is a pytree node.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        tree.register_pytree_node(cls, _flatten, _unflatten(cls))

    def __init__(self):
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_modules", {})

    def _registries(self) -> tuple:
        try:
            return self.__dict__["_parameters"], self.__dict__["_modules"]
        except KeyError:
            raise AttributeError(f"{type(self).__name__}.__init__ must call super().__init__() "
                                 "before assigning attributes") from None

    def __setattr__(self, name: str, value) -> None:
        params, modules = self._registries()
        params.pop(name, None)
        modules.pop(name, None)
        self.__dict__.pop(name, None)
        if isinstance(value, Parameter):
            params[name] = value
        elif isinstance(value, Module):
            modules[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str):
        # Only reached when ordinary lookup fails: parameters and submodules live in the registries.
        params, modules = self.__dict__.get("_parameters", {}), self.__dict__.get("_modules", {})
        if name in params:
            return params[name].data
        if name in modules:
            return modules[name]
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def __delattr__(self, name: str) -> None:
        params, modules = self._registries()
        if params.pop(name, None) is None and modules.pop(name, None) is None:
            object.__delattr__(self, name)

    def construct(self, *inputs):
        """The forward computation; subclasses define it."""
        raise NotImplementedError(f"{type(self).__name__} defines no construct()")

    def __call__(self, *inputs, **kwargs):
        return self.construct(*inputs, **kwargs)

    def parameters_and_names(self, prefix: str = "") -> Iterator[tuple]:
        """``(qualified name, Parameter)`` for every parameter, this module's first, then each submodule's."""
        params, modules = self._registries()
        for name, parameter in params.items():
            qualified = f"{prefix}{name}"
            if parameter.name is None:
                parameter.name = qualified
            yield qualified, parameter
        for name, module in modules.items():
            yield from module.parameters_and_names(f"{prefix}{name}.")

    def get_parameters(self) -> Iterator[Parameter]:
        """Every parameter (MindSpore's name)."""
        return (p for _, p in self.parameters_and_names())

    def trainable_params(self) -> list:
        """The parameters with ``requires_grad``, in order (MindSpore's ``weights``)."""
        return [p for p in self.get_parameters() if p.requires_grad]

    def untrainable_params(self) -> list:
        """The parameters without ``requires_grad``."""
        return [p for p in self.get_parameters() if not p.requires_grad]

    def cells_and_names(self, prefix: str = "") -> Iterator[tuple]:
        """``(qualified name, Module)`` for this module (name ``prefix``) and every submodule."""
        yield prefix, self
        for name, module in self._registries()[1].items():
            yield from module.cells_and_names(f"{prefix}.{name}" if prefix else name)

    def __repr__(self):
        inner = ", ".join(f"{name}={type(m).__name__}" for name, m in self._registries()[1].items())
        return f"{type(self).__name__}({inner})"


tree.register_pytree_node(Module, _flatten, _unflatten(Module))
Cell = Module  # MindSpore's name


def parameters_of(obj: Any) -> list:
    """The parameters of a module (every one, in order), or [] for anything else."""
    return list(obj.get_parameters()) if isinstance(obj, Module) else []
