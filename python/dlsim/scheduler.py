"""The scheduler side of dlsim's external-scheduler protocol (docs/protocol.md).

Subclass :class:`Scheduler`, override the callbacks, and call :func:`run` (or
``MyScheduler().run()``): dlsim starts the script as a child process, sends one ``decide`` message
per decision instant on its stdin and reads one ``actions`` reply per message from its stdout.
The callbacks mirror the C++ ``Policy`` (sim/runtime/policy.h): ``on_arrival``, ``on_finish`` and
``on_action_done`` say what changed, then ``schedule`` decides for all of it through a
:class:`Control`. Print debugging output to stderr: stdout carries the protocol.
"""

from __future__ import annotations

import json
import sys
from typing import IO, List, Optional, Sequence

from .view import Job, View

PROTOCOL_VERSION = 2


class Control:
    """The view plus the actions (sim/runtime/control.h). Each action is sent to dlsim, which
    validates it exactly as an in-process policy's: a refused action ends the run with an error
    naming the decision and the action. Start-like actions update the view at once."""

    def __init__(self, view: View):
        self.view = view
        self.actions: List[dict] = []
        self.wakes: List[int] = []

    # The view's reading calls, for convenience: control.now, control.jobs, ...
    def __getattr__(self, name):
        return getattr(self.view, name)

    def _act(self, op: str, job: int, reason: str, **fields) -> None:
        a = {"op": op, "job": job}
        a.update(fields)
        if reason:
            a["reason"] = reason
        self.actions.append(a)

    def _placed(self, job_id: int, devices: Sequence[int], cost_key: str) -> None:
        """What the runtime does at once when a job takes devices (actions.cpp do_place): it
        holds them, and it is starting while it pays the cost, or running at once when the cost
        is 0 (so a policy sees the status the runtime reports in the same decision)."""
        job = self.view.jobs.get(job_id)
        if job is None:
            return
        if cost_key == "resume_or_start":
            cost_key = "resume_s" if job.status == "suspended" else "start_s"
        self.view._hold(job, devices)
        job.devices = list(devices)
        job.last_update = self.view.now
        job.status = "starting" if self.view.config["costs"].get(cost_key, 0) > 0 else "running"

    def start(self, job: int, devices: Sequence[int], reason: str = "") -> None:
        """A pending job onto free devices (devices_per_worker consecutive ids per worker); a
        host task with no devices goes to ``View.host_fit``'s nodes, as the runtime puts it."""
        self._act("start", job, reason, devices=list(devices))
        j = self.view.jobs.get(job)
        if j is not None and j.is_host_task and not devices:
            self._hosted(j, "start_s")
            return
        self._placed(job, devices, "start_s")

    def _hosted(self, job: Job, cost_key: str) -> None:
        """A host task takes its workers' cores and memory on View.host_fit's nodes."""
        nodes = self.view.host_fit(job)
        if nodes is None:
            return  # dlsim refuses the start and names it
        for n in nodes:
            self.view.cpu_free[n] -= job.cpus_per_worker
            self.view.mem_free[n] -= job.mem_gb_per_worker
        job.last_update = self.view.now
        job.status = "starting" if self.view.config["costs"].get(cost_key, 0) > 0 else "running"

    def pack(self, job: int, devices: Sequence[int], reason: str = "") -> None:
        """A pending or suspended job onto devices other jobs may hold (co-location)."""
        self._act("pack", job, reason, devices=list(devices))
        self._placed(job, devices, "resume_or_start")

    def timeslice(self, job: int, devices: Sequence[int], slice_s: float, reason: str = "") -> None:
        self._act("timeslice", job, reason, devices=list(devices), slice_s=slice_s)
        self._placed(job, devices, "resume_or_start")

    def suspend(self, job: int, reason: str = "") -> None:
        """Preempt to a checkpoint; the devices are freed when the suspend cost is paid."""
        self._act("suspend", job, reason)
        j = self.view.jobs.get(job)
        if j is None:
            return
        # The runtime settles the job's counters at once (attained service and run time up to
        # now) and frees its devices once the suspend cost is paid (actions.cpp do_suspend).
        j.settle(self.view.now)
        j.preemptions += 1
        if self.view.config["costs"].get("suspend_s", 0) > 0:
            j.status = "suspending"
        else:
            j.status = "suspended"
            self.view._release(j)
            j.devices = []

    def resume(self, job: int, devices: Sequence[int], reason: str = "") -> None:
        self._act("resume", job, reason, devices=list(devices))
        self._placed(job, devices, "resume_s")

    def migrate(self, job: int, devices: Sequence[int], reason: str = "") -> None:
        self._act("migrate", job, reason, devices=list(devices))

    def resize(self, job: int, devices: Sequence[int], reason: str = "") -> None:
        self._act("resize", job, reason, devices=list(devices))

    def set_share(self, job: int, share_min: float, share_max: float, reason: str = "") -> None:
        self._act("set_share", job, reason, min=share_min, max=share_max)

    def set_ps(self, job: int, ps: int, reason: str = "") -> None:
        self._act("set_ps", job, reason, ps=ps)

    def set_cpus(self, job: int, ps_cores: float, worker_cores: float, reason: str = "") -> None:
        self._act("set_cpus", job, reason, ps_cores=ps_cores, worker_cores=worker_cores)

    def cancel(self, job: int, reason: str = "") -> None:
        self._act("cancel", job, reason)

    def start_on_nodes(self, job: int, nodes: Sequence[int], reason: str = "") -> None:
        self._act("start_on_nodes", job, reason, nodes=list(nodes))

    def bind(self, job: int, devices: Sequence[int], reason: str = "") -> None:
        self._act("bind", job, reason, devices=list(devices))

    def unbind(self, job: int, reason: str = "") -> None:
        self._act("unbind", job, reason)

    def wake_at(self, t: int) -> None:
        """Be called again at time t (microseconds, after now): a round-based timer."""
        self.wakes.append(int(t))


