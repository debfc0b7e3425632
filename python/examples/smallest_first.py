#!/usr/bin/env python3
"""Smallest first: at every decision, start the waiting jobs with the fewest requested devices
first, skipping any that does not fit (so a big job never blocks a small one), and never run
more than `max_running` jobs at once (0 = no limit; policy.params.options.max_running)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from dlsim import Scheduler, place  # noqa: E402


class SmallestFirst(Scheduler):
    def on_hello(self, view):
        self.max_running = int(view.options.get("max_running", 0))
        self.running = 0
        self.waiting = []  # jobs, kept sorted by (devices, id): ties to the earlier job

    def on_arrival(self, job, view):
        self.waiting.append(job)
        self.waiting.sort(key=lambda j: (j.device_count, j.id))

    def on_finish(self, job, view):
        self.running -= 1

    def schedule(self, control):
        for job in list(self.waiting):
            if self.max_running > 0 and self.running >= self.max_running:
                return
            devices = place(control.view, job)
            if devices is None:
                continue  # does not fit now: try the next, larger job
            control.start(job.id, devices)
            self.running += 1
            self.waiting.remove(job)


if __name__ == "__main__":
    SmallestFirst().run()
