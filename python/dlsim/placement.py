"""Placement strategies, the same algorithms as policies/placement.cpp: which free devices a
job's workers get. Each returns a list of device ids, or None when the job does not fit now."""

from __future__ import annotations

from typing import List, Optional

from .view import Job, View


def take_on_node(view: View, n: int, t: int, workers: int, per_worker: int, out: List[int]) -> None:
    """Appends workers x per_worker free devices of type t on node n, lowest ids first."""
    want = workers * per_worker
    devices = view.cluster.devices
    holders = view.holders
    for d in view.cluster.nodes[n].devices:
        if want == 0:
            break
        if devices[d].type == t and holders[d] == 0:
            out.append(d)
            want -= 1


def consolidate(view: View, job: Job, t: int, workers: int) -> Optional[List[int]]:
    """Fewest nodes: one node by best fit, else the nodes with most free devices first."""
    dpw = job.devices_per_worker
    need = workers * dpw
    most = view.cluster.max_per_node[t]
    out: List[int] = []
    for k in range(need, most + 1):
        for n in view.nodes_with(t, k):
            if view.workers_fitting_on(job, n, t) >= workers:
                take_on_node(view, n, t, workers, dpw, out)
                return out
    left = workers
    k = most
    while k >= dpw and left > 0:
        for n in view.nodes_with(t, k):
            fit = min(left, view.workers_fitting_on(job, n, t))
            if fit == 0:
                continue
            take_on_node(view, n, t, fit, dpw, out)
            left -= fit
            if left == 0:
                break
        if k == 0:
            break
        k -= 1
    return None if left > 0 else out


def spread(view: View, job: Job, t: int, workers: int) -> Optional[List[int]]:
    """One worker per node in rounds, most free nodes first."""
    dpw = job.devices_per_worker
    most = view.cluster.max_per_node[t]
    taken = [0] * len(view.cluster.nodes)
    left = workers
    while left > 0:
        placed = 0
        k = most
        while k >= dpw and left > 0:
            for n in view.nodes_with(t, k):
                if view.workers_fitting_on(job, n, t) <= taken[n]:
                    continue
                taken[n] += 1
                placed += 1
                left -= 1
                if left == 0:
                    break
            if k == 0:
                break
            k -= 1
        if placed == 0:
            return None
    out: List[int] = []
    for n, count in enumerate(taken):
        if count > 0:
            take_on_node(view, n, t, count, dpw, out)
    return out


def first_fit(view: View, job: Job, t: int, workers: int) -> Optional[List[int]]:
    """The first node in id order that holds every worker, else nodes in id order."""
    dpw = job.devices_per_worker
    out: List[int] = []
    first = None
    for k in range(workers * dpw, view.cluster.max_per_node[t] + 1):
        for n in view.nodes_with(t, k):
            if first is not None and n > first:
                break
            if view.workers_fitting_on(job, n, t) >= workers:
                first = n
                break
    if first is not None:
        take_on_node(view, first, t, workers, dpw, out)
        return out
    left = workers
    for n in range(len(view.cluster.nodes)):
        if left == 0:
            break
        fit = min(left, view.workers_fitting_on(job, n, t))
        if fit == 0:
            continue
        take_on_node(view, n, t, fit, dpw, out)
        left -= fit
    return None if left > 0 else out


STRATEGIES = {"consolidate": consolidate, "spread": spread, "first-fit": first_fit}


def place_on_type(view: View, job: Job, strategy: str, workers: int, t: int) -> Optional[List[int]]:
    """Devices of type t for ``workers`` workers of the job, or None (placement.cpp
    ``place_on_type``). Parameter servers that hold cores (ps_cpus) are not checked here: dlsim
    refuses such a start if their cores do not fit."""
    if job.is_host_task:
        # A host task holds no device: [] (start it so) when View.host_fit finds nodes.
        return [] if view.host_fit(job) is not None else None
    if view.free(t) < workers * job.devices_per_worker:
        return None
    fn = STRATEGIES.get(strategy)
    if fn is None:
        raise ValueError(f"placement '{strategy}' is not offered in Python (known: {', '.join(STRATEGIES)})")
    return fn(view, job, t, workers)


def place(view: View, job: Job, strategy: Optional[str] = None, workers: Optional[int] = None) -> Optional[List[int]]:
    """The first of the job's compatible types that fits (placement.cpp ``place``)."""
    strategy = strategy or view.placement
    workers = job.workers if workers is None else workers
    if job.is_host_task:
        return [] if view.host_fit(job) is not None else None
    for t in job.types:
        out = place_on_type(view, job, strategy, workers, t)
        if out is not None:
            return out
    return None
