"""Buffers and devices: the upstream ``memref`` and ``gpu`` ops the lowering produces.

tensorad adds no rules to these ops; their records say what the late passes
need to know. A view (``memref.subview``) shares its source's storage, so
``tad-free-after-last-use`` keeps the source alive while the view is; every
other op here touches memory or a device, so rematerialization never
recomputes a region that holds one. The names come from the bindings'
generated op classes, so a new upstream op is known without a list to update.

Examples
--------
>>> from tensorad.dialects.record import has_trait
>>> has_trait("memref.subview", Trait.VIEW), has_trait("memref.store", Trait.SIDE_EFFECTS)
(True, True)
>>> has_trait("gpu.launch", Trait.SIDE_EFFECTS)
True
"""

from __future__ import annotations

from mlir.dialects import _gpu_ops_gen, _memref_ops_gen

from ..record import Family, Trait, operation_names

family = Family("memory")

# The memref ops whose result aliases their operand's storage.
for _name in ("memref.subview", "memref.cast", "memref.collapse_shape", "memref.expand_shape",
              "memref.reinterpret_cast", "memref.extract_strided_metadata", "memref.view",
              "memref.transpose", "memref.reshape", "memref.memory_space_cast"):
    family.upstream(_name, traits=(Trait.VIEW,))
for _name in operation_names(_memref_ops_gen) + operation_names(_gpu_ops_gen):
    if _name not in family.names:
        family.upstream(_name, traits=(Trait.SIDE_EFFECTS,))
