"""dlsim's Python package: schedulers in Python over dlsim's external-scheduler protocol
(docs/protocol.md), and a loader of run results into pandas (dlsim.results)."""

from .placement import place, place_on_type
from .scheduler import PROTOCOL_VERSION, Control, Scheduler, serve
from .view import Cluster, Device, DeviceType, Job, Node, View, to_seconds

__all__ = [
    "PROTOCOL_VERSION",
    "Cluster",
    "Control",
    "Device",
    "DeviceType",
    "Job",
    "Node",
    "Scheduler",
    "View",
    "place",
    "place_on_type",
    "serve",
    "to_seconds",
]
