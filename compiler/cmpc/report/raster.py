"""`--png`: a PNG beside each SVG figure, through the optional `png` extra (cairosvg)."""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from cmpc.diagnostics import Diagnostic, warning

SCALE = 2.0  # twice the SVG's pixel size: sharp on high-density screens and in blog posts


def png_figures(files: Mapping[str, str | bytes]) -> tuple[dict[str, bytes], list[Diagnostic]]:
    """{`figures/x.png`: bytes} for every `figures/x.svg`; W606 (and no PNG) without cairosvg."""
    svgs = {p: c for p, c in files.items() if p.startswith("figures/") and p.endswith(".svg")}
    if not svgs:
        return {}, []
    try:
        cairosvg = importlib.import_module("cairosvg")
    except (ImportError, OSError) as exc:  # OSError: the package is there, libcairo is not
        return {}, [
            warning(
                "W606",
                f"--png: no PNG written, cairosvg is not available ({type(exc).__name__}: {exc})",
                file="figures/",
                notes=("the SVG figures and the rest of the report are written as usual",),
                help="pip install 'cmpc[png]' (cairosvg; on Debian also apt-get install libcairo2)",
            )
        ]
    out: dict[str, bytes] = {}
    for path, content in sorted(svgs.items()):
        data = content.encode("utf-8") if isinstance(content, str) else content
        out[path[: -len(".svg")] + ".png"] = cairosvg.svg2png(bytestring=data, scale=SCALE)
    return out, []
