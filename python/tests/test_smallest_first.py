"""The Python example of docs/adding-a-policy.md: the page shows the file exactly, and it makes
the decisions of the page's hand-worked table on one node of 4 GPUs."""

import io
import json
import os
import re
import sys

from helpers import decide, hello, node, request, state

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python", "examples"))

from smallest_first import SmallestFirst  # noqa: E402

from dlsim import serve  # noqa: E402


def one_node_hello(options=None):
    h = hello(options=options)
    h["cluster"]["nodes"] = h["cluster"]["nodes"][:1]
    h["cluster"]["devices"] = h["cluster"]["devices"][:4]
    return h


def test_the_page_shows_the_file():
    with open(os.path.join(ROOT, "docs", "adding-a-policy.md"), encoding="utf-8") as f:
        page = f.read()
    with open(os.path.join(ROOT, "python", "examples", "smallest_first.py"), encoding="utf-8") as f:
        code = f.read()
    blocks = re.findall(r"```python\n(.*?)```", page, re.S)
    assert code in blocks


def run(messages):
    out = io.StringIO()
    serve(SmallestFirst(), io.StringIO("".join(json.dumps(m) + "\n" for m in messages)), out)
    return [json.loads(line)["actions"] for line in out.getvalue().splitlines()[1:]]


def starts(actions):
    return [(a["job"], a["devices"]) for a in actions if a["op"] == "start"]


def test_the_worked_example():
    # A = job 0 (3 GPUs) at 0; B = 1 (4) at 10; C = 2 (1) and D = 3 (2) at 20.
    a, b, c, d = request(0, 3), request(1, 4), request(2, 1), request(3, 2)
    replies = run([
        one_node_hello(),
        decide(1, 0, arrived=[a], jobs=[state(0)]),
        decide(2, 10, arrived=[b], jobs=[state(1)], nodes=[node(0, [1, 1, 1, 0])]),
        decide(3, 20, arrived=[c, d], jobs=[state(2), state(3)]),
        decide(4, 30, events=[["finish", 2]], jobs=[state(2, "finished")], nodes=[node(0, [1, 1, 1, 0])]),
        decide(5, 100, events=[["finish", 0]], jobs=[state(0, "finished")], nodes=[node(0, [0, 0, 0, 0])]),
    ])
    # 0 s: A starts. 10 s: B (4) does not fit the 1 free. 20 s: C (1) starts, D (2) and B do
    # not fit. 30 s: nothing fits the 1 left. 100 s: A is done, D takes 2 of 4, B waits.
    assert [starts(r) for r in replies] == [[(0, [0, 1, 2])], [], [(2, [3])], [], [(3, [0, 1])]]


def test_max_running_one():
    replies = run([
        one_node_hello({"max_running": 1}),
        decide(1, 0, arrived=[request(0, 1), request(1, 1)], jobs=[state(0), state(1)]),
    ])
    # Both fit, but one at a time: the earlier id.
    assert starts(replies[0]) == [(0, [0])]
