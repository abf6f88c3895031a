"""The provenance section: input files and their hashes, overrides, warnings, sources."""

from __future__ import annotations

from cmpc.jsontypes import JsonObject
from cmpc.report.context import Context
from cmpc.report.text import (
    DASH,
    Md,
    code,
    escape,
    escape_prose,
    link,
    number,
)
from cmpc.report.words import (
    ROLES,
)


def provenance(ctx: Context) -> JsonObject:
    spec = ctx.results.get("spec") or {}
    inputs = [
        {
            "path": code(i.get("path") or "?"),
            "system": ctx.label(i.get("system")),
            "format": escape(i.get("format") or DASH),
            "reader": escape(i.get("reader") or DASH),
            "runs": number(i.get("runs")),
            "sha256": code(i.get("sha256") or DASH),
        }
        for i in sorted(
            ctx.results.get("inputs") or [],
            key=lambda i: (str(i.get("path")), str(i.get("system"))),
        )
    ]
    overrides = [
        (
            Md("{} = {}").format(
                code(o.get("path"), in_table=False), code(o.get("value"), in_table=False)
            )
            if o.get("value") is not None
            else Md("{} removed (`--unset`)").format(code(o.get("path"), in_table=False))
        )
        + (
            Md(" (was {} in the spec)").format(code(o["was"], in_table=False))
            if o.get("was") is not None
            else Md("")
        )
        for o in ctx.results.get("overrides") or []
    ]
    warnings = [
        Md("{} {}").format(code(w.get("code")), escape_prose(w.get("message")))
        for w in ctx.results.get("warnings") or []
    ]
    sources = []
    for name in sorted(ctx.sources):
        s = ctx.sources[name]
        dates = [
            Md("{} {}").format(k.replace("_", " "), s[k])
            for k in ("snapshot", "run_date", "retrieved")
            if s.get(k)
        ]
        role = s.get("role") or DASH
        sources.append(
            {
                "name": code(name),
                "title": link(s.get("title") or name, s.get("url")),
                "role": escape(ROLES.get(role, role)),
                "dates": Md(", ").join(dates) or Md(DASH),
                "status": escape(s.get("status") or DASH),
            }
        )
    return {
        "spec_file": code(spec.get("file") or "?", in_table=False),
        "spec_sha256": code(spec.get("sha256") or DASH),
        "cmpc_version": escape(ctx.results.get("cmpc_version") or DASH),
        "results_version": escape(ctx.results.get("results_version") or DASH),
        "inputs": inputs,
        "overrides": overrides,
        "warnings": warnings,
        "sources": sources,
    }
