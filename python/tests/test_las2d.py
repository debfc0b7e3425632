"""The 2D-LAS example (python/examples/las2d.py) on the two-node cluster of helpers.hello (2 nodes
of 4 V100): its wake-up at a threshold crossing, demotion, and preemption by a job of a higher
queue. tests/external_policy_test.sh compares it with the C++ tiresias on whole runs."""

import io
import json
import os
import sys

from helpers import decide, hello, node, request, state

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python", "examples"))

from las2d import TwoDLas  # noqa: E402

from dlsim import serve  # noqa: E402


def run(messages):
    out = io.StringIO()
    serve(TwoDLas(), io.StringIO("".join(json.dumps(m) + "\n" for m in messages)), out)
    return [json.loads(line) for line in out.getvalue().splitlines()[1:]]


def test_a_demoted_job_is_preempted_by_a_new_one():
    h = hello(options={"thresholds": [10]})
    h["config"]["costs"].update(suspend_s=5, resume_s=5)
    first = decide(1, 0, arrived=[request(0, workers=2, dpw=4)], jobs=[state(0)])
    # Job 0 (2 workers x 4 GPUs) has run 2 s on all 8: 16 GPU-seconds, past the threshold of 10;
    # job 1 (1 GPU) arrives in the first queue and outranks it.
    running = state(0, "running", devices=list(range(8)), attained=0.0, last_update=0)
    second = decide(2, 2_000_000, arrived=[request(1)], jobs=[running, state(1)],
                    nodes=[node(0, [1, 1, 1, 1]), node(1, [1, 1, 1, 1])])
    replies = run([h, first, second])
    # Decision 1: job 0 takes both nodes and runs at once (start_s 0); it reaches 10 GPU-seconds
    # after 10 / 8 = 1.25 s: a wake-up then.
    assert replies[0]["actions"] == [{"op": "start", "job": 0, "devices": list(range(8))}]
    assert replies[0]["wake_at"] == [1_250_000]
    # Decision 2: job 0, now in the second queue, is suspended for job 1; job 1 waits for the
    # devices the suspend frees (5 s later), so it is not started yet.
    assert replies[1]["actions"] == [{"op": "suspend", "job": 0, "reason": "outranked by job 'job1'"}]
    assert "wake_at" not in replies[1]


def test_jobs_of_one_queue_do_not_preempt_each_other():
    h = hello(options={"thresholds": [1000]})
    first = decide(1, 0, arrived=[request(0, workers=2, dpw=4)], jobs=[state(0)])
    running = state(0, "running", devices=list(range(8)), attained=0.0, last_update=0)
    second = decide(2, 2_000_000, arrived=[request(1)], jobs=[running, state(1)],
                    nodes=[node(0, [1, 1, 1, 1]), node(1, [1, 1, 1, 1])])
    replies = run([h, first, second])
    # 16 GPU-seconds are below 1000: both jobs are in the first queue, job 0 holding, so job 1
    # waits and nothing is suspended. The wake-up of decision 1, (1000 / 8) s = 125 s, is still
    # due, so decision 2 asks for none.
    assert replies[0]["wake_at"] == [125_000_000]
    assert replies[1]["actions"] == []
    assert "wake_at" not in replies[1]
