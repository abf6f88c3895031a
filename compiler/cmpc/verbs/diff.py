"""The `cmpc diff` verb: what a change does to a comparison's conclusions, as Markdown or JSON."""

from __future__ import annotations

import json
import math
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cmpc.build import policy
from cmpc.build.gates import check_policy, policy_failed
from cmpc.build.pipeline import build_spec
from cmpc.diagnostics import Diagnostic, error, has_errors
from cmpc.files import display_path
from cmpc.outcome import Outcome
from cmpc.report.text import escape, number, percent, ratio, usd
from cmpc.safe_text import json_text
from cmpc.verbs.revision import build_at_revision

DIFF_VERSION = "1"
MAX_RESULTS_BYTES = 256 << 20  # a results.json is a few hundred kB; a bound, not a budget
KEYWORDS = ("flip", "verdict-drop", "disclosure-drop")
VERDICT_RANK = {"directional signal only": 0, "comparable": 1}

Doc = Mapping[str, Any]


def read_results(path: str) -> tuple[Doc | None, list[Diagnostic]]:
    """A build folder's results.json, or the file itself; E802 when it is not one."""
    target = Path(path)
    if target.is_dir():
        target = target / "results.json"
    name = display_path(str(target))
    try:
        if not target.is_file():
            raise OSError("no such file (a build folder or its results.json is expected)")
        if target.suffix == ".cmp":
            raise OSError(
                "a spec, not a build: build each side first (`cmpc build SPEC -o DIR`), or "
                "compare a spec with a git revision of it (`cmpc diff --rev GITREV SPEC`)"
            )
        if target.stat().st_size > MAX_RESULTS_BYTES:
            raise OSError(f"larger than {MAX_RESULTS_BYTES} bytes")
        document = json.loads(target.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return None, [_unreadable(name, reason)]
    if not isinstance(document, dict) or "results_version" not in document:
        return None, [_unreadable(name, "not a cmpc results.json (no `results_version`)")]
    return document, []


def _unreadable(name: str, reason: str) -> Diagnostic:
    return error(
        "E802",
        f"cannot read results: {reason}",
        file=name,
        help="give a build folder (`cmpc build` wrote it) or its results.json",
    )


def diff_paths(
    base: str,
    head: str,
    *,
    output_format: str = "md",
    fail_on: Sequence[str] = (),
) -> Outcome:
    """Compare two builds given as folders or results.json files."""
    documents = [read_results(p) for p in (base, head)]
    problems = [d for _, diags in documents for d in diags]
    base_doc, head_doc = documents[0][0], documents[1][0]
    if base_doc is None or head_doc is None:
        return Outcome(diagnostics=tuple(problems), checked=2)
    return diff_documents(
        base_doc,
        head_doc,
        output_format=output_format,
        fail_on=fail_on,
        names=(display_path(base), display_path(head)),
    )


def diff_revision(
    rev: str,
    spec: str,
    *,
    output_format: str = "md",
    fail_on: Sequence[str] = (),
    sets: Sequence[str] = (),
) -> Outcome:
    """SPEC as committed at REV against SPEC in the working tree, both built without the cache."""
    base, problems = build_at_revision(rev, spec, sets=sets)
    if base is None:
        return Outcome(diagnostics=tuple(problems))
    scratch = Path(tempfile.mkdtemp(prefix="cmpc-head-"))
    try:
        outcome = build_spec(spec, out_dir=str(scratch / "build"), sets=sets, use_cache=False)
        if has_errors(outcome.diagnostics):
            return Outcome(diagnostics=outcome.diagnostics, sources=outcome.sources)
        head, more = read_results(str(scratch / "build"))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if head is None:
        return Outcome(diagnostics=tuple(more))
    name = display_path(spec)
    return diff_documents(
        base, head, output_format=output_format, fail_on=fail_on, names=(f"{name}@{rev}", name)
    )


def diff_documents(
    base: Doc,
    head: Doc,
    *,
    output_format: str = "md",
    fail_on: Sequence[str] = (),
    names: tuple[str, str] = ("base", "head"),
) -> Outcome:
    """The diff of two results documents, rendered, with `--fail-on` applied."""
    parsed: list[tuple[str, policy.Policy | None]] = []
    for text in fail_on:
        if text in KEYWORDS:
            parsed.append((text, None))
            continue
        try:
            parsed.append((text, policy.parse(text)))
        except policy.PolicyError as exc:
            return Outcome(diagnostics=(policy_diagnostic_invalid(text, exc),))
    document = compute_diff(base, head, names)
    diagnostics = [d for text, p in parsed for d in _fail_on(text, p, document, base, head)]
    if output_format == "json":
        text = json_text(json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False)) + "\n"
    else:
        text = render_markdown(document)
    return Outcome(stdout=text, diagnostics=tuple(diagnostics), checked=2)


