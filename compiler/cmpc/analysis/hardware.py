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


def billed_gpus(system: ir.System) -> int | None:
    """The GPUs paid for: `billed_gpus` when declared, else the GPUs used."""
    return system.billed_gpus or gpu_count(system)


def used_share(system: ir.System) -> float:
    """The share of billed GPUs the system runs on (1 when every billed GPU is used).

    Cost per token is the price of the billed GPU-hours over the tokens of the used GPUs, so a
    per-GPU throughput times this share is the throughput per billed GPU.
    """
    used, billed = gpu_count(system), billed_gpus(system)
    return used / billed if used and billed else 1.0
