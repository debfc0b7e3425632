import io
import json
import os
import subprocess
import sys

from dlsim import Scheduler, serve
from helpers import decide, hello, node, request, state

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")


class StartAll(Scheduler):
    """Starts each arriving 1-device job on the next device, and wakes at t + 1 s."""

    def on_hello(self, view):
        self.next = 0
        self.calls = []

    def on_arrival(self, job, view):
        self.calls.append(("arrival", job.id))

    def on_finish(self, job, view):
        self.calls.append(("finish", job.id))

    def schedule(self, control):
        for kind, j in self.calls:
            if kind == "arrival":
                control.start(j, [self.next], reason="test")
                self.next += 1
        self.calls = []
        control.wake_at(control.now + 1_000_000)


def talk(scheduler, messages):
    out = io.StringIO()
    serve(scheduler, io.StringIO("".join(json.dumps(m) + "\n" for m in messages)), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_ready_then_one_reply_per_decision():
    s = StartAll()
    replies = talk(s, [hello(),
                       decide(1, 0, arrived=[request(0), request(1)], jobs=[state(0), state(1)]),
                       decide(2, 5, events=[["finish", 0]], jobs=[state(0, "finished")])])
    assert replies[0] == {"type": "ready", "protocol": 2}
    assert replies[1] == {"type": "actions", "seq": 1, "wake_at": [1_000_000], "actions": [
        {"op": "start", "job": 0, "devices": [0], "reason": "test"},
        {"op": "start", "job": 1, "devices": [1], "reason": "test"}]}
    assert replies[2] == {"type": "actions", "seq": 2, "actions": [], "wake_at": [1_000_005]}


def test_a_start_holds_its_devices_at_once():
    captured = {}

    class Twice(Scheduler):
        def schedule(self, control):
            control.start(0, [2])
            captured["free"] = control.free(0)
            captured["status"] = control.jobs[0].status
            captured["holders"] = control.holders[2]

    talk(Twice(), [hello(), decide(1, 0, arrived=[request(0)], jobs=[state(0)])])
    # 8 devices, one taken by the start: 7 free; device 2 has one holder. The start costs 0 s
    # (costs.start_s in helpers.hello), so the runtime has it running at once.
    assert captured == {"free": 7, "status": "running", "holders": 1}


def test_a_start_that_costs_time_is_starting():
    captured = {}

    class Once(Scheduler):
        def schedule(self, control):
            control.start(0, [2])
            captured["status"] = control.jobs[0].status

    h = hello()
    h["config"]["costs"]["start_s"] = 5
    talk(Once(), [h, decide(1, 0, arrived=[request(0)], jobs=[state(0)])])
    assert captured["status"] == "starting"


def test_a_suspend_settles_the_service_at_once():
    captured = {}

    class Preempt(Scheduler):
        def schedule(self, control):
            control.suspend(0)
            job = control.jobs[0]
            captured.update(status=job.status, attained=job.attained, run_time=job.run_time,
                            preemptions=job.preemptions)

    h = hello()
    h["config"]["costs"]["suspend_s"] = 5
    # Job 0 runs on devices 0 and 1 since t=0 with 10 device-seconds settled then; the decision
    # is at t=3 s: attained 10 + 2 devices x 3 s = 16 device-seconds, run time 3,000,000 us.
    running = state(0, "running", devices=[0, 1], attained=10.0, last_update=0)
    talk(Preempt(), [h, decide(1, 3_000_000, arrived=[request(0, workers=2)], jobs=[running],
                               nodes=[node(0, [1, 1, 0, 0])])])
    assert captured == {"status": "suspending", "attained": 16.0, "run_time": 3_000_000,
                        "preemptions": 1}


def test_other_protocol_versions_get_ours_back():
    h = hello()
    h["protocol"] = 99
    assert talk(StartAll(), [h]) == [{"type": "ready", "protocol": 2}]


def test_fifo_example_blocks_behind_its_head():
    fifo = subprocess.run(
        [sys.executable, os.path.join(EXAMPLES, "fifo.py")],
        input="".join(json.dumps(m) + "\n" for m in [
            hello(),
            # job 0 wants 9 devices (the cluster has 8): it blocks job 1 behind it.
            decide(1, 0, arrived=[request(0, workers=9), request(1)], jobs=[state(0), state(1)]),
        ]),
        capture_output=True, text=True, check=True)
    replies = [json.loads(line) for line in fifo.stdout.splitlines()]
    assert replies[1]["actions"] == []
