"""Elementwise ``arith`` and ``math`` ops on tensors (and scalars).

Upstream declares these ops; their records here hold what tensorad adds:
traits, folds and derivative rules.
"""

from __future__ import annotations

from ..record import Family, Trait

family = Family("elementwise")
