"""The disclosure checklist: each question answered by the spec or its authors, and the verdict."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from cmpc.analysis import types as T
from cmpc.analysis.hardware import gpu_count
from cmpc.ir import model as ir
from cmpc.language import vocabulary as V


def disclosure(
    c: ir.Comparison,
    results: Mapping[str, T.SystemResult],
    files: Mapping[str, str] | None = None,
) -> T.Disclosure:
    """Each checklist item answered or not, the score, and "directional signal only" below half.

    `files` holds facts the run files state ("from the run files: ..."); the spec's own answer
    wins where both exist.
    """
    answers = dict(c.disclosure)
    files = files or {}
    systems = c.systems

    def every(pred: Callable[[ir.System], bool]) -> bool:
        # a claims audit declares no systems: nothing about systems is disclosed by it
        return bool(systems) and all(pred(s) for s in systems)

    hit_known = every(lambda s: results[s.name]["hit_rate"] is not None)
    from_spec = {
        "latency_metric": c.latency.target is not None,
        "token_accounting": bool(systems) and (hit_known or "input" not in c.tokens.count),
        "normalization": every(lambda s: bool(s.prices) or s.tco is not None),
        "measured_by": bool(c.sources) and all(bool(s.role) for s in c.sources),
        "measured_at": any(s.snapshot or s.run_date for s in c.sources),
        "source": any(s.url for s in c.sources),
        "accelerator_model": every(lambda s: s.accelerator is not None),
        "accelerator_count": every(lambda s: gpu_count(s) is not None),
        "memory": every(lambda s: s.memory_bytes is not None),
        "interconnect": every(lambda s: s.interconnect is not None),
        "engine_version": every(lambda s: s.engine_version is not None or s.image is not None),
        "precision": every(lambda s: bool(s.precision)),
        "parallelism": every(lambda s: s.parallel.declared),
        "speculative_decoding": every(lambda s: bool(s.speculative)),
        "scheduler": every(lambda s: bool(s.scheduler)),
        "prefix_cache": hit_known,
        "tpot_definition": bool(systems),
        "utilization": every(lambda s: bool(s.prices) or s.tco is not None),
        "cost_token_basis": every(lambda s: bool(s.prices) or s.tco is not None),
        "revenue_vs_cost": True,
        "power_basis": every(lambda s: s.power is not None),
        "verification": any(s.status == "verified" for s in c.sources),
        "slo": bool(c.latency.slo),
    }
    items: list[T.DisclosureItem] = []
    for key, question in V.CHECKLIST.items():
        spec = key in answers or from_spec.get(key, False)
        stated = files.get(key) if key not in answers else None
        where: T.DisclosureFrom = (
            "answer" if key in answers else "spec" if spec else "files" if stated else None
        )
        items.append(
            {
                "key": key,
                "question": question,
                "answer": answers.get(key),
                "answered": where is not None,
                "from": where,
                "five_questions": key in V.FIVE_QUESTIONS,
                "from_files": stated,
            }
        )
    score = sum(i["answered"] for i in items)
    total = len(items)
    five = [i for i in items if i["five_questions"]]
    return {
        "items": items,
        "score": score,
        "total": total,
        "five_answered": sum(i["answered"] for i in five),
        "five_total": len(five),
        "verdict": "comparable" if score * 2 >= total else "directional signal only",
    }
