"""Loads dlsim's result files into pandas (Debian: python3-pandas), as they are.

    import sys; sys.path.insert(0, "scripts")      # or copy this one file beside your notebook
    import dlsim_results as dr
    sweep = dr.read_sweep("out/")                  # a sweep's results.csv: one row per run
    ok = sweep[sweep.status == "ok"]
    runs = dr.read_runs(["results/a", "results/b"])  # summary.json of result directories
    jobs = dr.read_jobs("results/a")               # jobs.csv

Column names are the files' own (docs/outputs.md): times in seconds end in `_s`, nested
summary.json values are dotted (`util_by_kind.gpu.alloc`), a sweep's swept keys keep the names
the sweep spec gave them. Only the standard library and pandas.
"""

import json
import math
import os

import pandas as pd

__all__ = ["read_sweep", "read_summary", "read_runs", "read_jobs", "t95", "mean_ci95"]


def _file_in(path, name):
    return os.path.join(path, name) if os.path.isdir(path) else path


def read_sweep(path):
    """A sweep's results.csv (or the sweep directory holding it) as a DataFrame, one row per run.

    Numbers are numbers, `error` is text ("" when the run did not fail). Floats are parsed
    round-trip, so each equals its run's summary.json value bit for bit (pandas' default parser
    may be one unit in the last place off)."""
    frame = pd.read_csv(_file_in(path, "results.csv"), dtype={"run": str, "status": str,
                                                              "error": str}, keep_default_na=False,
                        na_values=[""], float_precision="round_trip")
    frame["error"] = frame["error"].fillna("")
    if frame.columns.duplicated().any():
        raise ValueError(f"{path}: repeated column names {list(frame.columns[frame.columns.duplicated()])}")
    return frame


def _flatten(obj, prefix, out):
    for key, value in obj.items():
        name = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            _flatten(value, name, out)
        else:
            out[name] = value


def read_summary(run_dir):
    """A run's summary.json as a Series, nested keys dotted as in results.csv."""
    with open(_file_in(run_dir, "summary.json"), encoding="utf-8") as f:
        flat = {}
        _flatten(json.load(f), "", flat)
    return pd.Series(flat, name=os.path.basename(os.path.normpath(run_dir)))


def read_runs(run_dirs):
    """The summaries of several result directories as a DataFrame, indexed by directory name."""
    frame = pd.DataFrame([read_summary(d) for d in run_dirs])
    frame.index.name = "run"
    return frame


def read_jobs(run_dir):
    """A run's jobs.csv: one row per job; the text columns stay text (a job id `007`)."""
    text = {c: str for c in ("id", "status", "model", "user", "queue", "device_type",
                             "device_kind")}
    return pd.read_csv(_file_in(run_dir, "jobs.csv"), dtype=text, keep_default_na=False,
                       float_precision="round_trip", na_values={c: [""] for c in ("first_start_s", "finish_s", "jct_s",
                                                    "queue_s", "solo_s", "slowdown")})


# Two-sided 95% quantiles of Student's t for 1..30 degrees of freedom (NIST/SEMATECH
# e-Handbook of Statistical Methods, 1.3.6.7.2; the same table as scripts/plot-sweep); beyond
# 30, the normal 1.96 (within 2% of t from 60 on, 4% at 31).
_T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t95(df):
    return _T95[df - 1] if df <= 30 else 1.96


def mean_ci95(values):
    """(mean, half-width of its 95% confidence interval) over seeds: t * s / sqrt(n); 0 for n=1."""
    values = pd.Series(values, dtype=float).dropna()
    n = len(values)
    if n == 0:
        return math.nan, math.nan
    if n == 1:
        return float(values.iloc[0]), 0.0
    return float(values.mean()), t95(n - 1) * float(values.std(ddof=1)) / math.sqrt(n)
