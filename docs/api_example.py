"""cmpc from a notebook: each `# %%` cell runs as a Jupyter cell (CI runs the whole file).

SYNTHETIC DATA: specs/synthetic-sweep.cmp reads traces simulated by
scripts/make_sample_traces.py (seed 20261129); nothing here was measured on hardware.
Run it from anywhere: `python docs/api_example.py` (needs the `dataframe` and `parquet`
extras). It writes only into $CMPC_EXAMPLE_OUT (default: a new temporary folder).
"""

# %% Build a spec in memory: nothing is written, the results are a typed object.
import os
import tempfile
from pathlib import Path

import cmpc

spec = Path(__file__).resolve().parents[1] / "specs" / "synthetic-sweep.cmp"
results = cmpc.build(spec)
head = results.headline
assert head is not None
print(f"{head['system']} vs {head['baseline']}: throughput x{head['throughput_ratio']:.4g}")
print("read at the target:", {n: r["throughput_per_gpu"] for n, r in results.reads.items()})
print("$ per million tokens:", {n: c["usd_per_million_tokens"] for n, c in results.costs.items()})

# %% Re-run with your own assumptions (`--set` on the command line).
busy = cmpc.build(spec, overrides={"cost.utilization": "40%"}, render=False)
alpha_cost = busy.costs["alpha"]["usd_per_million_tokens"]
print(f"at 40% utilization alpha costs ${alpha_cost:.4f} per million tokens")

# %% Gate on the results as `cmpc build --require` does: a failed policy is exit code 3.
gated = cmpc.build(spec, render=False, require=["headline.throughput_ratio >= 1.2"])
print("policies met:", gated.policies_met, "exit code:", gated.exit_code)
for failure in gated.policy_failures:
    print(" ", failure.message)
no_price = cmpc.build(spec, render=False, unsets=["system.beta.price"])  # `--unset`
print("beta without a price:", no_price.costs["beta"]["usd_per_million_tokens"])

# %% Every figure the report shows, and every run, as DataFrames.
figures = results.to_pandas()
print(figures[["id", "system", "value", "unit"]].head(8).to_string(index=False))
runs = results.to_pandas("runs")
alpha = runs[runs["system"] == "alpha"].sort_values("concurrency")
print(f"alpha p90 TPOT at conc 64: {alpha['tpot_p90_s'].iloc[-1] * 1000:.2f} ms")

# %% One benchmark file (or a glob), summarized per run, without a spec.
data = spec.parent / "data" / "synthetic" / "beta" / "*.jsonl"
beta = cmpc.load_runs(data).to_pandas()
print(beta[["file", "fields_conc", "tpot_ms_p90", "throughput_output_tokens_per_s"]].to_string())

# %% Check a spec from text, as a pull request's CI would.
checked = cmpc.check('comparison "x" { baseline a }')
print("check:", checked.codes)

# %% Write the report and the Parquet exports, then query them with DuckDB if it is there.
out = Path(os.environ.get("CMPC_EXAMPLE_OUT") or tempfile.mkdtemp(prefix="cmpc-example-"))
cmpc.build(spec, output=out, exports=["parquet"])
print("wrote", sorted(p.name for p in out.iterdir()))
try:
    import duckdb
except ImportError:
    duckdb = None
if duckdb is not None:
    query = f"SELECT system, max(throughput_per_gpu) FROM '{out}/runs.parquet' GROUP BY 1"
    print(duckdb.sql(query + " ORDER BY 1").fetchall())
