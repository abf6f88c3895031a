"""The GPU counts a system's figures are divided by."""

from __future__ import annotations

from cmpc.ir import model as ir


def gpu_count(system: ir.System) -> int | None:
    """The GPUs a system runs on: from its parallelism when declared, else its stated count."""
    if system.parallel.declared:
        return system.parallel.gpus
    return system.count


def gpus_per_node(system: ir.System) -> float | None:
    """The system's GPUs over its nodes (E125 holds a declared `gpus_per_node` to it)."""
    gpus = gpu_count(system)
    return gpus / system.nodes if gpus else system.gpus_per_node
