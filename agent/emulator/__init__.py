"""The emulated device: HIP and CUDA kernels executed on the CPU by a runtime of our own.

`include/` stands in for hip/hip_runtime.h and cuda_runtime.h, `runtime/` is the source of
libhjemu.so (built by `build.build_runtime`), `rewrite` turns `<<<>>>` launches and
`extern __shared__` into C++ g++ accepts. docs/emulator.md and agent/emulator/README.md say what is
modelled and what is not.
Nothing here imports Django or the rest of the agent.
"""
