#!/usr/bin/env python3
"""Writes the SYNTHETIC PAI 2020 sample in this directory (see README.md here).

The job, task, group-tag and sensor tables are invented: only their columns, value formats and
vocabularies follow the published schema (alibaba/clusterdata cluster-trace-gpu-v2020/README.md).
pai_machine_spec.csv is a real excerpt (CC BY 4.0). Deterministic: python3 generate.py
"""
import hashlib
import random

rng = random.Random(2020)


def h(kind, i, n):
    return hashlib.sha256(f"{kind}-{i}".encode()).hexdigest()[:n]


def t(x):
    return f"{x:.1f}"


jobs, tasks, tags, sensors = [], [], [], []

# Hand-made first jobs: one per case the reader handles (docs/traces.md#pai2020).
#   (plan_gpu per worker, inst_num, gpu_type, extra ps, status, spec, util per instance)
cases = [
    (50, 1, "T4", 0, "Terminated", "", [25.0]),          # half a GPU, packed
    (100, 4, "V100", 2, "Terminated", "V100M32", [60.0, 70.0, 80.0, 90.0]),  # ps + 4 workers
    (800, 1, "V100M32", 0, "Failed", "", [400.0]),       # 8 GPUs, failed
    (25, 2, "MISC", 0, "Terminated", "", []),            # MISC: any GPU, no sensor
    (None, 1, "", 0, "Terminated", "", []),              # CPU only: skipped
    (100, 1, "P100", 0, "Running", "", []),              # still running: skipped
    (150, 2, "P100", 0, "Terminated", "", [120.0, 100.0]),  # 1.5 GPUs -> 2 devices
]
users = [h("user", u, 12) for u in range(12)]
clock = 1_000_000.0
for i in range(120):
    if i < len(cases):
        plan, inst, gtype, ps, status, spec, utils = cases[i]
    else:
        plan = rng.choice([25, 50, 50, 100, 100, 100, 200, 400, 800, None])
        inst = rng.choice([1, 1, 1, 1, 2, 4])
        # Only types whose machines hold the plan (T4 and P100 machines have 2 GPUs, the others 8).
        fits = ["T4", "P100", "V100", "V100M32", "MISC"] if plan is None or plan <= 200 else ["V100", "V100M32", "MISC"]
        gtype = "" if plan is None else rng.choice(fits)
        ps = rng.choice([0, 0, 0, 1, 2]) if inst > 1 else 0
        status = rng.choice(["Terminated"] * 8 + ["Failed", "Running"])
        spec = rng.choice(["", "", ""] + [x for x in ["V100", "T4", "V100M32"] if x in fits]) if plan else ""
        utils = [round(rng.uniform(5, min(plan, 100) if plan else 1), 4) for _ in range(inst)] if plan else []
    name, inst_id, user = h("job", i, 24), h("inst", i, 60), rng.choice(users)
    clock += rng.randint(1, 600)
    submit = clock
    start = submit + rng.randint(0, 120)
    run = rng.randint(20, 20000)
    end = start + run
    running = status == "Running"
    jobs.append([name, inst_id, user, status, t(submit), "" if running else t(end)])
    task_name = "worker" if (ps or i % 3) else "tensorflow"
    tasks.append([name, task_name, t(inst), status, t(start), "" if running else t(end),
                  t(rng.choice([200, 400, 600, 800])), f"{rng.choice([4, 8, 16, 29.296875]):g}",
                  "" if plan is None else t(plan), gtype])
    if ps:
        tasks.append([name, "ps", t(ps), status, t(start), "" if running else t(end), t(600), "8", "", ""])
    if i % 2 == 0 or spec:
        tags.append([inst_id, user, spec, h("group", i % 17, 32), rng.choice(["", "", "bert", "ctr", "nmt", "graphlearn"])])
    for k, u in enumerate(utils):
        worker = h(f"worker-{k}", i, 60)
        sensors.append([name, task_name, worker, inst_id, h("machine", k + i, 24), "/dev/nvidia0",
                        f"{rng.uniform(50, 900):.4f}", f"{u}", f"{rng.uniform(1, 20):.4f}", f"{rng.uniform(20, 40):.4f}",
                        f"{rng.uniform(0.5, 10):.4f}", f"{rng.uniform(10, 16):.4f}", f"{rng.uniform(1e6, 1e8):.1f}",
                        f"{rng.uniform(1e6, 1e8):.1f}", f"{rng.uniform(100, 5000):.1f}", f"{rng.uniform(100, 5000):.1f}"])

for table, rows in [("pai_job_table", jobs), ("pai_task_table", tasks), ("pai_group_tag_table", tags),
                    ("pai_sensor_table", sensors)]:
    with open(f"{table}.csv", "w") as out:
        for r in rows:
            out.write(",".join(str(x) for x in r) + "\n")
