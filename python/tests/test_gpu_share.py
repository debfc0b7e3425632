"""The GPU-sharing example (python/examples/gpu_share.py) on one node of 4 V100: best fit by the
share left, the guarantees summing to at most 1, whole-GPU jobs on free devices.
tests/external_policy_test.sh compares it with the C++ gpu-share on whole runs."""

import io
import json
import os
import sys

from helpers import decide, hello, request, state

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python", "examples"))

from gpu_share import GpuShare  # noqa: E402

from dlsim import serve  # noqa: E402


def one_node_hello():
    h = hello()
    h["cluster"]["nodes"] = h["cluster"]["nodes"][:1]
    h["cluster"]["devices"] = h["cluster"]["devices"][:4]
    return h


def share_request(job_id, share):
    r = request(job_id)
    r["gpu_share_min"] = r["gpu_share_max"] = share
    return r


def test_best_fit_by_the_share_left():
    shares = [0.5, 0.25, 0.5, 0.25, 1.0]
    first = decide(1, 0, arrived=[share_request(j, s) for j, s in enumerate(shares)],
                   jobs=[state(j) for j in range(len(shares))])
    out = io.StringIO()
    serve(GpuShare(), io.StringIO("".join(json.dumps(m) + "\n" for m in [one_node_hello(), first])), out)
    actions = json.loads(out.getvalue().splitlines()[1])["actions"]
    placed = [(a["op"], a["job"], a["devices"]) for a in actions]
    # job0 (0.5): nothing shared yet, a free device: 0. job1 (0.25): device 0 has 0.5 guaranteed,
    # room for 0.25 more: 0. job2 (0.5): 0.75 + 0.5 > 1 on device 0, so a free one: 1. job3
    # (0.25): left after it, device 0: 1 - 0.75 - 0.25 = 0; device 1: 1 - 0.5 - 0.25 = 0.25;
    # best fit is device 0. job4 (a whole GPU) starts on a free device: 2.
    assert placed == [("pack", 0, [0]), ("pack", 1, [0]), ("pack", 2, [1]), ("pack", 3, [0]),
                      ("start", 4, [2])]
