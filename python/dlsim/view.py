"""Typed, read-only views of the cluster, the jobs and the observations a scheduler may use.

They mirror the C++ ``View`` (sim/runtime/view.h) and are kept up to date from the engine's
messages (docs/protocol.md); a scheduler never edits them except through the actions of
:class:`dlsim.Control`, which update them the way the runtime does at once (devices held,
cores and memory taken), so that later placements in the same decision see the change.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

MICROS_PER_SECOND = 1_000_000


# The last microsecond a run may reach and "never" (sim/engine/time.h kMaxTime, kNever).
MAX_SECONDS = 4e9
MAX_TIME = int(MAX_SECONDS) * MICROS_PER_SECOND
NEVER = 2**63 - 1

# Slack of every fit test on cores, memory and shares (sim/cluster/fit.h kFitSlack).
FIT_SLACK = 1e-9
UNBOUNDED = 2**32 - 1


def to_seconds(t: int) -> float:
    """Microseconds to seconds, exactly as sim/engine/time.h's ``to_seconds``."""
    return float(t) / MICROS_PER_SECOND


def wakeup_after(now: int, s: float) -> int:
    """``now + s`` rounded up to the microsecond, or NEVER beyond the run's time limit
    (sim/engine/time.h ``wakeup_after``): for a wake-up at a projected time."""
    if not (s <= MAX_SECONDS - to_seconds(now)):
        return NEVER
    at = now + math.ceil(s * MICROS_PER_SECOND)
    return at if at <= MAX_TIME else NEVER


def fits_in(need: float, free: float) -> bool:
    return need <= free + FIT_SLACK


def workers_in(free: float, per: float, unbounded: int = UNBOUNDED) -> int:
    """The most workers of ``per`` each that fit in ``free`` (sim/cluster/fit.h ``workers_in``,
    the same steps, so that a count here is the one the runtime accepts)."""
    if per <= 0:
        return unbounded
    k = math.floor((free + FIT_SLACK) / per)
    if not (k > 0):
        return 0
    if k >= unbounded:
        return unbounded
    while k > 0 and not fits_in(k * per, free):
        k -= 1
    while k + 1 < unbounded and fits_in((k + 1) * per, free):
        k += 1
    return int(k)


@dataclass(frozen=True)
class DeviceType:
    id: int
    name: str
    kind: str  # "gpu", "cpu", "xeonphi" or "fpga" (DeviceKind)
    memory_gb: float


@dataclass(frozen=True)
class Node:
    id: int
    rack: int
    first_device: int
    device_count: int
    cpu_cores: float
    memory_gb: float

    @property
    def devices(self) -> range:
        return range(self.first_device, self.first_device + self.device_count)


@dataclass(frozen=True)
class Device:
    id: int
    type: int
    node: int


@dataclass
class Cluster:
    types: List[DeviceType]
    nodes: List[Node]
    devices: List[Device]
    # Per type: the most devices of it on one node (FreeIndex::max_per_node).
    max_per_node: List[int] = field(default_factory=list)
    # Per type: its devices in the cluster.
    type_counts: List[int] = field(default_factory=list)

    @staticmethod
    def from_message(msg: dict) -> "Cluster":
        types = [DeviceType(i, t["name"], t["kind"], t["memory_gb"]) for i, t in enumerate(msg["types"])]
        nodes = [
            Node(i, n["rack"], n["first_device"], n["device_count"], n["cpu_cores"], n["memory_gb"])
            for i, n in enumerate(msg["nodes"])
        ]
        devices = [Device(i, d["type"], d["node"]) for i, d in enumerate(msg["devices"])]
        most = [0] * len(types)
        for node in nodes:
            count = [0] * len(types)
            for d in node.devices:
                count[devices[d].type] += 1
            most = [max(a, b) for a, b in zip(most, count)]
        counts = [0] * len(types)
        for d in devices:
            counts[d.type] += 1
        return Cluster(types, nodes, devices, most, counts)


