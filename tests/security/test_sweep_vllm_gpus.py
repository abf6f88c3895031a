"""`cmpc sweep` on vLLM result files: the GPU count from the file where it is stated (vLLM's
`--metadata tensor_parallel_size=8`, a string), else from `--gpus N`; before, every vLLM point
was dropped (W412, then E412) with no way to give the count."""

from __future__ import annotations

import json
import shutil

import pytest

from .helpers import REPO, SHARED, run_cli

ORACLE = sorted((SHARED / "oracle" / "vllm").glob("*.json"))
NEW_LAYOUT = REPO / "conformance" / "fixtures" / "vllm" / "0.33.0" / "bench-serve-chat-c4"


def _total(path) -> float:
    return json.loads(path.read_text())["total_token_throughput"]


def _sweep(capsys, *argv: str) -> tuple[int, dict, str]:
    code, out, err = run_cli(capsys, ["sweep", *argv, "--json"])
    return code, (json.loads(out) if code == 0 else {}), err


def _with_metadata(tmp_path, source, **metadata: str):
    """The vLLM file as `vllm bench serve --metadata K=V` writes it: values as strings."""
    doc = json.loads(source.read_text()) | metadata
    path = tmp_path / source.name
    path.write_text(json.dumps(doc))
    return path


def test_without_a_count_the_warning_says_how_to_give_one(capsys):
    code, _, err = _sweep(capsys, *map(str, ORACLE), "--at", "20")
    assert code == 1
    assert "E412" in err and err.count("W412") == len(ORACLE)
    assert "--gpus N" in err and "tensor_parallel_size" in err


def test_gpus_gives_every_silent_file_its_count(capsys):
    code, doc, err = _sweep(capsys, *map(str, ORACLE), "--gpus", "8", "--at", "20")
    assert code == 0, err
    per_gpu = sorted(p["throughput_per_gpu"] for p in doc["points"])
    assert per_gpu == sorted(_total(p) / 8 for p in ORACLE)
    (read,) = doc["reads"]
    assert read["reachable"]


def test_the_newer_layout_reads_too(capsys, tmp_path):
    source = NEW_LAYOUT / "result.json"
    path = tmp_path / "result.json"
    shutil.copyfile(source, path)
    code, doc, err = _sweep(capsys, str(path), "--gpus", "1")
    assert code == 0, err
    (point,) = doc["points"]
    assert point["throughput_per_gpu"] == _total(source)
    assert point["concurrency"] == 4


def test_the_files_own_tensor_parallel_size_is_used(capsys, tmp_path):
    source = ORACLE[-1]
    path = _with_metadata(tmp_path, source, tensor_parallel_size="8")
    code, doc, err = _sweep(capsys, str(path))
    assert code == 0, err
    (point,) = doc["points"]
    assert point["throughput_per_gpu"] == _total(source) / 8
    assert point["recipe"] == "tp8"


def test_tp_and_pp_metadata_multiply(capsys, tmp_path):
    source = ORACLE[0]
    path = _with_metadata(tmp_path, source, tp="4", pp="2")
    code, doc, err = _sweep(capsys, str(path))
    assert code == 0, err
    (point,) = doc["points"]
    assert point["throughput_per_gpu"] == _total(source) / 8
    assert point["recipe"] == "tp4 pp2"


def test_a_file_that_disagrees_with_gpus_keeps_its_count_and_warns(capsys, tmp_path):
    source = ORACLE[-1]
    path = _with_metadata(tmp_path, source, tensor_parallel_size="4")
    code, doc, err = _sweep(capsys, str(path), "--gpus", "8")
    assert code == 0
    assert "W414" in err and "counts 4 GPUs" in err
    (point,) = doc["points"]
    assert point["throughput_per_gpu"] == _total(source) / 4


@pytest.mark.parametrize("value", ["1,4", "eight", "0", "-2"])
def test_a_metadata_size_that_is_not_a_count_is_not_guessed(capsys, tmp_path, value):
    path = _with_metadata(tmp_path, ORACLE[-1], tensor_parallel_size=value)
    code, _, err = _sweep(capsys, str(path))
    assert code == 1 and "W412" in err and "E412" in err


@pytest.mark.parametrize("value", ["0", "-8"])
def test_gpus_must_be_positive(capsys, value):
    code, _, err = _sweep(capsys, str(ORACLE[-1]), f"--gpus={value}")
    assert code == 2 and "E411" in err


def test_help_names_the_option(capsys):
    code, out, _ = run_cli(capsys, ["sweep", "--help"])
    assert code == 0 and "--gpus N" in out and "calculator" in out
