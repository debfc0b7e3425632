"""dlsim.priority_pass on the two-node cluster of helpers.hello (node 0: devices 0-3, node 1:
devices 4-7): the capacity walk leaves out the worst holders, the placement check makes sure
the job preempted for can start, and apply() suspends, then starts once the devices are free."""

from helpers import decide, hello, node, request, state

from dlsim import Control, View
from dlsim.priority_pass import FreeModel, PriorityPass


def cluster_with(jobs, nodes, t=0, arrived=None):
    h = hello()
    h["config"]["costs"].update(suspend_s=5, resume_s=5)
    view = View(h)
    view._apply(decide(1, t, arrived=arrived or [], jobs=jobs, nodes=nodes))
    return view


def test_the_worst_holder_is_suspended_for_a_job_that_can_start():
    # A holds node 0 (4 GPUs), B 2 GPUs of node 1; C, best of the three, waits for 4 GPUs on one
    # node. Walk C, A, B: capacity 8 - 4 (C) - 4 (A) = 0, so B is left out; with B's 2 GPUs
    # released node 1 has 4 free, where C fits. B is suspended; C waits for B's checkpoint.
    reqs = [request(0, workers=1, dpw=4, name="A"), request(1, workers=1, dpw=2, name="B"),
            request(2, workers=1, dpw=4, name="C")]
    jobs = [state(0, "running", devices=[0, 1, 2, 3]), state(1, "running", devices=[4, 5]), state(2)]
    view = cluster_with(jobs, [node(0, [1, 1, 1, 1]), node(1, [1, 1, 0, 0])], arrived=reqs)
    p = PriorityPass()
    holders = {0, 1}
    p.decide(view, [2, 0, 1], holders)
    assert p.chosen == [2, 0]
    control = Control(view)
    p.apply(control, "consolidate", holders)
    assert p.suspended == [1] and p.started == []
    assert control.actions == [{"op": "suspend", "job": 1, "reason": "outranked by job 'C'"}]
    assert holders == {0}

    # 5 s later B's checkpoint is done and node 1 is free: C starts there.
    view._apply(decide(2, 5_000_000, events=[["done", 1]], jobs=[state(1, "suspended")],
                       nodes=[node(1, [0, 0, 0, 0])]))
    p.decide(view, [2, 0, 1], holders)
    assert p.chosen == [2, 0]
    control = Control(view)
    p.apply(control, "consolidate", holders)
    assert control.actions == [{"op": "start", "job": 2, "devices": [4, 5, 6, 7]}]
    assert p.started == [2] and holders == {0, 2}


def test_no_preemption_for_a_job_that_cannot_be_placed():
    # A and B hold 2 GPUs on each node; C wants 1 worker of 4 GPUs. Capacity keeps all three
    # (4 + 2 + 2 = 8 GPUs), but C fits on no node while A and B run (2 free on each): C is left
    # out in a second round, and nobody is suspended for it.
    reqs = [request(0, workers=1, dpw=2, name="A"), request(1, workers=1, dpw=2, name="B"),
            request(2, workers=1, dpw=4, name="C")]
    jobs = [state(0, "running", devices=[0, 1]), state(1, "running", devices=[4, 5]), state(2)]
    view = cluster_with(jobs, [node(0, [1, 1, 0, 0]), node(1, [1, 1, 0, 0])], arrived=reqs)
    p = PriorityPass()
    holders = {0, 1}
    p.decide(view, [2, 0, 1], holders)
    assert p.chosen == [0, 1]
    control = Control(view)
    p.apply(control, "consolidate", holders)
    assert control.actions == [] and holders == {0, 1}


def test_the_model_spreads_a_gang_over_the_nodes_with_most_free_first():
    # 3 workers of 2 GPUs: no node has 6 free; node 0 has 4 free (2 workers), node 1 has 2 (1).
    view = cluster_with([state(0, "running", devices=[4, 5])], [node(1, [1, 1, 0, 0])],
                        arrived=[request(0, workers=1, dpw=2), request(1, workers=3, dpw=2)])
    model = FreeModel(view)
    assert model.take(view.jobs[1])
    assert [model.free_dev(0, 0), model.free_dev(1, 0)] == [0, 0]
    # Nothing is left for another 2 GPUs.
    assert not model.take(view.jobs[0])
