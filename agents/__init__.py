"""Agents: policies, training, evaluation and the `tactician` command line.

OpenMP threads that wait for work sleep instead of spinning (unless OMP_WAIT_POLICY is set already): torch's
update threads otherwise keep a core busy between updates, which the env worker processes
(`train.workers` > 1) need. It must be set before torch is imported; it costs the updates nothing measurable.
"""
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
