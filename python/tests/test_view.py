from dlsim import View, place
from helpers import decide, hello, node, request, state


def test_free_counts_follow_the_holders():
    v = View(hello())
    assert v.free(0) == 8 and v.free_on(0, 0) == 4
    # Devices 0, 1 and 5 held: node 0 has 2 free, node 1 has 3.
    v._apply(decide(1, 0, nodes=[node(0, [1, 1, 0, 0]), node(1, [0, 1, 0, 0])]))
    assert (v.free_on(0, 0), v.free_on(1, 0), v.free(0)) == (2, 3, 5)
    assert v.nodes_with(0, 2) == [0] and v.nodes_with(0, 3) == [1]


def test_workers_fitting_on_counts_cores():
    v = View(hello())
    v._apply(decide(1, 0, arrived=[request(0, workers=4, cpus=12.0)], jobs=[state(0)]))
    # 4 free devices but 40 cores / 12 per worker = 3 workers (int(40.000000001 / 12)).
    assert v.workers_fitting_on(v.jobs[0], 0, 0) == 3


def test_attained_adds_the_unsettled_run():
    v = View(hello())
    v._apply(decide(1, 10_000_000, arrived=[request(0, workers=2)],
                    jobs=[state(0, "running", [0, 1], attained=20.0, last_update=4_000_000)]))
    # 20 device-seconds at 4 s, then 2 devices for 6 s more: 20 + 2 x 6 = 32.
    assert v.attained(0) == 32.0
    v.jobs[0].status = "suspended"  # not running: nothing unsettled
    assert v.attained(0) == 20.0


def test_consolidate_is_best_fit_then_fullest_nodes_first():
    v = View(hello())
    v._apply(decide(1, 0, arrived=[request(0, workers=3), request(1, workers=6)],
                    jobs=[state(0), state(1)], nodes=[node(0, [1, 0, 0, 0])]))
    # Node 0 has 3 free, node 1 has 4: 3 workers fit both, best fit is node 0 (fewest free).
    assert place(v, v.jobs[0]) == [1, 2, 3]
    # 6 fit no node: node 1's 4 first (most free), then 2 of node 0's.
    assert place(v, v.jobs[1]) == [4, 5, 6, 7, 1, 2]


def test_first_fit_and_spread():
    v = View(hello(placement="first-fit"))
    v._apply(decide(1, 0, arrived=[request(0, workers=2)], jobs=[state(0)],
                    nodes=[node(0, [1, 1, 1, 0])]))
    # Node 0 holds 1 free device, so the first node holding 2 is node 1.
    assert place(v, v.jobs[0]) == [4, 5]
    # Spread: one worker per node, most free first: node 1 (4 free), then node 0 (1 free).
    assert place(v, v.jobs[0], "spread") == [3, 4]


def test_no_fit_is_none():
    v = View(hello())
    v._apply(decide(1, 0, arrived=[request(0, workers=9)], jobs=[state(0)]))
    assert place(v, v.jobs[0]) is None
