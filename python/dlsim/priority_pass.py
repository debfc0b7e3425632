"""One decision of a preemptive priority policy (2D-LAS, LAS, SRSF): the same choice as
policies/priority_pass.cpp, computed from what the protocol tells a scheduler.

Walk the jobs best first and give each the devices its type still has, counting every device
once busy or not (so a better job may claim a worse running one's devices); check that the chosen
waiting jobs can be placed as consolidated placement would once the devices of the left-out
holders are free; suspend the holders left out, then start or resume the chosen waiting jobs,
best first. The C++ pass keeps incremental indexes for large clusters; this one recomputes what
it needs at each decision, which gives the same answer.
"""

from __future__ import annotations

from typing import Dict, Iterable, List, Optional, Set, Tuple

from .placement import place
from .view import Job, View, workers_in

HOLDING = ("running", "starting")


def is_holder(job: Job) -> bool:
    """Holds devices and is (or is about to be) making progress."""
    return job.status in HOLDING


def shape_of(job: Job) -> Tuple:
    """Jobs of one shape fit the same nodes: workers, devices and host needs per worker, and
    the device types they may use."""
    return (
        job.workers,
        job.devices_per_worker,
        job.cpus_per_worker,
        job.mem_gb_per_worker,
        frozenset(job.types),
    )


def single_type_devices(view: View) -> int:
    """Devices of the cluster's only device type, or 0 when it has devices of several."""
    devices = 0
    for count in view.cluster.type_counts:
        if count == 0:
            continue
        if devices > 0:
            return 0
        devices = count
    return devices


class FreeModel:
    """Free devices, cores and memory by node as they will be once some jobs release theirs and
    others take some: the view's free state plus a difference (kept apart, so that the sums are
    the same floating-point sums as the C++ model's)."""

    def __init__(self, view: View):
        self.view = view
        self.dfree: Dict[Tuple[int, int], int] = {}
        self.dsum: Dict[int, int] = {}
        self.dcpu: Dict[int, float] = {}
        self.dmem: Dict[int, float] = {}

    def free_dev(self, n: int, t: int) -> int:
        return self.view.free_on(n, t) + self.dfree.get((n, t), 0)

    def total_dev(self, t: int) -> int:
        return self.view.free(t) + self.dsum.get(t, 0)

    def _change_dev(self, n: int, t: int, delta: int) -> None:
        self.dfree[(n, t)] = self.dfree.get((n, t), 0) + delta
        self.dsum[t] = self.dsum.get(t, 0) + delta

    def _change_host(self, n: int, cpu: float, mem: float) -> None:
        self.dcpu[n] = self.dcpu.get(n, 0.0) + cpu
        self.dmem[n] = self.dmem.get(n, 0.0) + mem

    def fit(self, job: Job, n: int, t: int) -> int:
        dev = self.free_dev(n, t)
        if dev <= 0:
            return 0
        cpu = self.view.cpu_free[n] + self.dcpu.get(n, 0.0)
        mem = self.view.mem_free[n] + self.dmem.get(n, 0.0)
        k = dev // job.devices_per_worker
        k = min(k, workers_in(cpu, job.cpus_per_worker))
        return min(k, workers_in(mem, job.mem_gb_per_worker))

    def release(self, job: Job) -> None:
        """The job's devices, cores and memory become free."""
        devices = self.view.cluster.devices
        for i, d in enumerate(job.devices):
            dev = devices[d]
            self._change_dev(dev.node, dev.type, 1)
            if i % job.devices_per_worker == 0:
                self._change_host(dev.node, job.cpus_per_worker, job.mem_gb_per_worker)

    def _nodes(self, t: int) -> Iterable[int]:
        """Nodes with devices of type t."""
        return range(len(self.view.cluster.nodes))

    def take(self, job: Job) -> bool:
        """Reserves the job's workers where consolidated placement would put them (one node by
        best fit, else the nodes with most free devices first); False, nothing reserved, if they
        do not fit."""
        dpw = job.devices_per_worker
        need = job.workers * dpw
        for t in job.types:
            if self.total_dev(t) < need:
                continue
            best: Optional[Tuple[int, int]] = None
            for n in self._nodes(t):
                free = self.free_dev(n, t)
                if free < max(need, 1) or (best is not None and (free, n) >= best):
                    continue
                if self.fit(job, n, t) >= job.workers:
                    best = (free, n)
            if best is not None:
                n = best[1]
                self._change_dev(n, t, -need)
                self._change_host(n, -(job.workers * job.cpus_per_worker), -(job.workers * job.mem_gb_per_worker))
                return True
            if job.workers == 1:
                continue  # one worker needs one node: none holds it
            cand = []
            total = 0
            for n in self._nodes(t):
                f = self.fit(job, n, t)
                if f:
                    cand.append((-self.free_dev(n, t), n, f))
                    total += f
            if total < job.workers:
                continue
            cand.sort()
            left = job.workers
            for _, n, f in cand:
                k = min(left, f)
                self._change_dev(n, t, -k * dpw)
                self._change_host(n, -(k * job.cpus_per_worker), -(k * job.mem_gb_per_worker))
                left -= k
                if left == 0:
                    break
            return True
        return False


