"""Report templates compiled once: a later build loads jinja2's code instead of compiling."""

from __future__ import annotations

import jinja2
import pytest
from jinja2.sandbox import SecurityError

from cmpc.report import environment


def test_a_second_environment_compiles_no_template(monkeypatch):
    first = environment.make_environment()
    names = [n for n in first.list_templates() if n.endswith(".j2")]
    assert names
    for name in names:
        first.get_template(name)  # compiled here at most, and kept
    second = environment.make_environment()
    monkeypatch.setattr(second, "compile", lambda *a, **k: pytest.fail("compiled again"))
    for name in names:
        assert second.get_template(name).name == name


def test_a_kept_template_is_still_sandboxed_and_follows_its_source(tmp_path):
    (tmp_path / "t.j2").write_text("{{ x.__class__.__mro__ }}", encoding="utf-8")
    for _ in range(2):  # the second load comes from the kept code
        with pytest.raises(SecurityError):
            environment.make_environment(str(tmp_path)).get_template("t.j2").render(x=1)
    (tmp_path / "t.j2").write_text("{{ y }}", encoding="utf-8")  # an edit is seen at once
    with pytest.raises(jinja2.UndefinedError):
        environment.make_environment(str(tmp_path)).get_template("t.j2").render(x=1)
