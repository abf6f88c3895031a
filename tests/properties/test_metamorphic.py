"""Relations that hold on any spec: over every showcase and over generated specs (hypothesis)."""

from __future__ import annotations

import math
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from .specs import SPECS, Builder, GeneratedSpec, Side, copy_specs, rename_identifiers

SHOWCASES = sorted(p.name for p in SPECS.glob("*.cmp"))
EXAMPLES = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@pytest.fixture(scope="module")
def builder(tmp_path_factory: pytest.TempPathFactory) -> Builder:
    root = tmp_path_factory.mktemp("metamorphic")
    return Builder(copy_specs(root), root / "cache")


# --- comparing results ---------------------------------------------------------------------

# Keys that name the spec or its inputs rather than state a figure.
PROVENANCE = {"spec", "inputs", "file", "sha256", "label", "path", "source", "ir"}


def figures(value: Any, drop: frozenset[str] = frozenset(PROVENANCE)) -> Any:
    """The results without the keys that only say where things came from."""
    if isinstance(value, dict):
        return {k: figures(v, drop) for k, v in value.items() if k not in drop}
    if isinstance(value, list):
        return [figures(v, drop) for v in value]
    return value


def rename_strings(value: Any, mapping: dict[str, str]) -> Any:
    """Every whole-word occurrence of a name replaced, in keys and string values."""
    if not mapping:
        return value
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, mapping)) + r")\b")

    def sub(text: str) -> str:
        return pattern.sub(lambda m: mapping[m.group(1)], text)

    if isinstance(value, dict):
        return {sub(k): rename_strings(v, mapping) for k, v in value.items()}
    if isinstance(value, list):
        return [rename_strings(v, mapping) for v in value]
    return sub(value) if isinstance(value, str) else value


def close(a: float | None, b: float | None, rel: float = 1e-9) -> bool:
    """Equal up to floating-point rounding (both missing counts as equal)."""
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-300)


def system_names(results: dict[str, Any]) -> list[str]:
    return list(results["systems"])


def headline(results: dict[str, Any]) -> dict[str, Any]:
    return results["headline"] or {}


class NotApplicable(Exception):
    """The relation says nothing about this spec (e.g. it has no cost ratio)."""


def need(condition: object) -> None:
    """Go on only where the relation applies; the callers count where it did not."""
    if not condition:
        raise NotApplicable


# --- the relations -------------------------------------------------------------------------


def check_rename(builder: Builder, text: str) -> None:
    base = builder.results(text)
    names = system_names(base)
    need(names)
    forward = {n: f"zz_{n}_renamed" for n in names}
    renamed = builder.results(rename_identifiers(text, forward))
    back = rename_strings(renamed, {v: k for k, v in forward.items()})
    assert figures(back) == figures(base)


def check_baseline_swap(builder: Builder, text: str) -> None:
    base = builder.results(text)
    head = headline(base)
    need(head.get("throughput_ratio") is not None)
    other = head["system"]
    swapped_text = re.sub(r"(?m)^(\s*baseline )\S+", rf"\g<1>{other}", text, count=1)
    swapped = headline(builder.results(swapped_text))
    assert swapped["baseline"] == other and swapped["system"] == head["baseline"]
    for key in ("throughput_ratio", "cost_ratio", "price_ratio", "goodput_ratio"):
        if head.get(key) is not None:
            assert close(swapped[key], 1 / head[key]), key
    if not (head.get("tie") or swapped.get("tie")):
        assert swapped["winner"] == head["winner"]


PRICE = re.compile(r"(price )(\d+(?:\.\d+)?)( USD/gpu/h)")


def check_price_scaling(builder: Builder, text: str, k: int = 3) -> None:
    need(PRICE.search(text))
    base = builder.results(text)
    scaled_text = PRICE.sub(lambda m: f"{m[1]}{float(m[2]) * k:.4f}{m[3]}", text)
    scaled = builder.results(scaled_text)
    for name, system in base["systems"].items():
        cost, cost_k = system.get("cost"), scaled["systems"][name].get("cost")
        if cost and cost.get("usd_per_million_tokens") is not None:
            assert close(cost_k["usd_per_million_tokens"], k * cost["usd_per_million_tokens"])
    head, head_k = headline(base), headline(scaled)
    if head.get("cost_ratio") is not None:
        assert close(head_k["cost_ratio"], head["cost_ratio"])
        assert head_k["cost_winner"] == head["cost_winner"]


