#!/usr/bin/env python3
"""A scheduler that breaks the rules: it starts every arriving job on device 0, taken or not."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from dlsim import Scheduler  # noqa: E402


class DeviceZero(Scheduler):
    def on_hello(self, view):
        self.new = []

    def on_arrival(self, job, view):
        self.new.append(job)

    def schedule(self, control):
        for job in self.new:
            control.start(job.id, [0] * job.device_count)
        self.new = []


DeviceZero().run()
