"""Control flow and calls: ``scf`` loops and branches, ``func.call``, and the tensor ops they carry.

Upstream declares these ops; their records here hold traits and the
derivative rules that need no sweep of a region.
"""

from __future__ import annotations

from ..record import Family, Trait

family = Family("control_flow")
