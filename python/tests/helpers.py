"""A hello message for a tiny cluster, written by hand: 2 nodes of 4 V100 (devices 0-3 on node
0, 4-7 on node 1), 40 cores and 512 GB each."""


def hello(placement="consolidate", options=None):
    return {
        "type": "hello",
        "protocol": 2,
        "placement": placement,
        "options": options or {},
        "seed": 1,
        "oracle": False,
        "jobs": 10,
        "config": {"profile_s": 60, "costs": {"start_s": 0}},
        "cluster": {
            "types": [{"name": "V100", "kind": "gpu", "memory_gb": 16}],
            "nodes": [
                {"rack": 0, "first_device": 0, "device_count": 4, "cpu_cores": 40, "memory_gb": 512},
                {"rack": 0, "first_device": 4, "device_count": 4, "cpu_cores": 40, "memory_gb": 512},
            ],
            "devices": [{"type": 0, "node": 0 if d < 4 else 1} for d in range(8)],
        },
    }


def request(job_id, workers=1, dpw=1, cpus=0.0, name=None):
    return {
        "id": job_id, "name": name or f"job{job_id}", "submit": 0, "workers": workers,
        "devices_per_worker": dpw, "min_workers": workers, "max_workers": workers, "ps": 0,
        "ps_cpus": 0, "cpus_per_worker": cpus, "mem_gb_per_worker": 0.0, "gpu_mem_gb": 0.0,
        "gpu_share_min": 1.0, "gpu_share_max": 1.0, "requested_time_s": 0.0, "priority": 0,
        "user": "u", "queue": "q", "model": "resnet50", "types": [0],
    }


def state(job_id, status="pending", devices=(), attained=0.0, last_update=0):
    return {"id": job_id, "status": status, "devices": list(devices), "done": 0.0,
            "attained": attained, "run_time": 0, "last_update": last_update, "iter_s": 0.0,
            "preemptions": 0}


def node(n, holders, cpu_free=40.0, mem_free=512.0, guaranteed=None, gpu_mem_gb=None):
    # Whole-GPU holders: each guarantees its device's whole share (gpu_share_min 1), no memory.
    return {"id": n, "cpu_free": cpu_free, "mem_free": mem_free, "holders": holders,
            "guaranteed": guaranteed or [float(h) for h in holders],
            "gpu_mem_gb": gpu_mem_gb or [0.0] * len(holders)}


def decide(seq, t, arrived=(), events=None, jobs=(), nodes=()):
    arrived = list(arrived)
    if events is None:
        events = [["arrival", r["id"]] for r in arrived]
    return {"type": "decide", "seq": seq, "t": t, "arrived": arrived, "events": events,
            "jobs": list(jobs), "nodes": list(nodes)}
