"""``tad`` for the MLIR bindings: the dialect is declared in IRDL and has no op classes.

Without a module to find, the bindings would look for one again (a failed
import) every time Python sees a ``tad`` op: hundreds of times per trace.

Examples
--------
>>> from tensorad.dialects.lean import tad
>>> tad.__name__
'tensorad.dialects.lean.tad'
"""
