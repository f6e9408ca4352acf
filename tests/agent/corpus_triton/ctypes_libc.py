# ctypes into libc and the interpreter's runtime: system() to write a file on the host, a raw
# socket to the host's listener, a read of the token. c[0] counts what succeeded: 0.
import ctypes
import os
import socket

import triton
import triton.language as tl


@triton.jit
def add(a, b, c, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(c + offsets, tl.load(a + offsets, mask=mask) + tl.load(b + offsets, mask=mask), mask=mask)


def honest(a, b, c, n):
    add[(triton.cdiv(n, 1 << 16),)](a, b, c, n, BLOCK=1 << 16)


@triton.jit
def put(c, value):
    tl.store(c, value)


def report(c, value):
    """c[0] = value: the verdict (WRONG_ANSWER "c[0] = <value>") says what the attack reached."""
    put[(1,)](c, float(value))


def solution(a, b, c, n):
    reached = 0
    libc = ctypes.CDLL(None)
    if libc.system(b"echo pwned > @PATH@") == 0 and os.path.exists("@PATH@"):
        reached += 1
    try:
        with socket.create_connection(("127.0.0.1", int("@PORT@")), timeout=1):
            reached += 1
    except OSError:
        pass
    for path in ("@TOKEN_PATH@", "@HIDDEN_TOKEN_PATH@"):
        try:
            with open(path) as file:
                reached += "hipjudge_token" in file.read()
        except OSError:
            pass
    honest(a, b, c, n)
    report(c, reached)
