#!/usr/bin/env python3
"""Answers hello with protocol argv[2] (default 2), then decision 1 with the actions of argv[1]
(a JSON list), then waits for the end: for the error tests of tests/external_policy_test.sh."""
import json
import sys

sys.stdin.readline()
print(json.dumps({"type": "ready", "protocol": int(sys.argv[2]) if len(sys.argv) > 2 else 2}), flush=True)
if sys.stdin.readline():
    print(json.dumps({"type": "actions", "seq": 1, "actions": json.loads(sys.argv[1])}), flush=True)
sys.stdin.read()
