"""HIPJudge agent: compiles, checks and benchmarks one kernel at a time on one machine.

This package never imports Django: it is shipped as is to GPU VMs (standard library, NumPy, PyYAML).
"""

__version__ = "0.1.0"
