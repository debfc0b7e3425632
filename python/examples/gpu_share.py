#!/usr/bin/env python3
"""GPU sharing in Python: the same decisions as dlsim's `gpu-share` (policies/gpu_share.cpp).

Jobs start in submission order and the head blocks the rest, as under FIFO. A job asking for a
share of a GPU (gpu_share_min < 1) is packed, worker by worker, onto the device with the least
share left after its min (best fit, ties to the lowest id), among the devices this scheduler
already packed onto whose guaranteed shares, GPU memory and node leave room; a worker that fits
on none takes a free device. The runtime's share controller then grants each job between its
min and max. Whole-GPU jobs start on free devices with the configured placement. It reads each
device's holders, guaranteed share and GPU memory from the engine's node states
(docs/protocol.md). Run it with
    dlsim run -e configs/experiments/fgd-openb.yaml --policy external:"python3 python/examples/gpu_share.py"
"""

import bisect
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from dlsim import Scheduler, place, place_on_type  # noqa: E402
from dlsim.view import fits_in  # noqa: E402

MAX_SHARE = 8  # jobs on one device under the share controller (DeviceSlot::kMaxShare)


class GpuShare(Scheduler):
    def on_hello(self, view):
        self.pending = []  # job ids in arrival order
        self.shared = []  # devices packed onto and still held, in id order

    def on_arrival(self, job, view):
        self.pending.append(job.id)

    def schedule(self, control):
        view = control.view
        self.shared = [d for d in self.shared if view.holders[d] > 0]
        started = 0
        for j in self.pending:
            job = view.jobs[j]
            if job.gpu_share_min < 1:
                devices = self.share_fit(view, job)
                # Node cores and memory of the whole gang are the runtime's check too: a job
                # that would be refused waits, like one that does not fit.
                if devices is None or not self.gang_fits(view, job, devices):
                    break
                control.pack(j, devices, "best fit by share")
                for d in devices:
                    at = bisect.bisect_left(self.shared, d)
                    if at == len(self.shared) or self.shared[at] != d:
                        self.shared.insert(at, d)
            else:
                devices = place(view, job)
                if devices is None:
                    break
                control.start(j, devices)
            started += 1
        del self.pending[:started]

    def has_room(self, view, job, d):
        """Whether device d, already shared, can take one more worker of the job."""
        if view.holders[d] >= MAX_SHARE:
            return False
        if not fits_in(view.guaranteed[d] + job.gpu_share_min, 1):
            return False
        dev = view.cluster.devices[d]
        cap = view.cluster.types[dev.type].memory_gb
        if cap > 0 and job.gpu_mem_gb > 0 and not fits_in(view.gpu_mem_gb[d] + job.gpu_mem_gb, cap):
            return False
        n = dev.node
        return fits_in(job.cpus_per_worker, view.cpu_free[n]) and fits_in(job.mem_gb_per_worker, view.mem_free[n])

    def share_fit(self, view, job):
        """Per worker the shared device of one type with the least share left after the job's
        min, each device once; the workers left over take free devices of that type."""
        for t in job.types:
            chosen = []
            for _ in range(job.workers):
                best, best_left = 0, math.inf
                for d in self.shared:
                    if view.cluster.devices[d].type != t or d in chosen or not self.has_room(view, job, d):
                        continue
                    left = 1 - view.guaranteed[d] - job.gpu_share_min
                    if left < best_left:
                        best, best_left = d, left
                if best_left == math.inf:
                    break
                chosen.append(best)
            rest = job.workers - len(chosen)
            if rest > 0:
                free = place_on_type(view, job, view.placement, rest, t)
                if free is None:
                    continue
                chosen.extend(free)
            return chosen
        return None

    @staticmethod
    def gang_fits(view, job, devices):
        """The runtime's check of a pack's node cores and memory: each node holds the job's
        workers on it together."""
        per_node = {}
        for i in range(0, len(devices), job.devices_per_worker):
            n = view.cluster.devices[devices[i]].node
            per_node[n] = per_node.get(n, 0) + 1
        return all(
            fits_in(job.cpus_per_worker * k, view.cpu_free[n]) and fits_in(job.mem_gb_per_worker * k, view.mem_free[n])
            for n, k in per_node.items()
        )


if __name__ == "__main__":
    GpuShare().run()
