# On a GPU agent the compile box has a writable Triton cache (TRITON_CACHE_DIR) for the kernels
# of every case: this launcher fills it with 20000 empty files, past the 4096 files and folders an
# entry may hold. The parent measures the folder while the compile runs and stops it: a compile
# error that says so. Elsewhere (a host agent: no such folder) it is an honest vector add.
import os

import triton
import triton.language as tl


@triton.jit
def add(a, b, c, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(c + offsets, tl.load(a + offsets, mask=mask) + tl.load(b + offsets, mask=mask), mask=mask)


def solution(a, b, c, n):
    folder = os.environ.get("TRITON_CACHE_DIR")
    if folder and os.path.isdir(folder):
        for i in range(20000):
            open(os.path.join(folder, f"empty{i}"), "wb").close()
    add[(triton.cdiv(n, 1024),)](a, b, c, n, BLOCK=1024)
