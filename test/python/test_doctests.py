"""Every docstring example in the tensorad package runs and shows what it claims."""

import doctest
import importlib
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


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} docstring example(s) of {name} failed"