@dataclass
class Job:
    """What the scheduler knows of one submitted job: its request (fixed) and its state (updated
    from the engine's messages)."""

    id: int
    name: str
    submit: int  # microseconds
    workers: int
    devices_per_worker: int
    min_workers: int
    max_workers: int
    ps: int
    ps_cpus: int
    cpus_per_worker: float
    mem_gb_per_worker: float
    gpu_mem_gb: float
    gpu_share_min: float
    gpu_share_max: float
    requested_time_s: float
    priority: int
    user: str
    queue: str
    model: str
    types: List[int]  # compatible device types, in the order to try them
    # State, as the runtime last settled it (job.h JobState).
    status: str = "pending"
    devices: List[int] = field(default_factory=list)
    done: float = 0.0
    attained: float = 0.0  # device-seconds at last_update
    run_time: int = 0  # microseconds at last_update
    last_update: int = 0
    iter_s: float = 0.0  # measured seconds per iteration while running, else 0
    preemptions: int = 0
    gpu_util: Optional[float] = None  # measured once profiled (View::measured_gpu_util)

    @property
    def device_count(self) -> int:
        """Devices requested: workers x devices per worker."""
        return self.workers * self.devices_per_worker

    @property
    def is_host_task(self) -> bool:
        return self.devices_per_worker == 0

    def _unsettled(self, now: int) -> int:
        return now - self.last_update if self.status == "running" and now > self.last_update else 0

    def settle(self, now: int) -> None:
        """Brings attained service and run time up to ``now``, as the runtime does when a job's
        state changes (simulation.cpp ``settle``; ``done`` is left as last reported)."""
        dt = self._unsettled(now)
        if dt > 0:
            self.attained += float(len(self.devices)) * to_seconds(dt)
            self.run_time += dt
        self.last_update = now

    def attained_at(self, now: int) -> float:
        """Device-seconds of running up to ``now`` (job.h ``attained_at``, the same arithmetic)."""
        dt = self._unsettled(now)
        return self.attained + float(len(self.devices)) * to_seconds(dt) if dt > 0 else self.attained

    def run_time_at(self, now: int) -> float:
        """Seconds spent running up to ``now`` (job.h ``run_time_at``)."""
        return to_seconds(self.run_time + self._unsettled(now))


_REQUEST_KEYS = (
    "id name submit workers devices_per_worker min_workers max_workers ps ps_cpus cpus_per_worker "
    "mem_gb_per_worker gpu_mem_gb gpu_share_min gpu_share_max requested_time_s priority user queue "
    "model types"
).split()
_STATE_KEYS = ("status", "devices", "done", "attained", "run_time", "last_update", "iter_s", "preemptions")


