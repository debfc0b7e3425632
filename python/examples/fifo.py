#!/usr/bin/env python3
"""FIFO in Python: the same decisions as dlsim's `fifo` (policies/fifo.cpp, hetero: false).

Jobs start in submission order; a job that does not fit blocks every later job that could use
the kinds of devices it waits for (one queue per device kind: gpu, cpu, ...). Run it with
    dlsim run --policy external:"python3 python/examples/fifo.py"
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from dlsim import Scheduler, place_on_type  # noqa: E402


class Fifo(Scheduler):
    def on_hello(self, view):
        self.kind_of = [t.kind for t in view.cluster.types]
        self.queue = []  # (job, its kinds), in arrival order
        self.waiting_on_kind = {}

    def on_arrival(self, job, view):
        kinds = {self.kind_of[t] for t in job.types}
        for k in kinds:
            self.waiting_on_kind[k] = self.waiting_on_kind.get(k, 0) + 1
        self.queue.append((job, kinds))

    def schedule(self, control):
        view = control.view
        # Kinds some waiting job can use and no earlier waiting job reserved: once none is left,
        # nothing later can start.
        open_kinds = sum(1 for n in self.waiting_on_kind.values() if n > 0)
        reserved = set()
        started = []
        for i, (job, kinds) in enumerate(self.queue):
            if open_kinds == 0:
                break
            if kinds <= reserved:
                continue
            devices = None
            for t in job.types:
                if devices is not None:
                    break
                if self.kind_of[t] not in reserved:
                    devices = place_on_type(view, job, view.placement, job.workers, t)
            if devices is None:
                for k in kinds - reserved:
                    reserved.add(k)
                    open_kinds -= 1
                continue
            control.start(job.id, devices)
            started.append(i)
            for k in kinds:
                self.waiting_on_kind[k] -= 1
                if self.waiting_on_kind[k] == 0 and k not in reserved:
                    open_kinds -= 1
        for i in reversed(started):
            del self.queue[i]


if __name__ == "__main__":
    Fifo().run()
