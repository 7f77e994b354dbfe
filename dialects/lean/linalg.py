"""``linalg`` for the MLIR bindings: its generated op classes and enums, without OpDSL.

Examples
--------
>>> from tensorad.dialects.lean import linalg
>>> linalg.GenericOp.OPERATION_NAME
'linalg.generic'
"""

from mlir._mlir_libs import _mlirDialectsLinalg  # noqa: F401  (the C++ side of the dialect's bindings)
from mlir.dialects._linalg_enum_gen import *  # noqa: F401,F403
from mlir.dialects._linalg_ops_gen import *  # noqa: F401,F403
from mlir.dialects._linalg_ops_gen import _Dialect  # noqa: F401