def policy_diagnostic_invalid(text: str, exc: Exception) -> Diagnostic:
    """E800 for a `--fail-on` that is neither a keyword nor an expression."""
    return error(
        "E800",
        f"invalid policy `{text}`: {exc}",
        help="a keyword (" + ", ".join(KEYWORDS) + ") or an expression such as "
        "`headline.throughput_ratio >= 1.2` (docs/policies.md)",
    )


def _fail_on(
    text: str, parsed: policy.Policy | None, document: Doc, base: Doc, head: Doc
) -> list[Diagnostic]:
    if parsed is None:
        reasons = _keyword_reasons(text, document)
        if not reasons:
            return []
        return [policy_failed(f"--fail-on {text}", "; ".join(reasons))]
    scope = {**head, "base": base, "head": head}
    return check_policy(parsed, scope, fail_when=True, flag="--fail-on")


def _keyword_reasons(keyword: str, document: Doc) -> list[str]:
    if keyword == "flip":
        return [f["text"] for f in document["flips"]]
    disclosure = document["disclosure"]
    if keyword == "verdict-drop":
        if disclosure["verdict_dropped"]:
            return [
                f"the verdict drops from {disclosure['base_verdict']!r} to "
                f"{disclosure['head_verdict']!r}"
            ]
        return []
    base_score, head_score = disclosure["base_score"], disclosure["head_score"]
    if base_score is not None and head_score is not None and head_score < base_score:
        return [f"the disclosure score drops from {base_score} to {head_score}"]
    return []


# ---------------------------------------------------------------------------------------------
# The diff document (schemas/diff.schema.json)


# headline keys beyond the comparisons' ratios: the noise verdicts, a bound and its one-sided
# bounds (a bound ratio has no two-sided interval to compare)
HEADLINE_KEYS = (
    ("within_noise", "within measurement noise", "name"),
    ("cost_within_noise", "cost within measurement noise", "name"),
    ("bound", "the throughput ratio's bound", "name"),
    ("throughput_ratio_one_sided_ci", "throughput ratio, one-sided bound", "ratio"),
    ("cost_ratio_one_sided_ci", "cost-per-token ratio, one-sided bound", "ratio"),
    ("confidence", "confidence", "name"),
)


