#!/usr/bin/env python3
"""Tiresias' discretized 2D-LAS in Python: the same decisions as dlsim's `tiresias`
(policies/tiresias.cpp) with the same parameters, from what the protocol tells a scheduler.

A job's attained service is GPUs x time run (GPU-seconds, the `attained` the engine reports, brought
up to the decision's time). K queues split it at `thresholds`; a new job enters the first queue and
moves down one queue each time its attained service since it last entered the first queue passes
that queue's threshold. Queues are served in priority order, FIFO within a queue, jobs that hold
devices ahead of the waiting ones of their queue; a job preempts only jobs of lower queues. The
starvation guard (`promote_knob`, the paper's PROMOTEKNOB) moves a waiting job back to the first
queue once it has waited longer than promote_knob times the time it has run since it last
entered that queue. Options (policy.params.options) are tiresias' parameters:
    dlsim run --policy external:"python3 python/examples/las2d.py" \\
        --set 'policy.params.options={thresholds: [3600], promote_knob: 0}'
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from dlsim import Scheduler, to_seconds  # noqa: E402
from dlsim.priority_pass import PriorityPass  # noqa: E402
from dlsim.view import NEVER, wakeup_after  # noqa: E402

HOLDING, WAITING = 0, 1  # the second part of a job's key: holders first in their queue


class Info:
    __slots__ = ("queue", "seq", "group", "base_attained", "base_run_s", "first_run", "promote_at")

    def __init__(self, seq):
        self.queue = 0
        self.seq = seq
        self.group = WAITING
        self.base_attained = 0.0  # attained service when the job last entered the first queue
        self.base_run_s = 0.0  # seconds run by then
        self.first_run = -1  # first start since then (-1: not yet)
        self.promote_at = NEVER


class TwoDLas(Scheduler):
    def on_hello(self, view):
        o = view.options
        self.thresholds = [float(x) for x in o.get("thresholds", [3600])]
        for i, x in enumerate(self.thresholds):
            if not x > 0 or (i > 0 and not x > self.thresholds[i - 1]):
                raise SystemExit(
                    f"las2d.py: options.thresholds: expected positive GPU-seconds in increasing "
                    f"order, got {x} at position {i + 1}"
                )
        self.knob = float(o.get("promote_knob", 0))
        if self.knob < 0:
            raise SystemExit(f"las2d.py: options.promote_knob: expected a number >= 0, got {self.knob}")
        order = o.get("queue_order", "entry")
        if order not in ("entry", "running-first"):
            raise SystemExit(f"las2d.py: options.queue_order: expected entry or running-first, got {order!r}")
        self.running_first = order == "running-first"
        self.info = {}  # job id -> Info, for every arrived, unfinished job
        self.holders = set()  # started or resumed by this policy, not since suspended
        self.host_waiting = []
        self.promotions = set()  # (time, job): starvation guard deadlines
        self.seq = 0
        self.wake = -1
        self.pass_ = PriorityPass()

    def next_seq(self):
        self.seq += 1
        return self.seq

    def on_arrival(self, job, view):
        # A host task attains no device service: it starts when nodes have room and is never
        # preempted.
        if job.is_host_task:
            self.host_waiting.append(job.id)
            return
        self.info[job.id] = Info(self.next_seq())

    def on_finish(self, job, view):
        info = self.info.pop(job.id, None)
        if info is None:
            return
        self.holders.discard(job.id)
        self.promotions.discard((info.promote_at, job.id))

    def service(self, view, j):
        """Attained service since the job last entered the first queue."""
        return view.jobs[j].attained_at(view.now) - self.info[j].base_attained

    def schedule(self, control):
        view = control.view
        still = []
        for j in self.host_waiting:
            if view.jobs[j].status != "pending":
                continue
            if view.host_fit(view.jobs[j]) is not None:
                control.start(j, [])
            else:
                still.append(j)
        self.host_waiting = still

        self.demote(view)
        self.promote_starved(view)
        if len(self.info) > len(self.holders):
            walk = sorted(self.info, key=lambda j: self.key(j))
            self.pass_.decide(view, walk, self.holders)
            self.pass_.apply(control, view.placement, self.holders)
            for j in self.pass_.suspended:
                self.now_waiting(view, j)
            for j in self.pass_.started:
                self.now_holding(view, j)
        if self.running_first:
            self.requeue_running_first()
        self.request_wakeup(control)

    def key(self, j):
        i = self.info[j]
        return (i.queue, i.group, i.seq, j)

    def demote(self, view):
        last = len(self.thresholds)
        for j in sorted(self.holders):
            info = self.info[j]
            if info.queue >= last:
                continue
            service = self.service(view, j)
            moved = False
            # 1e-6 GPU-seconds of slack: a wake-up is rounded up to the microsecond, and the
            # product devices x seconds may land a hair below the threshold.
            while info.queue < last and service >= self.thresholds[info.queue] - 1e-6:
                info.queue += 1
                moved = True
            if moved:
                info.seq = self.next_seq()  # enters the back of its new queue
                info.group = WAITING if self.running_first else HOLDING

    def promote_starved(self, view):
        for at, j in sorted(p for p in self.promotions if p[0] <= view.now):
            self.promotions.discard((at, j))
            info = self.info[j]
            job = view.jobs[j]
            info.promote_at = NEVER
            info.queue = 0
            info.seq = self.next_seq()
            info.base_attained = job.attained_at(view.now)
            info.base_run_s = job.run_time_at(view.now)
            info.first_run = -1
            info.group = WAITING

    def requeue_running_first(self):
        """Renumbers every job in its current order, holders first."""
        order = sorted(self.info, key=lambda j: self.key(j))
        for group in (HOLDING, WAITING):
            for j in order:
                if (j in self.holders) != (group == HOLDING):
                    continue
                self.info[j].seq = self.next_seq()
                self.info[j].group = group

    def now_holding(self, view, j):
        info = self.info[j]
        if info.first_run < 0:
            info.first_run = view.now
        self.promotions.discard((info.promote_at, j))
        info.promote_at = NEVER
        info.group = HOLDING

    def now_waiting(self, view, j):
        info = self.info[j]
        info.group = WAITING
        if self.knob <= 0 or info.queue == 0:
            return
        # Waiting grows at 1 s/s while the job waits, its run time does not: the guard fires at
        # now + (knob x executed - waited so far).
        executed = view.jobs[j].run_time_at(view.now) - info.base_run_s
        waited = to_seconds(view.now - info.first_run) - executed
        left = self.knob * executed - waited
        info.promote_at = wakeup_after(view.now, left) if left > 0 else view.now + 1
        if info.promote_at != NEVER:
            self.promotions.add((info.promote_at, j))

    def request_wakeup(self, control):
        """A decision when a running job crosses its queue's threshold or a waiting one is due
        for promotion, so that both happen on time."""
        view = control.view
        nxt = min(self.promotions)[0] if self.promotions else NEVER
        last = len(self.thresholds)
        for j in self.holders:
            job = view.jobs[j]
            info = self.info[j]
            if info.queue >= last or job.status != "running":
                continue
            left = self.thresholds[info.queue] - self.service(view, j)
            nxt = min(nxt, wakeup_after(view.now, max(0.0, left) / float(len(job.devices))))
        if nxt == NEVER or nxt <= view.now:
            return
        if view.now < self.wake <= nxt:
            return  # an earlier or equal wake-up is due
        self.wake = nxt
        control.wake_at(nxt)


if __name__ == "__main__":
    TwoDLas().run()
