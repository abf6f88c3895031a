"""`cmpc build --png`: a PNG beside each SVG through the optional cairosvg, the same bytes on
every build; without cairosvg a W606 warning and the rest of the build as usual."""

from __future__ import annotations

import struct
from xml.etree import ElementTree

from cmpc.cli import main
from cmpc.report import raster


def _size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def test_png_beside_each_svg_at_twice_its_size(in_repo, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["build", "specs/synthetic-sweep.cmp", "-o", str(out), "--png", "--quiet"]) == 0
    svg = (out / "figures/frontier.svg").read_text()
    png = (out / "figures/frontier.png").read_bytes()
    root = ElementTree.fromstring(svg)
    width, height = float(root.get("width")), float(root.get("height"))
    assert _size(png) == (round(width * raster.SCALE), round(height * raster.SCALE))
    again = tmp_path / "again"
    assert main(["build", "specs/synthetic-sweep.cmp", "-o", str(again), "--png", "--quiet"]) == 0
    assert (again / "figures/frontier.png").read_bytes() == png  # deterministic
    assert "W606" not in capsys.readouterr().err


def test_without_cairosvg_a_clear_warning_not_a_failure(in_repo, tmp_path, capsys, monkeypatch):
    def missing(name: str):
        raise ImportError(f"No module named '{name}'")

    monkeypatch.setattr(raster.importlib, "import_module", missing)
    out = tmp_path / "out"
    assert main(["build", "specs/mi355x-vs-b300.cmp", "-o", str(out), "--png", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "warning[W606]" in err and "pip install 'cmpc[png]'" in err
    assert (out / "figures/summary.svg").is_file() and (out / "report.md").is_file()
    assert not (out / "figures/summary.png").exists()


def test_no_png_unless_asked(in_repo, tmp_path):
    out = tmp_path / "out"
    assert main(["build", "specs/synthetic-sweep.cmp", "-o", str(out), "--quiet"]) == 0
    assert sorted(p.name for p in (out / "figures").iterdir()) == ["frontier.svg", "latency.svg"]
