"""Run results as pandas DataFrames: jobs.csv, timeseries.csv and summary.json of a run
directory (docs/outputs.md). pandas is imported here only, so that a scheduler does not need it.

    from dlsim.results import load
    r = load("results/default-fifo-1")
    r.jobs["jct_s"].mean(), r.summary_dict["jct_mean_s"]  # the same number
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Dict


@dataclass
class Results:
    path: str
    jobs: Any  # pandas.DataFrame, one row per job
    timeseries: Any  # pandas.DataFrame, one row per sample
    summary: Any  # pandas.DataFrame, one row: summary.json flattened (nested keys "a.b")
    summary_dict: Dict[str, Any]  # summary.json as read


def load(path: str) -> Results:
    """Reads a complete run directory. A directory without summary.json is not a finished run
    (dlsim writes summary.json last, docs/outputs.md): FileNotFoundError naming it."""
    import pandas as pd

    summary_path = os.path.join(path, "summary.json")
    if not os.path.exists(summary_path):
        raise FileNotFoundError(f"{path}: no summary.json, so not a complete dlsim run directory")
    with open(summary_path, encoding="utf-8") as f:
        summary = json.load(f)
    jobs = pd.read_csv(os.path.join(path, "jobs.csv"), float_precision="round_trip")
    ts_path = os.path.join(path, "timeseries.csv")
    timeseries = pd.read_csv(ts_path, float_precision="round_trip") if os.path.exists(ts_path) else pd.DataFrame()
    return Results(path, jobs, timeseries, pd.json_normalize(summary), summary)
