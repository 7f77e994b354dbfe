"""``llvm`` for the MLIR bindings: no op classes; tensorad builds no ``llvm`` ops in Python.

Its passes only read the names, attributes and regions of the ``llvm`` ops
they walk, which every op view has; registering the generated classes of
``mlir.dialects.llvm`` would cost a first compile milliseconds for nothing.
``from mlir.dialects import llvm`` still registers them, for code that wants them.

Examples
--------
>>> from tensorad.dialects.lean import llvm
>>> llvm.__name__
'tensorad.dialects.lean.llvm'
"""