def compute_diff(base: Doc, head: Doc, names: tuple[str, str] = ("base", "head")) -> dict:
    """Every figure a review needs, base against head, with what changed and what flipped."""
    figures: list[dict] = []
    flips: list[dict] = []
    for pair in _pairs(base, head):
        b, h = pair
        comp = h or b or {}
        who = f"{comp.get('system')} vs {comp.get('baseline')}"
        path = f"comparisons[{comp.get('system')}]"
        figures.append(
            _figure(
                f"{path}.throughput_ratio",
                f"throughput ratio, {who}",
                "ratio",
                b,
                h,
                "throughput_ratio",
                ci="throughput_ratio_ci",
            )
        )
        figures.append(
            _figure(
                f"{path}.cost_ratio",
                f"cost-per-token ratio, {who}",
                "ratio",
                b,
                h,
                "cost_ratio",
                ci="cost_ratio_ci",
            )
        )
        for key, what in (("winner", "throughput winner"), ("cost_winner", "cost winner")):
            row = _figure(f"{path}.{key}", f"{what}, {who}", "name", b, h, key)
            figures.append(row)
            if b is not None and h is not None and row["changed"]:
                row["flip"] = True
                flips.append(
                    {
                        "comparison": who,
                        "figure": key,
                        "base": row["base"],
                        "head": row["head"],
                        "text": f"the {what} of {who} flips from "
                        f"{row['base'] or 'a tie'} to {row['head'] or 'a tie'}",
                    }
                )
    base_head, head_head = base.get("headline") or {}, head.get("headline") or {}
    for key, label, kind in HEADLINE_KEYS:
        if key in base_head or key in head_head:
            figures.append(
                _figure(f"headline.{key}", label, kind, base_head or None, head_head or None, key)
            )
    for name in _names(base.get("systems"), head.get("systems")):
        b = (base.get("systems") or {}).get(name)
        h = (head.get("systems") or {}).get(name)
        for key, label, kind in (
            ("at_target.throughput_per_gpu", "throughput per GPU (tok/s/gpu)", "number"),
            ("at_target.throughput_per_unit", "throughput per unit", "number"),
            ("cost.usd_per_gpu_hour", "price (USD/GPU-hour)", "usd"),
            ("cost.usd_per_million_tokens", "cost (USD per million tokens)", "usd"),
        ):
            row = _figure(f"systems.{name}.{key}", f"{name}: {label}", kind, b, h, key)
            if key == "at_target.throughput_per_unit":
                unit = _get(h or b, "at_target.unit")
                if unit in (None, "tok/s/gpu"):
                    continue
                row["label"] = f"{name}: throughput per unit ({unit})"
            figures.append(row)
    disclosure = _disclosure(base.get("disclosure") or {}, head.get("disclosure") or {})
    warnings = _warnings(base.get("warnings") or [], head.get("warnings") or [])
    inputs = _inputs(base.get("inputs") or [], head.get("inputs") or [])
    systems = {
        "added": sorted(set(head.get("systems") or {}) - set(base.get("systems") or {})),
        "removed": sorted(set(base.get("systems") or {}) - set(head.get("systems") or {})),
    }
    moved = [f for f in figures if f["changed"]]
    conclusions_changed = (
        bool(flips) or disclosure["verdict_changed"] or bool(systems["added"] or systems["removed"])
    )
    return {
        "diff_version": DIFF_VERSION,
        "base": _side(base, names[0]),
        "head": _side(head, names[1]),
        "headline": _headline(figures),
        "figures": figures,
        "flips": flips,
        "systems": systems,
        "disclosure": disclosure,
        "warnings": warnings,
        "inputs": inputs,
        "overrides": {"base": base.get("overrides") or [], "head": head.get("overrides") or []},
        "changed": bool(moved)
        or bool(warnings["gained"] or warnings["lost"])
        or bool(inputs["changed"] or inputs["added"] or inputs["removed"])
        or disclosure["score_changed"]
        or conclusions_changed,
        "conclusions_changed": conclusions_changed,
    }


def _side(doc: Doc, name: str) -> dict:
    spec = doc.get("spec") or {}
    return {
        "results": name,
        "title": doc.get("title"),
        "spec": spec.get("file"),
        "spec_sha256": spec.get("sha256"),
        "cmpc_version": doc.get("cmpc_version"),
    }


def _pairs(base: Doc, head: Doc) -> list[tuple[Doc | None, Doc | None]]:
    """Comparisons matched by (system, baseline), the headline first."""

    def keyed(doc: Doc) -> dict[tuple, Doc]:
        items = list(doc.get("comparisons") or [])
        headline = doc.get("headline")
        if headline:
            items = [headline, *[c for c in items if _key(c) != _key(headline)]]
        return {_key(c): c for c in items}

    b, h = keyed(base), keyed(head)
    order = list(dict.fromkeys([*h, *b]))
    return [(b.get(k), h.get(k)) for k in order]


def _key(comparison: Doc) -> tuple:
    return (comparison.get("system"), comparison.get("baseline"))


def _names(base: object, head: object) -> list[str]:
    b = list(base) if isinstance(base, dict) else []
    h = list(head) if isinstance(head, dict) else []
    return list(dict.fromkeys([*h, *b]))


def _get(doc: Doc | None, dotted: str) -> Any:
    value: Any = doc
    for step in dotted.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(step)
    return value


def _figure(
    path: str, label: str, kind: str, b: Doc | None, h: Doc | None, key: str, ci: str = ""
) -> dict:
    before, after = _get(b, key), _get(h, key)
    row: dict = {
        "path": path,
        "label": label,
        "kind": kind,
        "base": before,
        "head": after,
        "change": _change(before, after),
        "changed": before != after,
        "flip": False,
    }
    if ci:
        row["base_interval"] = _interval(_get(b, ci))
        row["head_interval"] = _interval(_get(h, ci))
    return row


def _interval(value: object) -> list[float] | None:
    """A ratio's interval as [low, high], from a pair or a {low, high} object."""
    if isinstance(value, list | tuple) and len(value) == 2:
        low, high = value
    elif isinstance(value, dict):
        low = value.get("low", value.get("lo", value.get("lower")))
        high = value.get("high", value.get("hi", value.get("upper")))
    else:
        return None
    if all(isinstance(x, int | float) and not isinstance(x, bool) for x in (low, high)):
        return [float(low), float(high)]
    return None


