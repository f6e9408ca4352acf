"""How the `triton` language names each problem.yaml element type: torch's dtype name (what a
tensor's `dtype` prints as, which libtriton maps to a Triton type) and Triton's own (`bf16`, the
type contract shown per problem). Imports nothing: the sandboxed Triton child reads it too.

MI300X's fp8 (the `fnuz` formats) are Triton's fp8e4b8 / fp8e5b16; the OCP formats fp8e4nv / fp8e5.
"""

from __future__ import annotations

# problem.yaml's element type -> (torch's dtype name, Triton's type name).
TRITON_TYPES: dict[str, tuple[str, str]] = {
    "float": ("float32", "fp32"),
    "double": ("float64", "fp64"),
    "int": ("int32", "i32"),
    "int32": ("int32", "i32"),
    "unsigned int": ("uint32", "u32"),
    "int64_t": ("int64", "i64"),
    "size_t": ("uint64", "u64"),
    "uint8_t": ("uint8", "u8"),
    "uint8": ("uint8", "u8"),
    "int8": ("int8", "i8"),
    "half": ("float16", "fp16"),
    "bfloat16": ("bfloat16", "bf16"),
    "fp8_e4m3fnuz": ("float8_e4m3fnuz", "fp8e4b8"),
    "fp8_e5m2fnuz": ("float8_e5m2fnuz", "fp8e5b16"),
    "fp8_e4m3fn": ("float8_e4m3fn", "fp8e4nv"),
    "fp8_e5m2": ("float8_e5m2", "fp8e5"),
}
# torch's dtype name -> bytes per element.
ITEM_BYTES = {"float32": 4, "float64": 8, "int32": 4, "uint32": 4, "int64": 8, "uint64": 8, "uint8": 1, "int8": 1,
              "float16": 2, "bfloat16": 2, "float8_e4m3fnuz": 1, "float8_e5m2fnuz": 1, "float8_e4m3fn": 1,
              "float8_e5m2": 1}


def triton_declaration(name: str, problem_type: str, *, pointer: bool, const: bool) -> str:
    """One parameter of the launcher as the contract shows it: `A: *bf16 (read-only)`, `n: int`."""
    if pointer:
        return f"{name}: *{TRITON_TYPES[problem_type][1]}{' (read-only)' if const else ''}"
    return f"{name}: {'float' if problem_type in ('float', 'double') else 'int'}"
