"""The emulated device compiles as the pool's GPU compiler's device pass does (agent.emulator.target),
finds none of the machine's ROCm or CUDA headers, and says plainly what it does not model
(agent.emulator.unsupported). The kernels that take each guard are in conformance/ (arch_guard_*)."""

from __future__ import annotations

import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from agent.config import AgentConfig
from agent.emulator.build import INCLUDE_DIR, build_pch, emulator_flags, gxx_version
from agent.emulator.target import UnknownTarget, target_macros
from agent.emulator.unsupported import ASM_MESSAGE, WALLED, WALLS, explain, make_walls
from tests.agent.conftest import load_problem, run_job

needs_gxx = pytest.mark.skipif(gxx_version() is None, reason="g++ is not installed")


def test_hip_is_compiled_as_gfx942s_device_pass() -> None:
    macros = target_macros("hip")
    for name in ("__gfx942__", "__GFX9__", "__HIP_DEVICE_COMPILE__", "__HIPCC__", "__HIP__", "__AMDGCN__",
                 "__HIP_PLATFORM_AMD__"):
        assert macros[name] == "1", name
    assert macros["__AMDGCN_WAVEFRONT_SIZE"] == macros["__AMDGCN_WAVEFRONT_SIZE__"] == "64"
    assert macros["__amdgcn_processor__"] == '"gfx942"'
    # Composable Kernel defines __gfx94__ itself; no compiler does. g++ is not clang.
    assert "__gfx94__" not in macros and "__clang__" not in macros and "__CUDA_ARCH__" not in macros


def test_cuda_is_compiled_as_an_h100s_device_pass() -> None:
    macros = target_macros("cuda")
    assert macros["__CUDA_ARCH__"] == "900"
    assert macros["__CUDACC__"] == macros["__NVCC__"] == "1"
    assert target_macros("cuda", "sm_80")["__CUDA_ARCH__"] == "800"
    assert not any(name.startswith(("__HIP", "__gfx", "__AMDGCN")) for name in macros)


@pytest.mark.parametrize(("language", "target"), [("hip", "gfx90a"), ("hip", "sm_90"), ("cuda", "gfx942"),
                                                  ("cuda", "sm_6"), ("cuda", "sm_x0")])
def test_a_target_the_emulator_does_not_model_is_refused(language: str, target: str) -> None:
    with pytest.raises(UnknownTarget):
        target_macros(language, target)