def _change(before: object, after: object) -> float | None:
    numeric = all(
        isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)
        for x in (before, after)
    )
    if not numeric or before == 0:
        return None
    return float(after) / float(before) - 1.0  # type: ignore[arg-type]


_RATIO_KEYS = ("base", "head", "change", "base_interval", "head_interval")


def _headline(figures: list[dict]) -> dict | None:
    if not figures or not figures[0]["path"].startswith("comparisons["):
        return None
    throughput, cost, winner, cost_winner = figures[:4]
    return {
        "comparison": throughput["label"].split(", ", 1)[1],
        "throughput_ratio": {k: throughput[k] for k in _RATIO_KEYS},
        "cost_ratio": {k: cost[k] for k in _RATIO_KEYS},
        "winner": {k: winner[k] for k in ("base", "head")},
        "cost_winner": {k: cost_winner[k] for k in ("base", "head")},
    }


def _disclosure(base: Doc, head: Doc) -> dict:
    bv, hv = base.get("verdict"), head.get("verdict")
    dropped = (
        bv is not None and hv is not None and VERDICT_RANK.get(hv, -1) < VERDICT_RANK.get(bv, -1)
    )
    return {
        "base_score": base.get("score"),
        "head_score": head.get("score"),
        "base_total": base.get("total"),
        "head_total": head.get("total"),
        "score_changed": (base.get("score"), base.get("total"))
        != (head.get("score"), head.get("total")),
        "base_verdict": bv,
        "head_verdict": hv,
        "verdict_changed": bv != hv,
        "verdict_dropped": dropped,
    }


def _warnings(base: list, head: list) -> dict:
    def keyed(items: list) -> dict[tuple, dict]:
        return {(w.get("code"), w.get("message")): w for w in items if isinstance(w, dict)}

    b, h = keyed(base), keyed(head)
    return {
        "gained": [h[k] for k in h if k not in b],
        "lost": [b[k] for k in b if k not in h],
    }


def _inputs(base: list, head: list) -> dict:
    def keyed(items: list) -> dict[str, dict]:
        return {str(i.get("path")): i for i in items if isinstance(i, dict)}

    b, h = keyed(base), keyed(head)
    return {
        "changed": [
            {"path": p, "base_sha256": b[p].get("sha256"), "head_sha256": h[p].get("sha256")}
            for p in h
            if p in b and b[p].get("sha256") != h[p].get("sha256")
        ],
        "added": [p for p in h if p not in b],
        "removed": [p for p in b if p not in h],
    }


# ---------------------------------------------------------------------------------------------
# Markdown: a pull-request comment body


def render_markdown(diff: Mapping[str, Any]) -> str:
    """One sentence, one table (flips in bold), and a line saying whether conclusions moved."""
    lines = [_sentence(diff), ""]
    rows = [f for f in diff["figures"] if f["changed"] or f["path"].startswith("comparisons[")]
    headline_key = diff["figures"][0]["path"].split("]")[0] if diff["figures"] else ""
    rows = [f for f in rows if f["changed"] or f["path"].startswith(headline_key)]
    table = ["| Figure | Base | Head | Change |", "|---|---:|---:|---:|"]
    for f in rows:
        cells = [
            escape(f["label"]),
            _cell(f, "base"),
            _cell(f, "head"),
            percent(f["change"], 1, signed=True)
            if f["change"] is not None
            else ("changed" if f["changed"] else ""),
        ]
        if f["flip"]:
            cells = [f"**{c}**" if c else c for c in cells]
        table.append("| " + " | ".join(cells) + " |")
    d = diff["disclosure"]
    if d["score_changed"] or d["verdict_changed"]:
        label = "disclosure score and verdict"
        cells = [
            label,
            f"{d['base_score']}/{d['base_total']}, {escape(d['base_verdict'])}",
            f"{d['head_score']}/{d['head_total']}, {escape(d['head_verdict'])}",
            "dropped" if d["verdict_dropped"] else "changed",
        ]
        if d["verdict_changed"]:
            cells = [f"**{c}**" for c in cells]
        table.append("| " + " | ".join(cells) + " |")
    w = diff["warnings"]
    for item, status in [(x, "gained") for x in w["gained"]] + [(x, "lost") for x in w["lost"]]:
        text = escape(f"{item.get('code')}: {item.get('message')}")
        table.append(
            f"| warning {status} | {'' if status == 'gained' else text} | "
            f"{text if status == 'gained' else ''} | {status} |"
        )
    i = diff["inputs"]
    for c in i["changed"]:
        table.append(
            f"| input {escape(c['path'])} | `{_sha(c['base_sha256'])}` | "
            f"`{_sha(c['head_sha256'])}` | new hash |"
        )
    for p in i["added"]:
        table.append(f"| input {escape(p)} |  | added | added |")
    for p in i["removed"]:
        table.append(f"| input {escape(p)} | removed |  | removed |")
    o = diff["overrides"]
    if o["base"] != o["head"]:
        table.append(f"| overrides (`--set`) | {_sets(o['base'])} | {_sets(o['head'])} | changed |")
    for name in diff["systems"]["added"]:
        table.append(f"| **system {escape(name)}** |  | **added** | **added** |")
    for name in diff["systems"]["removed"]:
        table.append(f"| **system {escape(name)}** | **removed** |  | **removed** |")
    lines += table
    lines.append("")
    if not diff["conclusions_changed"]:
        lines.append(
            "No change in conclusions: the same winners and the same disclosure verdict."
            if diff["changed"]
            else "No change in conclusions: no figure, warning or input changed."
        )
    else:
        lines.append("**The conclusions change:** see the rows in bold.")
    return "\n".join(lines) + "\n"


