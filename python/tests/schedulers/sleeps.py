#!/usr/bin/env python3
"""A scheduler that hangs: FIFO until the 3rd decision, then sleeps for a minute."""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))
from fifo import Fifo  # noqa: E402


class Hangs(Fifo):
    decisions = 0

    def schedule(self, control):
        self.decisions += 1
        if self.decisions == 3:
            time.sleep(60)
        super().schedule(control)


Hangs().run()
