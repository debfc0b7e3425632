import json
import os
import subprocess

import pytest

from dlsim.results import load

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DLSIM = os.path.join(ROOT, "build", "dlsim")


def write_run(d):
    # Two jobs: JCTs 890 and 4058 s, mean (890 + 4058) / 2 = 2474.
    (d / "jobs.csv").write_text("id,submit_s,jct_s,status\njob0,0,890,finished\njob1,27.961,4058,finished\n")
    (d / "timeseries.csv").write_text("time_s,running_jobs\n0,1\n60,2\n")
    (d / "summary.json").write_text(json.dumps({"jobs": 2, "jct_mean_s": 2474, "window": {"jobs": 1}}))


def test_loads_the_three_files(tmp_path):
    write_run(tmp_path)
    r = load(str(tmp_path))
    assert list(r.jobs["id"]) == ["job0", "job1"]
    assert r.jobs["jct_s"].mean() == 2474
    assert list(r.timeseries["running_jobs"]) == [1, 2]
    assert r.summary.loc[0, "jct_mean_s"] == 2474
    assert r.summary.loc[0, "window.jobs"] == 1  # nested keys flattened
    assert r.summary_dict["jobs"] == 2


def test_a_run_without_summary_is_not_complete(tmp_path):
    write_run(tmp_path)
    (tmp_path / "summary.json").unlink()
    with pytest.raises(FileNotFoundError, match="no summary.json"):
        load(str(tmp_path))


@pytest.mark.skipif(not os.path.exists(DLSIM), reason="needs build/dlsim")
def test_a_real_run(tmp_path):
    out = tmp_path / "run"
    subprocess.run([DLSIM, "run", "-q", "-o", str(out)], check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    r = load(str(out))
    # The default experiment: 500 jobs, all finished; summary.json's mean JCT is jobs.csv's.
    assert len(r.jobs) == 500 and r.summary_dict["finished"] == 500
    assert abs(r.jobs["jct_s"].mean() - r.summary_dict["jct_mean_s"]) < 1e-3