def check_utilization(builder: Builder, text: str) -> None:
    base = builder.results(text)
    need(headline(base).get("cost_ratio") is not None)
    changed = re.sub(r"utilization \d+%", "utilization 37%", text, count=1)
    if changed == text:
        changed = text.replace("  cost {\n", "  cost {\n    utilization 37%\n", 1)
    assert close(headline(builder.results(changed))["cost_ratio"], headline(base)["cost_ratio"])


def check_copied_files(builder: Builder, text: str) -> None:
    """Runs copied byte for byte under new names (both sides) give the same figures."""
    base = builder.results(text)
    globs = re.findall(r'runs "([^"]+)"', text)
    need(globs)
    moved = text
    for glob in set(globs):
        folder = Path(glob).parent
        copy = Path("copies") / folder
        if not (builder.tree / copy).exists():
            shutil.copytree(builder.tree / folder, builder.tree / copy)
        moved = moved.replace(f'runs "{glob}"', f'runs "{copy / Path(glob).name}"')
    assert figures(builder.results(moved)) == figures(base)


RELATIONS = [check_rename, check_baseline_swap, check_price_scaling, check_utilization]


# Showcase and relation pairs that have nothing to test: a claims audit has no systems, a spec
# without prices no cost, reported figures no run files.
NOT_APPLICABLE = {
    ("deepinfer-claims.cmp", relation.__name__) for relation in [*RELATIONS, check_copied_files]
} | {
    ("llama70b-a100-tp8-vs-tp4pp2.cmp", "check_price_scaling"),
    ("llama70b-a100-tp8-vs-tp4pp2.cmp", "check_utilization"),
    # at 20 tok/s/user TP4 x PP2 is unreachable: no ratio to invert, no cost ratio to keep
    ("llama70b-newcomer.cmp", "check_baseline_swap"),
    ("llama70b-newcomer.cmp", "check_utilization"),
    ("mi355x-vs-b300.cmp", "check_copied_files"),
    ("mi355x-vs-b300-per-dollar.cmp", "check_copied_files"),
}


@pytest.mark.parametrize("relation", [*RELATIONS, check_copied_files], ids=lambda f: f.__name__)
@pytest.mark.parametrize("spec", SHOWCASES)
def test_showcase_relations(builder: Builder, spec: str, relation: Any) -> None:
    try:
        relation(builder, (SPECS / spec).read_text())
    except NotApplicable:
        assert (spec, relation.__name__) in NOT_APPLICABLE, "the relation found nothing to test"
    else:
        assert (spec, relation.__name__) not in NOT_APPLICABLE, "now applies: update the list"


# --- generated specs -----------------------------------------------------------------------

SYNTHETIC_GLOBS = ["conc-*.jsonl", "conc-0[1248].jsonl", "conc-[13]*.jsonl", "conc-64.jsonl"]


@st.composite
def sides(draw: st.DrawFn, name: str) -> Side:
    data = draw(st.sampled_from(["alpha", "beta", "tp8", "tp4"]))
    nodes = draw(st.sampled_from([1, 1, 2]))
    gpus = draw(st.sampled_from([4, 8])) * nodes
    price = f"{draw(st.integers(50, 600)) / 100:.2f}"
    if data in ("alpha", "beta"):
        glob = f"data/synthetic/{data}/{draw(st.sampled_from(SYNTHETIC_GLOBS))}"
        return Side(name, glob, "cmpc", "sample", gpus, nodes, price)
    return Side(name, f"data/llama70b/{data}_*.json", "vllm", "llmk8s", gpus, nodes, price)


@st.composite
def generated_specs(draw: st.DrawFn) -> GeneratedSpec:
    target = draw(st.one_of(st.none(), st.integers(5, 120)))
    return GeneratedSpec(
        sides=(draw(sides("left")), draw(sides("right"))),
        baseline=draw(st.sampled_from([0, 1])),
        statistic=draw(st.sampled_from(["median", "p90", "p99", "mean"])),
        target=None if target is None else f"{target} tok/s/user",
        count=draw(st.sampled_from(["output", "input + output"])),
        normalize=draw(st.sampled_from(["gpu", "gpu", "node", "dollar"])),
        utilization=draw(st.integers(10, 100)),
        per_million=draw(st.sampled_from(["total", "output"])),
    )


