#!/usr/bin/env python3
"""A scheduler that crashes: FIFO until the 5th decision, then exits with status 3."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))
from fifo import Fifo  # noqa: E402


class Crashes(Fifo):
    decisions = 0

    def schedule(self, control):
        self.decisions += 1
        if self.decisions == 5:
            sys.exit(3)
        super().schedule(control)


Crashes().run()
