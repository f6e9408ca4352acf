# On a GPU agent the compile box has a writable Triton cache (TRITON_CACHE_DIR) for the kernels
# of every case: this launcher fills it with 1 MiB files, 256 MiB in all, past the 64 MiB an entry
# may hold. The parent measures the folder while the compile runs and stops it: a compile error
# that says so. Elsewhere (a host agent: no such folder) it is an honest vector add.
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
        os.makedirs(os.path.join(folder, "junk"), exist_ok=True)
        for i in range(256):
            with open(os.path.join(folder, "junk", f"blob{i}"), "wb") as blob:
                blob.write(b"\0" * (1 << 20))
    add[(triton.cdiv(n, 1024),)](a, b, c, n, BLOCK=1024)