def check_per_node(builder: Builder, spec: GeneratedSpec) -> None:
    """Per node = per GPU x GPUs per node, for every system and every read."""
    per_gpu = builder.results(GeneratedSpec(**{**spec.__dict__, "normalize": "gpu"}).text())
    per_node = builder.results(GeneratedSpec(**{**spec.__dict__, "normalize": "node"}).text())
    for side in spec.sides:
        gpu, node = per_gpu["systems"][side.name], per_node["systems"][side.name]
        a, b = gpu["at_target"], node["at_target"]
        need(a["throughput_per_unit"] is not None)
        assert b["throughput_per_unit"] is not None
        assert close(b["throughput_per_unit"], a["throughput_per_unit"] * side.gpus / side.nodes)


def check_set_equals_edit(builder: Builder, spec: GeneratedSpec) -> None:
    """`--set` of a price gives the same figures as the same edit in the spec."""
    side = spec.sides[0]
    edited = spec.with_sides(Side(**{**side.__dict__, "price": "9.25"}), spec.sides[1])
    by_set = builder.results(spec.text(), f"system.{side.name}.price=9.25 USD/gpu/h")
    by_edit = builder.results(edited.text())
    # who gave the price (`set_on_command_line`) is provenance: the figures must agree
    drop = frozenset(
        PROVENANCE
        | {"basis", "scenario", "as_of", "overrides", "prices", "price", "set_on_command_line"}
    )
    assert figures(by_set, drop) == figures(by_edit, drop)
    assert close(
        by_set["systems"][side.name]["cost"]["usd_per_gpu_hour"],
        by_edit["systems"][side.name]["cost"]["usd_per_gpu_hour"],
    )


SPEC_RELATIONS = [check_per_node, check_set_equals_edit]


@EXAMPLES
@given(spec=generated_specs(), which=st.integers(0, len(RELATIONS) + len(SPEC_RELATIONS) - 1))
def test_generated_relations(builder: Builder, spec: GeneratedSpec, which: int) -> None:
    try:
        if which < len(RELATIONS):
            RELATIONS[which](builder, spec.text())
        else:
            SPEC_RELATIONS[which - len(RELATIONS)](builder, spec)
    except NotApplicable:
        assume(False)  # hypothesis draws another spec: 200 examples are 200 tested relations


def test_the_comparison_sees_a_changed_figure(builder: Builder) -> None:
    """The relations compare figures, not nothing: one changed price is a difference."""
    text = (SPECS / "synthetic-sweep.cmp").read_text()
    base = builder.results(text)
    changed = builder.results(text.replace("price 2.00", "price 2.01", 1))
    assert figures(base) != figures(changed)
    renamed = builder.results(rename_identifiers(text, {"alpha": "zz_alpha_renamed"}))
    assert figures(renamed) != figures(base)  # until the names are mapped back


# --- fewer points never raise a lower bound ---------------------------------------------------


@st.composite
def sweeps_below_range(draw: st.DrawFn) -> tuple[GeneratedSpec, int, str]:
    """A synthetic sweep on both sides, a target below (or in) its range, and one run to drop."""
    spec = draw(generated_specs())
    whole = [
        Side(s.name, f"data/synthetic/{d}/conc-*.jsonl", "cmpc", "sample", s.gpus, s.nodes, s.price)
        for s, d in zip(spec.sides, draw(st.permutations(["alpha", "beta"])), strict=True)
    ]
    target = f"{draw(st.integers(5, 40))} tok/s/user"
    side = draw(st.sampled_from([0, 1]))
    dropped = draw(st.sampled_from(["01", "02", "04", "08", "16", "32", "64"]))
    return GeneratedSpec(**{**spec.__dict__, "target": target}).with_sides(*whole), side, dropped


@settings(EXAMPLES, max_examples=60)
@given(case=sweeps_below_range())
def test_a_point_removed_never_raises_a_lower_bound(builder: Builder, case: Any) -> None:
    spec, side, dropped = case
    full = builder.results(spec.text())["systems"][spec.sides[side].name]["at_target"]
    assume(full.get("bound") == "lower")
    folder = Path(spec.sides[side].glob).parent
    fewer = Path("copies") / f"{folder.name}-without-{dropped}"
    if not (builder.tree / fewer).exists():
        shutil.copytree(builder.tree / folder, builder.tree / fewer)
        (builder.tree / fewer / f"conc-{dropped}.jsonl").unlink()
    moved = Side(**{**spec.sides[side].__dict__, "glob": f"{fewer}/conc-*.jsonl"})
    sides = [moved if i == side else s for i, s in enumerate(spec.sides)]
    read = builder.results(spec.with_sides(*sides).text())["systems"][moved.name]["at_target"]
    # fewer runs only narrow the range, so the target stays below it: still a lower bound
    assert read["bound"] == "lower"
    assert read["throughput_per_gpu"] <= full["throughput_per_gpu"]
