#!/usr/bin/env python3
"""A scheduler that answers its first decision with a line that is not JSON."""
import json
import sys

sys.stdin.readline()
print(json.dumps({"type": "ready", "protocol": 2}), flush=True)
sys.stdin.readline()
print("start job 0 please", flush=True)
sys.stdin.readline()
