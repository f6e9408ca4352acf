"""The `triton` language: one .py file of `@triton.jit` kernels and a launcher `solution(...)`.

- `tensors.py`: the tensor-like objects the launcher gets over the judge's buffers;
- `bounds.py`: every load and store of Triton's interpreter checked against those buffers;
- `submission.py`: loading the file as a module, with its autotune lists bounded;
- `child.py`: the sandboxed child that runs it (the harness's protocol, a Python launcher);
- `report.py` / `report_child.py`: the compile for gfx942 and sm_90 and its resource report;
- `compile.py`: the parent's side of that compile.

Nothing here imports triton at module level except the children: the parent never loads it.
"""
