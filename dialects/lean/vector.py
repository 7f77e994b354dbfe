"""``vector`` for the MLIR bindings: no op classes; tensorad builds no ``vector`` ops in Python.

Its passes only read the names, attributes and regions of the ``vector`` ops
they walk, which every op view has; registering the generated classes of
``mlir.dialects.vector`` would cost a first compile milliseconds for nothing.
``from mlir.dialects import vector`` still registers them, for code that wants them.

Examples
--------
>>> from tensorad.dialects.lean import vector
>>> vector.__name__
'tensorad.dialects.lean.vector'
"""
