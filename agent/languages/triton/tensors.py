"""The tensor-like objects a Triton launcher gets for the problem's pointer parameters.

Triton reads what it needs of a tensor by duck typing: `data_ptr()` and `dtype` to type and pass
the pointer (its type is the text of `str(dtype)`, "torch.bfloat16", looked up in libtriton), and,
in the interpreter, `untyped_storage()`, `new_empty`, `set_`, `storage_offset`, `size`, `stride` and
`copy_` to copy the argument to the host and back. The judge's buffers already are host memory on
the CPU (the arena the parent shares) and device memory on a GPU, so "to the host" is the same
memory here and the copies are none: a `DeviceBuffer` is its own storage.

No PyTorch: its wheel pulls gigabytes of CUDA libraries for what these few methods do.
"""

from __future__ import annotations

import math
from typing import Any

from agent.problems.triton_types import ITEM_BYTES, TRITON_TYPES


def triton_type(problem_type: str) -> str:
    """How Triton names a problem.yaml element type (`bf16` for bfloat16): the type contract."""
    return TRITON_TYPES[problem_type][1]


class TensorDtype:
    """What `tensor.dtype` is: prints as torch's name, which is what libtriton maps to a type."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.itemsize = ITEM_BYTES[name]

    def __str__(self) -> str:
        return f"torch.{self.name}"

    __repr__ = __str__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TensorDtype) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)


class DeviceBuffer:
    """One of the problem's buffers, contiguous, at a fixed address of this process (host) or of
    the device (a GPU). Also its own untyped storage: the interpreter's copies are no-ops."""

    def __init__(self, name: str, address: int, problem_type: str, shape: tuple[int, ...], device: str) -> None:
        self.name = name
        self._address = address
        self.dtype = TensorDtype(TRITON_TYPES[problem_type][0])
        self.shape = tuple(int(d) for d in shape)
        self.device = device  # "cpu" where the interpreter runs it, "cuda" on a GPU (torch's name for both)

    # ---- what a launcher uses -------------------------------------------------------------------
    def data_ptr(self) -> int:
        return self._address

    def numel(self) -> int:
        return math.prod(self.shape)

    def element_size(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.numel() * self.dtype.itemsize

    def dim(self) -> int:
        return len(self.shape)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def size(self, dim: int | None = None) -> Any:
        return self.shape if dim is None else self.shape[dim]

    def stride(self, dim: int | None = None) -> Any:
        strides, step = [], 1
        for extent in reversed(self.shape):
            strides.append(step)
            step *= max(extent, 1)
        strides.reverse()
        return tuple(strides) if dim is None else strides[dim]

    def is_contiguous(self) -> bool:
        return True

    def __repr__(self) -> str:
        return f"DeviceBuffer({self.name}, {self.dtype}, shape={self.shape})"

    # ---- what the interpreter uses to move it to the host and back (the same memory) ------------
    def untyped_storage(self) -> DeviceBuffer:
        return self

    def cpu(self) -> DeviceBuffer:
        return self

    def storage_offset(self) -> int:
        return 0

    def new_empty(self, *_args: Any, **_kwargs: Any) -> DeviceBuffer:
        return self

    def set_(self, *_args: Any) -> DeviceBuffer:
        return self

    def copy_(self, _other: Any) -> DeviceBuffer:
        return self


def launcher_args(args: list[dict[str, Any]], ptrs: dict[str, int], device: str) -> list[Any]:
    """The launcher's arguments in signature order: a DeviceBuffer per pointer, Python numbers for
    scalars (what the CASE message of agent.judging.phase.call_args says)."""
    values: list[Any] = []
    for arg in args:
        if arg["pointer"]:
            values.append(DeviceBuffer(arg["name"], ptrs[arg["name"]], arg["type"], tuple(arg["shape"]), device))
        else:
            values.append(arg["value"])
    return values