class Scheduler:
    """Override the callbacks; every one gets the view as it is at the decision instant."""

    def on_hello(self, view: View) -> None:
        """Once, before the first decision: the cluster, the run's settings and options."""

    def on_arrival(self, job: Job, view: View) -> None:
        pass

    def on_finish(self, job: Job, view: View) -> None:
        pass

    def on_action_done(self, job: Job, view: View) -> None:
        """A start, resume, suspend, migration or resize finished paying its cost."""

    def schedule(self, control: Control) -> None:
        raise NotImplementedError

    def run(self, stdin: Optional[IO[str]] = None, stdout: Optional[IO[str]] = None) -> None:
        serve(self, stdin or sys.stdin, stdout or sys.stdout)


def serve(scheduler: Scheduler, stdin: IO[str], stdout: IO[str]) -> None:
    """The message loop: hello, then one reply per decide, until dlsim closes stdin."""
    loads = json.loads
    dumps = json.JSONEncoder(separators=(",", ":")).encode
    line = stdin.readline()
    if not line:
        return
    hello = loads(line)
    if hello.get("type") != "hello":
        raise SystemExit(f"dlsim protocol: expected hello, got {line[:200]!r}")
    if hello.get("protocol") != PROTOCOL_VERSION:
        # Answer with our version so that dlsim names both in its error.
        stdout.write(dumps({"type": "ready", "protocol": PROTOCOL_VERSION}) + "\n")
        stdout.flush()
        return
    view = View(hello)
    scheduler.on_hello(view)
    stdout.write(dumps({"type": "ready", "protocol": PROTOCOL_VERSION}) + "\n")
    stdout.flush()
    jobs = view.jobs
    for line in stdin:
        msg = loads(line)
        view._apply(msg)
        for kind, j in msg["events"]:
            if kind == "arrival":
                scheduler.on_arrival(jobs[j], view)
            elif kind == "finish":
                scheduler.on_finish(jobs[j], view)
            else:
                scheduler.on_action_done(jobs[j], view)
        control = Control(view)
        scheduler.schedule(control)
        reply = {"type": "actions", "seq": msg["seq"], "actions": control.actions}
        if control.wakes:
            reply["wake_at"] = control.wakes
        stdout.write(dumps(reply) + "\n")
        stdout.flush()
