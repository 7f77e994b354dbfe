"""Every docstring example in the tensorad package runs and shows what it claims."""

import doctest
import importlib
import inspect
import pkgutil

import pytest


# The distribution is assembled from several folders (package-dir), so each
# top-level subpackage is walked from its own location.
PACKAGES = ("tensorad", "tensorad.dialects", "tensorad.passes", "tensorad.tools")


def _modules():
    names = set()
    for package in PACKAGES:
        module = importlib.import_module(package)
        names.add(package)
        names.update(info.name for info in pkgutil.walk_packages(module.__path__, package + "."))
    return sorted(names)


class _UnwrappingFinder(doctest.DocTestFinder):
    """Also finds the examples of decorated functions (``emits_ops`` wrappers live in tracing.py)."""

    def _from_module(self, module, object):
        return super()._from_module(module, inspect.unwrap(object))


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name):
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in _UnwrappingFinder().find(module, name):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} docstring example(s) of {name} failed"