class PriorityPass:
    """decide() chooses the jobs that should hold devices; apply() suspends and starts."""

    def __init__(self) -> None:
        self.chosen: List[int] = []
        self.suspended: List[int] = []
        self.started: List[int] = []
        # Jobs apply() suspended that may still be releasing their devices: whatever this
        # decision does, those devices will be free, so the placement check counts them free.
        self._releasing: List[int] = []

    def decide(self, view: View, walk: List[int], holders: Set[int], preempt: bool = True) -> None:
        """``walk``: the jobs, best first. ``holders``: the jobs this policy started."""
        jobs = view.jobs
        self._releasing = [j for j in self._releasing if jobs[j].status == "suspending"]
        releasing_now = set(self._releasing)
        counts = view.cluster.type_counts
        first_failed: Dict[Tuple, int] = {}
        # Each round leaves out at least one more job; one or two rounds are the rule.
        for _ in range(8):
            chosen: List[int] = []
            left = list(counts)
            total = sum(left)
            excluded: Set[Tuple] = set()
            for j in walk:
                job = jobs[j]
                holds = is_holder(job)
                if not holds and first_failed:
                    shape = shape_of(job)
                    f = first_failed.get(shape)
                    if f is not None and (f == j or shape in excluded):
                        excluded.add(shape)
                        continue
                if not holds or j in holders:
                    need = job.device_count
                    on = view.type_of(job) if holds else None
                    for t in job.types:
                        if holds and t != on:
                            continue
                        if left[t] < need:
                            continue
                        left[t] -= need
                        total -= need
                        chosen.append(j)
                        break
                if total == 0:
                    break
            self.chosen = chosen

            model = FreeModel(view)
            for j in self._releasing:
                model.release(jobs[j])
            if preempt:
                keep = set(chosen)
                for h in holders:
                    if h not in keep and is_holder(jobs[h]):
                        model.release(jobs[h])
            failed: Set[Tuple] = set()
            for j in chosen:
                job = jobs[j]
                if is_holder(job) or job.is_host_task:
                    continue
                if job.status == "suspending" and j not in releasing_now:
                    model.release(job)
                shape = shape_of(job)
                if shape in failed:
                    continue
                if not model.take(job):
                    failed.add(shape)
                    first_failed[shape] = j
            if not failed:
                return

    def apply(self, control, placement: str, holders: Set[int], preempt: bool = True) -> None:
        """Suspends the holders not chosen (in id order), then starts or resumes the chosen
        waiting jobs best first; a job whose devices are still being released waits for the
        next decision, and once one waits so while a suspended job is still releasing devices,
        the chosen jobs after it wait too (started now, they could take the devices its
        placement check counted on). Updates ``holders``."""
        view = control.view
        jobs = view.jobs
        self.suspended = []
        self.started = []
        if preempt:
            keep = set(self.chosen)
            self.suspended = sorted(
                j for j in holders if j not in keep and not jobs[j].is_host_task and is_holder(jobs[j])
            )
        reason = "outranked"
        if self.suspended:
            for j in self.chosen:
                if j not in holders:
                    reason = f"outranked by job '{jobs[j].name}'"
                    break
        for j in self.suspended:
            control.suspend(j, reason)
            holders.discard(j)
            self._releasing.append(j)
        wait_for_release = False
        for j in self.chosen:
            job = jobs[j]
            if job.status not in ("pending", "suspended"):
                continue
            if wait_for_release:
                break
            devices = place(view, job, placement)
            if devices is None:
                wait_for_release = any(jobs[r].status == "suspending" for r in self._releasing)
                continue
            if job.status == "pending":
                control.start(j, devices)
            else:
                control.resume(j, devices)
            holders.add(j)
            self.started.append(j)