def _sentence(diff: Mapping[str, Any]) -> str:
    head = diff["headline"]
    title = escape(diff["head"]["title"] or diff["base"]["title"] or "the comparison")
    if head is None:
        return f"**{title}**: no headline comparison on either side."
    t, c = head["throughput_ratio"], head["cost_ratio"]
    parts = [f"throughput ratio {_ratio(t['base'])} → {_ratio(t['head'])}"]
    if t["change"] is not None:
        parts[-1] += f" ({percent(t['change'], 1, signed=True)})"
    if c["base"] is not None or c["head"] is not None:
        cost = f"cost-per-token ratio {_ratio(c['base'])} → {_ratio(c['head'])}"
        if c["change"] is not None:
            cost += f" ({percent(c['change'], 1, signed=True)})"
        parts.append(cost)
    w, cw = head["winner"], head["cost_winner"]
    who = {side: _who(w[side], t[side]) for side in ("base", "head")}
    cost_who = {side: _who(cw[side], c[side]) for side in ("base", "head")}
    if w["base"] != w["head"]:
        verdict = f"**the winner flips from {who['base']} to {who['head']}**"
    elif w["head"] is None and who["base"] != who["head"]:
        verdict = f"{who['base']} before, {who['head']} after"
    else:
        verdict = f"the winner stays {who['head']}"
    if cw["base"] != cw["head"]:
        verdict += f", and **the cost winner flips from {cost_who['base']} to {cost_who['head']}**"
    return f"**{title}** ({escape(head['comparison'])}): " + ", ".join(parts) + f"; {verdict}."


def _who(winner: object, ratio_value: object) -> str:
    """A side's winner; without one, why: no ratio, a tie (within 0.5% of 1), or a ratio the
    reads do not settle (both lower bounds, or within noise)."""
    if winner:
        return escape(str(winner))
    if not isinstance(ratio_value, int | float) or isinstance(ratio_value, bool):
        return "no winner (no ratio)"
    if abs(float(ratio_value) - 1.0) <= 0.005:
        return "a tie"
    return "no winner (the reads do not settle it)"


def _ratio(x: object) -> str:
    return "n/a" if x is None else f"×{ratio(x)}"


def _cell(f: Mapping[str, Any], side: str) -> str:
    value = f[side]
    if value is None:
        text = "n/a"
    elif f["kind"] == "ratio":
        text = _ratio(value)
    elif f["kind"] == "usd":
        text = str(usd(value))
    elif f["kind"] == "number":
        text = str(number(value))
    else:
        text = escape(value if not isinstance(value, bool) else str(value).lower())
    interval = f.get(f"{side}_interval")
    if interval:
        text += f" [{ratio(interval[0])}, {ratio(interval[1])}]"
    return text


def _sha(value: object) -> str:
    return str(value or "")[:12]


def _sets(items: list) -> str:
    shown = [f"{i.get('path')}={i.get('value')}" for i in items if isinstance(i, dict)]
    return escape(", ".join(shown)) if shown else "none"
