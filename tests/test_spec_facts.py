"""Facts the specs state about hardware agree with the hardware they name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cmpc.compile import compile_source
from cmpc.source import SourceFile

REPO = Path(__file__).resolve().parents[1]
SPECS = sorted((REPO / "specs").glob("*.cmp"))

# Azure VM size -> (GPUs per VM, memory per GPU in GB): learn.microsoft.com, ND A100 v4 series
# (ND96asr_v4: 8x A100 40GB SXM4) and NDm A100 v4 series (ND96amsr_A100_v4: 8x A100 80GB).
AZURE_SKUS = {"ND96asr_v4": (8, 40), "ND96amsr_A100_v4": (8, 80)}
SKU = re.compile(r"\b(?:Standard_)?(ND96asr_v4|ND96amsr_A100_v4)\b")


def _systems_naming_a_sku():
    for spec in SPECS:
        comparison, diagnostics = compile_source(SourceFile(spec.name, spec.read_text("utf-8")))
        assert comparison is not None, diagnostics
        for system in comparison.systems:
            found = SKU.search(system.label)
            if found:
                yield pytest.param(
                    system, AZURE_SKUS[found.group(1)], id=f"{spec.stem}.{system.name}"
                )


CASES = list(_systems_naming_a_sku())


def test_the_llama70b_showcase_names_its_vm_size():
    assert any("llama70b" in case.id for case in CASES)


@pytest.mark.parametrize(("system", "sku"), CASES)
def test_accelerator_and_memory_match_the_vm_size(system, sku):
    gpus_per_vm, gigabytes = sku
    assert system.memory_bytes == gigabytes * 10**9
    sizes = {int(n) for n in re.findall(r"\b(\d+)\s?GB\b", system.accelerator or "")}
    assert sizes == {gigabytes}, f"{system.accelerator!r} on a VM with {gigabytes} GB GPUs"
    assert (system.count or 0) <= gpus_per_vm * system.nodes


def test_the_llama70b_data_sources_name_the_40gb_a100():
    sources = (REPO / "specs" / "data" / "llama70b" / "SOURCES.md").read_text(encoding="utf-8")
    heading = sources.splitlines()[0]
    assert "ND96asr_v4" in heading and "40GB" in heading and "80GB" not in heading
    spec = (REPO / "specs" / "llama70b-a100-tp8-vs-tp4pp2.cmp").read_text(encoding="utf-8")
    assert "A100 80GB nodes" not in spec
