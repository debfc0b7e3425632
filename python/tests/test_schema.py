"""docs/protocol.schema.json against the messages dlsim really sends and the package really
answers: every key of every message is declared in the schema, and every key the schema requires
is there (a drift check between the engine, the package and the docs, not a JSON Schema
validator). Needs build/dlsim; skipped without it."""

import json
import os
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DLSIM = os.path.join(ROOT, "build", "dlsim")


def schema():
    with open(os.path.join(ROOT, "docs", "protocol.schema.json"), encoding="utf-8") as f:
        return json.load(f)["$defs"]


def check(obj, definition, defs, where):
    assert set(definition["required"]) <= set(obj), f"{where}: missing {set(definition['required']) - set(obj)}"
    props = definition["properties"]
    assert set(obj) <= set(props), f"{where}: not in the schema: {set(obj) - set(props)}"
    for key, value in obj.items():
        ref = props[key].get("$ref") or props[key].get("items", {}).get("$ref")
        if ref and ref.startswith("#/$defs/") and "required" in defs[ref[8:]]:
            for i, item in enumerate(value if isinstance(value, list) else [value]):
                check(item, defs[ref[8:]], defs, f"{where}.{key}[{i}]")


@pytest.mark.skipif(not os.path.exists(DLSIM), reason="needs build/dlsim")
def test_real_messages_match_the_schema(tmp_path):
    sent = tmp_path / "sent.ndjson"
    answered = tmp_path / "answered.ndjson"
    fifo = os.path.join(ROOT, "python", "examples", "fifo.py")
    cmd = f"tee {sent} | python3 {fifo} | tee {answered}"
    subprocess.run([DLSIM, "run", "-q", "--policy", "external:" + cmd, "-o", str(tmp_path / "out")],
                   check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    defs = schema()
    lines = sent.read_text().splitlines()
    check(json.loads(lines[0]), defs["hello"], defs, "hello")
    for n, line in enumerate(lines[1:], 1):
        check(json.loads(line), defs["decide"], defs, f"decide {n}")
    replies = answered.read_text().splitlines()
    check(json.loads(replies[0]), defs["ready"], defs, "ready")
    started = 0
    for n, line in enumerate(replies[1:], 1):
        msg = json.loads(line)
        check(msg, defs["actions"], defs, f"actions {n}")
        started += len(msg["actions"])
    # The default experiment: 500 jobs, each started once by FIFO; one decide per reply.
    assert started == 500
    assert len(replies) == len(lines)