class View:
    """The scheduler's picture of the run (sim/runtime/view.h): jobs by id, device holders and
    free cores and memory by node, and the time of the decision."""

    def __init__(self, hello: dict):
        self.cluster = Cluster.from_message(hello["cluster"])
        self.placement: str = hello["placement"]
        self.options = hello.get("options") or {}
        self.seed: int = hello["seed"]
        self.config: dict = hello["config"]
        self.now: int = 0
        self.jobs: Dict[int, Job] = {}
        c = self.cluster
        self.holders: List[int] = [0] * len(c.devices)
        # Per device: the share guaranteed to its holders (their summed gpu_share_min) and the
        # GPU memory they hold, as the runtime's share controller counts them.
        self.guaranteed: List[float] = [0.0] * len(c.devices)
        self.gpu_mem_gb: List[float] = [0.0] * len(c.devices)
        self.cpu_free: List[float] = [n.cpu_cores for n in c.nodes]
        self.mem_free: List[float] = [n.memory_gb for n in c.nodes]
        # free[n][t]: free devices of type t on node n; free_total[t] over the cluster.
        self._free: List[List[int]] = [[0] * len(c.types) for _ in c.nodes]
        self._free_total: List[int] = [0] * len(c.types)
        # _buckets[t][k]: the nodes with exactly k free devices of type t, in id order (k > 0),
        # as the runtime's FreeIndex: placement looks at the few nodes with room, not at all.
        self._buckets: List[List[List[int]]] = [[[] for _ in range(m + 1)] for m in c.max_per_node]
        self._empty: List[int] = []
        for n in c.nodes:
            self._recount(n.id)

    # --- updates from the engine ---

    def _recount(self, n: int) -> None:
        row = self._free[n]
        new = [0] * len(row)
        devices = self.cluster.devices
        holders = self.holders
        for d in self.cluster.nodes[n].devices:
            if holders[d] == 0:
                new[devices[d].type] += 1
        for t, k in enumerate(new):
            old = row[t]
            if k == old:
                continue
            self._free_total[t] += k - old
            bucket = self._buckets[t]
            if old > 0:
                del bucket[old][bisect.bisect_left(bucket[old], n)]
            if k > 0:
                bisect.insort(bucket[k], n)
            row[t] = k

    def _apply(self, msg: dict) -> None:
        self.now = msg["t"]
        for r in msg["arrived"]:
            self.jobs[r["id"]] = Job(**{k: r[k] for k in _REQUEST_KEYS})
        for s in msg["jobs"]:
            job = self.jobs.get(s["id"])
            if job is None:
                continue
            for k in _STATE_KEYS:
                setattr(job, k, s[k])
            job.gpu_util = s.get("gpu_util")
        for s in msg["nodes"]:
            n = s["id"]
            self.cpu_free[n] = s["cpu_free"]
            self.mem_free[n] = s["mem_free"]
            first = self.cluster.nodes[n].first_device
            end = first + len(s["holders"])
            self.holders[first:end] = s["holders"]
            if "guaranteed" in s:
                self.guaranteed[first:end] = s["guaranteed"]
                self.gpu_mem_gb[first:end] = s["gpu_mem_gb"]
            self._recount(n)

    def _hold(self, job: Job, devices: Sequence[int], cores: bool = True) -> None:
        """What the runtime does at once when a job takes devices: one more holder of each, its
        workers' cores and memory taken on their nodes."""
        nodes = set()
        for d in devices:
            self.holders[d] += 1
            self.gpu_mem_gb[d] += job.gpu_mem_gb
            self.guaranteed[d] += job.gpu_share_min
            nodes.add(self.cluster.devices[d].node)
        per_worker = max(job.devices_per_worker, 1)
        if cores:
            for i in range(0, len(devices), per_worker):
                n = self.cluster.devices[devices[i]].node
                self.cpu_free[n] -= job.cpus_per_worker
                self.mem_free[n] -= job.mem_gb_per_worker
        for n in sorted(nodes):
            self._recount(n)

    def _release(self, job: Job) -> None:
        """The reverse of _hold: a job's devices, cores and memory are free again."""
        nodes = set()
        per_worker = max(job.devices_per_worker, 1)
        for i, d in enumerate(job.devices):
            self.holders[d] -= 1
            self.gpu_mem_gb[d] -= job.gpu_mem_gb
            self.guaranteed[d] -= job.gpu_share_min
            if self.holders[d] == 0:  # no drift from repeated add and subtract, as the runtime
                self.gpu_mem_gb[d] = 0.0
                self.guaranteed[d] = 0.0
            n = self.cluster.devices[d].node
            nodes.add(n)
            if i % per_worker == 0:
                self.cpu_free[n] += job.cpus_per_worker
                self.mem_free[n] += job.mem_gb_per_worker
        for n in sorted(nodes):
            self._recount(n)

    # --- reading ---

    def type_of(self, job: Job) -> Optional[int]:
        """The device type a job holds (None when it holds no device)."""
        return self.cluster.devices[job.devices[0]].type if job.devices else None

    def devices_of_type(self, t: int) -> int:
        """Devices of type t in the cluster, busy or not (View::devices_of_type)."""
        return self.cluster.type_counts[t]

    def host_fit(self, job: Job) -> Optional[List[int]]:
        """Nodes for a host task's workers, lowest ids first, or None (View::host_fit)."""
        if not job.is_host_task:
            return None
        nodes: List[int] = []
        for n in range(len(self.cluster.nodes)):
            if len(nodes) >= job.workers:
                break
            k = min(self.workers_fitting_on(job, n, 0), job.workers - len(nodes))
            nodes.extend([n] * k)
        return nodes if len(nodes) >= job.workers else None

    def free(self, t: int) -> int:
        """Free devices of type t in the cluster."""
        return self._free_total[t]

    def free_on(self, n: int, t: int) -> int:
        return self._free[n][t]

    def nodes_with(self, t: int, k: int) -> List[int]:
        """Nodes with exactly k free devices of type t, in id order (none for k = 0). The list is
        the view's own: read it, do not keep or change it."""
        buckets = self._buckets[t]
        if k <= 0 or k >= len(buckets):
            return self._empty
        return buckets[k]

    def workers_fitting_on(self, job: Job, n: int, t: int) -> int:
        """How many of the job's workers fit on node n (View::workers_fitting_on)."""
        k = job.workers if job.is_host_task else self._free[n][t] // job.devices_per_worker
        k = min(k, workers_in(self.cpu_free[n], job.cpus_per_worker))
        return min(k, workers_in(self.mem_free[n], job.mem_gb_per_worker))

    def attained(self, job_id: int) -> float:
        """Device-seconds the job has run so far (Tiresias' attained service)."""
        return self.jobs[job_id].attained_at(self.now)

    def pending(self) -> List[Job]:
        return [j for j in self.jobs.values() if j.status in ("pending", "suspended", "binding")]

    def running(self) -> List[Job]:
        return [
            j
            for j in self.jobs.values()
            if j.status in ("starting", "running", "suspending", "migrating", "resizing")
        ]