def _preprocess(source: str, language: str, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "probe.cpp"
    path.write_text(source)
    flags = emulator_flags(language, INCLUDE_DIR, make_walls(tmp_path / WALLS))
    return subprocess.run(["g++", *flags, *extra, "-E", "-o", "-", str(path)], capture_output=True, text=True,
                          timeout=120)


@needs_gxx
@pytest.mark.parametrize("language", ["hip", "cuda"])
def test_the_compile_sees_the_targets_macros(language: str, tmp_path: Path) -> None:
    names = list(target_macros(language))
    probe = "\n".join(f"probe_{name} = {name};" for name in names)
    done = _preprocess(probe, language, tmp_path)
    assert done.returncode == 0, done.stderr
    seen = dict(line.removeprefix("probe_").split(" = ", 1) for line in done.stdout.splitlines()
                if line.startswith("probe_"))
    assert seen == {name: f"{value};" for name, value in target_macros(language).items()}


def _system_include_dirs() -> list[Path]:
    """The folders g++ searches for `#include <...>` on this machine, as it prints them."""
    done = subprocess.run(["g++", "-x", "c++", "-E", "-v", "/dev/null", "-o", "/dev/null"], capture_output=True,
                          text=True, timeout=60)
    listed = re.search(r"#include <\.\.\.> search starts here:\n(.*?)End of search list", done.stderr, re.DOTALL)
    assert listed, done.stderr
    return [Path(line.strip()) for line in listed.group(1).splitlines() if line.strip()]


@needs_gxx
def test_no_header_of_the_machines_hip_or_cuda_folders_is_ever_found(tmp_path: Path) -> None:
    # Every header under a walled folder (hip/, cuda/, thrust/, ...) of g++'s own search path, and
    # ROCm's and CUDA's usual homes for good measure (reached through CPATH-like settings).
    roots = [*_system_include_dirs(), Path("/opt/rocm/include"), Path("/usr/local/cuda/include")]
    headers = sorted({f"{name}/{path.relative_to(root / name)}" for root in roots for name in WALLED
                      if (root / name).is_dir() for path in (root / name).rglob("*.h*") if path.is_file()})
    if Path("/usr/include/hip").is_dir():  # Debian's hipcc: this machine's case the issue found
        assert "hip/hip_ext.h" in headers
    walls = make_walls(tmp_path / WALLS)

    def found(header: str) -> str | None:
        """Where g++ finds `header` with only the emulator's search path (its folders, then the walls,
        then the system's); None when a wall stops it."""
        done = subprocess.run(["g++", "-x", "c++", "-H", "-E", "-I", str(INCLUDE_DIR), "-I", str(walls), "-o",
                               "/dev/null", "-"], input=f"#include <{header}>\n", capture_output=True, text=True,
                              timeout=60)
        opened = [line[2:] for line in done.stderr.splitlines() if line.startswith(". ")]
        if not opened:
            assert "Too many levels of symbolic links" in done.stderr, done.stderr
        return opened[0] if opened else None

    with ThreadPoolExecutor(max_workers=2) as pool:
        places = dict(zip(headers, pool.map(found, headers), strict=True))
    leaked = {h: where for h, where in places.items() if where is not None and INCLUDE_DIR not in Path(where).parents}
    assert not leaked
    assert places.get("hip/hip_ext.h", None) is None
    # The emulator's own headers of the same folders are found first.
    ours = _preprocess("#include <hip/hip_runtime.h>\n#include <hip/hip_fp16.h>\n", "hip", tmp_path)
    assert ours.returncode == 0, ours.stderr


@needs_gxx
def test_a_walled_header_is_a_clear_compile_error(tmp_path: Path) -> None:
    done = _preprocess("#include <hip/hip_ext.h>\n", "hip", tmp_path)
    assert done.returncode != 0
    said = explain(done.stderr, "gfx942")
    assert "fatal error: <hip/hip_ext.h> is not provided by the emulated device" in said, said
    assert "/usr/include" not in said


def test_messages_about_what_is_not_modelled_are_said_plainly() -> None:
    output = "\n".join([
        "solution.hip: In function 'void k(float*)':",
        "solution.hip:5:13: error: '__builtin_amdgcn_readlane_x' was not declared in this scope; did you mean "
        "'__builtin_fminf64'?",
        "solution.hip:6:9: error: there are no arguments to '__ockl_wfred_add_i32' that depend on a template "
        "parameter, so a declaration of '__ockl_wfred_add_i32' must be available [-fpermissive]",
        "solution.cu:7:3: error: ‘__nvvm_read_ptx_sreg_laneid’ was not declared in this scope",
        "solution.hip:8:20: error: 'undeclared' was not declared in this scope",
        "solution.hip:2:10: fatal error: walls/hjemu-walls/cuda/pipeline: Too many levels of symbolic links",
        "solution.cu:3:10: fatal error: cublas_v2.h: No such file or directory",
        f"<command-line>: error: static assertion failed: {ASM_MESSAGE}",
        "solution.cu:9:5: note: in expansion of macro 'asm'",
        "solution.cu:12: Error: no such instruction: `mov.u32 %eax,%laneid'",
    ]) + "\n"
    said = explain(output, "gfx942").splitlines()
    assert said[0] == output.splitlines()[0]
    assert said[1] == "solution.hip:5:13: error: `__builtin_amdgcn_readlane_x` is not modelled by the emulated " \
                      "device (gfx942 on the CPU)"
    assert said[2].startswith("solution.hip:6:9: error: `__ockl_wfred_add_i32` is not modelled")
    assert said[3].startswith("solution.cu:7:3: error: `__nvvm_read_ptx_sreg_laneid` is not modelled")
    assert said[4] == output.splitlines()[4]  # the user's own name: g++'s message
    assert said[5].startswith("solution.hip:2:10: fatal error: <cuda/pipeline> is not provided by the emulated")
    assert said[6].startswith("solution.cu:3:10: fatal error: <cublas_v2.h> is not provided by the emulated")
    assert said[7].startswith("solution.cu:9:5: error: inline assembly is not modelled by the emulated device")
    assert said[8].startswith("solution.cu:12: error: inline assembly is not modelled by the emulated device")
    assert "laneid" in said[8] and len(said) == 9


def test_a_clang_swizzle_is_said_to_be_unmodelled_with_what_to_write_instead() -> None:
    line = ("solution.hip:12:31: error: request for member ‘xy’ in ‘acc’, which is of non-class type ‘floatx4’ "
            "{aka ‘__vector(4) float’}")
    said = explain(line + "\n", "gfx942")
    assert said.startswith("solution.hip:12:31: error: the swizzle `.xy` of an ext_vector_type vector is not modelled")
    assert "`v[0]` for `.x`" in said
    struct = "solution.hip:3:5: error: request for member ‘x’ in ‘p’, which is of non-class type ‘int’"
    assert explain(struct, "gfx942") == struct  # not a vector: g++'s own words


BROKEN_ON_LINE_9 = """#include <hip/hip_runtime.h>

__global__ void add(const float* a, const float* b, float* c, size_t n) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    add<<<(unsigned)((n + 255) / 256), 256>>>(a, b, c, n_elements);
}
"""


@pytest.mark.integration
def test_an_emulated_compile_error_quotes_the_users_own_line(emu_config: AgentConfig) -> None:
    result, _ = run_job(load_problem("vector-add"), BROKEN_ON_LINE_9, "hip", "check", config=emu_config)
    assert result["status"] == "COMPILE_ERROR", result
    output = result["summary"]["compile_output"]
    assert "solution.hip:9:" in result["reason"] and "n_elements" in result["reason"], result
    # g++ quotes the line it names from the file it names: the user's text, not the rewritten one.
    assert "    9 |     add<<<(unsigned)((n + 255) / 256), 256>>>(a, b, c, n_elements);" in output, output
    assert "hjemu" not in output and "launch_named" not in output, output


@needs_gxx
@pytest.mark.parametrize("language", ["hip", "cuda"])
def test_the_precompiled_api_header_is_used_and_changes_nothing(language: str, shared_agent_builds: Path,
                                                                  tmp_path: Path) -> None:
    pch = build_pch(shared_agent_builds, language)
    assert pch is not None and build_pch(shared_agent_builds, language) == pch  # built once
    source = tmp_path / "kernel.cpp"
    # The API's header again, as every solution includes it, and one of the headers beside it.
    header = "hip/hip_runtime.h" if language == "hip" else "cuda_runtime.h"
    half = "hip/hip_fp16.h" if language == "hip" else "cuda_fp16.h"
    source.write_text(f"#include <{header}>\n#include <{half}>\n"
                      "__global__ void twice(__half* x) { x[threadIdx.x] = __hadd(x[threadIdx.x], x[threadIdx.x]); }\n")
    walls = make_walls(tmp_path / WALLS)
    built = {}
    for name, folder in (("with", pch), ("without", None)):
        done = subprocess.run(["g++", *emulator_flags(language, INCLUDE_DIR, walls, pch=folder), "-H", "-c", "-o",
                               str(tmp_path / f"{name}.o"), str(source)], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        built[name] = done.stderr
    assert f"! {pch}/{header}.gch" in built["with"]  # `!`: g++ found it valid and used it
    assert ".gch" not in built["without"]


HOST_CODE_LEFT_TO_THE_HOST_PASS = """#include <hip/hip_runtime.h>

__global__ void add(const float* a, const float* b, float* c, size_t n) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

#if !defined(__HIP_DEVICE_COMPILE__)
extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    add<<<(unsigned)((n + 255) / 256), 256>>>(a, b, c, n);
}
#endif
"""


@pytest.mark.integration
def test_host_code_that_only_the_host_pass_compiles_is_a_compile_error_that_says_why(
        emu_config: AgentConfig) -> None:
    result, _ = run_job(load_problem("vector-add"), HOST_CODE_LEFT_TO_THE_HOST_PASS, "hip", "check", config=emu_config)
    assert result["status"] == "COMPILE_ERROR", result
    assert "does not export `solution`" in result["reason"], result
    assert "`#if !defined(__HIP_DEVICE_COMPILE__)`" in result["reason"], result
