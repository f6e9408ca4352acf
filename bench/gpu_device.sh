#!/usr/bin/env bash
# The judge on a real NVIDIA GPU, under bubblewrap, as a GPU VM's agent runs it: every problem's
# cuda solution checked (8 jobs at once, twice: the GPU is shared as on a busy VM), the cuda
# kernels of the GPU-bug corpus with the emulator's expected verdict beside the real one, the
# conformance suite's cuda entries (each verdict must agree with the emulated device's), every
# benchmark, one leaderboard judging, and Triton on the GPU pool path (vector-add and gemm-bf16:
# check and benchmark from the compile phase's precompiled cache, an autotuned kernel, a launch at a
# size no case has). Prints each job's result and benchmark table.
#
#   bash bench/gpu_device.sh            # from the repository root; needs python3 with NumPy, ml-dtypes and
#                                       # PyYAML, nvcc, a GPU, and bwrap on PATH or its .deb:
#   BWRAP_DEB=path/bubblewrap.deb bash bench/gpu_device.sh   # unpacked into /usr/local/bin
#
# LOGS (default /tmp/hipjudge-gpu-logs) keeps every job's full report; JOB_TIMEOUT (default 120 s)
# bounds each job; SECTIONS (default "check corpus conformance bench leaderboard triton") picks what
# runs. The triton section needs Triton importable by python3 (pip install triton==3.9.0, or its wheel
# carried), and gcc with Python's headers (Triton builds its launcher with them in the compile phase).
#
# With the lent device of a session: here, `mkdir -p .devcarry && echo /.devcarry/ >> .git/info/exclude
# && (cd .devcarry && apt-get download bubblewrap)`; there, with .devcarry carried,
# `BWRAP_DEB=$(ls .devcarry/bubblewrap_*.deb) bash bench/gpu_device.sh`. On the H100 the checks took
# 8 s a round, the corpus 5 s, a benchmark 13-60 s (vector-add's 2^28 inputs are 1 GiB each) and the
# leaderboard judging over 60 s: the whole script is about 7 minutes, so split SECTIONS where one
# device call must stay short.
# Figures of a run on an H100 are in docs/benchmarks.md, its findings in docs/gpus.md.
set -uo pipefail
cd "$(dirname "$0")/.."
LOGS=${LOGS:-/tmp/hipjudge-gpu-logs}
SECTIONS=${SECTIONS:-check corpus conformance bench leaderboard triton}
mkdir -p "$LOGS"
export PYTHONUNBUFFERED=1 HIPJUDGE_AGENT_BUILD_DIR=${HIPJUDGE_AGENT_BUILD_DIR:-/tmp/hipjudge-builds}
if ! command -v bwrap >/dev/null && [ -n "${BWRAP_DEB:-}" ]; then
  unpacked=$(mktemp -d) && dpkg -x "$BWRAP_DEB" "$unpacked" && cp "$unpacked/usr/bin/bwrap" /usr/local/bin/bwrap
fi
command -v bwrap >/dev/null || { echo "gpu_device.sh: bwrap is needed (set BWRAP_DEB)" >&2; exit 2; }
judge() {  # workdir problem mode file
  timeout "${JOB_TIMEOUT:-120}" python3 -m agent run --device cuda --workdir "/tmp/hj-$1" --problem "$2" \
    --mode "$3" "$4"
}
result() { grep -E '^Result:|judge crashed' "$1" | head -1 | cut -c1-300; }
section() { echo; echo "=== $* ($(date +%T))"; }
has() { [[ " $SECTIONS " == *" $1 "* ]]; }

if has check; then
  for round in 1 2; do
    section "every problem, check, 8 jobs at once (round $round)"
    for dir in problems/*/; do
      slug=$(basename "$dir")
      judge "check-$slug" "$slug" check "$dir/solutions/cuda.cu" >"$LOGS/check$round-$slug.txt" 2>&1 &
    done
    wait
    for f in "$LOGS"/check$round-*.txt; do printf '%-28s %s\n' "$(basename "$f" .txt)" "$(result "$f")"; done
  done
fi
if has corpus; then
  section "GPU-bug corpus (cuda): the emulator's expected verdict, then this GPU's"
  for f in tests/agent/corpus_gpu/*.cu; do
    name=$(basename "$f" .cu)
    judge "corpus-$name" "$(sed -n 's#^// problem: ##p' "$f")" check "$f" >"$LOGS/corpus-$name.txt" 2>&1 &
  done
  wait
  for f in tests/agent/corpus_gpu/*.cu; do
    name=$(basename "$f" .cu)
    echo "$name"; echo "  expected (emulator): $(sed -n 's#^// expect: ##p' "$f")"
    echo "  this GPU:            $(result "$LOGS/corpus-$name.txt")"
  done
fi
if has conformance; then
  # The emulator's conformance suite (tests/agent/emulator/conformance/), its CUDA entries on this GPU:
  # each verdict (CHECKED, WRONG_ANSWER, ...) must be the one the entry expects on the emulated device.
  section "conformance suite (cuda): the verdict expected on the emulated device, then this GPU's"
  for f in tests/agent/emulator/conformance/*.cu; do
    name=$(basename "$f" .cu)
    judge "conformance-$name" "$(sed -n 's#^// problem: ##p' "$f")" check "$f" >"$LOGS/conformance-$name.txt" 2>&1 &
    while [ "$(jobs -r | wc -l)" -ge 8 ]; do sleep 0.2; done
  done
  wait
  differ=0
  for f in tests/agent/emulator/conformance/*.cu; do
    name=$(basename "$f" .cu)
    want=$(sed -n 's#^// expect: \([A-Z_]*\).*#\1#p' "$f")
    got=$(result "$LOGS/conformance-$name.txt" | sed -n 's#^Result: \([A-Z_]*\).*#\1#p')
    [ "$want" = "$got" ] && verdict=agree || { verdict=DIFFER; differ=$((differ + 1)); }
    printf '%-44s %-14s %-14s %s\n' "$name" "$want" "${got:-?}" "$verdict"
  done
  echo "conformance: $differ entries differ"
fi
if has bench; then
  for dir in problems/*/; do
    slug=$(basename "$dir")
    section "$slug, benchmark"
    judge bench "$slug" benchmark "$dir/solutions/cuda.cu" >"$LOGS/bench-$slug.txt" 2>&1
    sed -n '/^Benchmarks/,$p' "$LOGS/bench-$slug.txt" | cut -c1-160
    grep -q '^Benchmarks' "$LOGS/bench-$slug.txt" || result "$LOGS/bench-$slug.txt"
  done
fi
if has leaderboard; then
  section "matmul-fp32, leaderboard (benchmark, then the ranked pass against the reference)"
  judge leaderboard matmul-fp32 leaderboard problems/matmul-fp32/solutions/cuda.cu >"$LOGS/leaderboard.txt" 2>&1
  sed -n '/^· BENCHMARKING/,$p' "$LOGS/leaderboard.txt" | cut -c1-160
fi
if has triton; then
  # Triton on the GPU pool path (docs/adding-a-language.md): the compile phase compiles every case's
  # kernels for this GPU and builds Triton's launcher stub; the run child loads them from the cache,
  # read-only, in a sandbox that starts no process. Never run on a GPU before this section.
  if python3 -c "import triton" 2>/dev/null; then
    for slug in vector-add gemm-bf16; do
      for mode in check benchmark; do
        section "triton $slug, $mode"
        judge "triton-$slug" "$slug" "$mode" "problems/$slug/solutions/triton.py" >"$LOGS/triton-$mode-$slug.txt" 2>&1
        grep -E '^(Compile|Result|Benchmarks)|not precompiled|launcher' "$LOGS/triton-$mode-$slug.txt" | cut -c1-200
        sed -n '/^Benchmarks/,$p' "$LOGS/triton-$mode-$slug.txt" | cut -c1-160
      done
    done
    section "triton vector-add, an autotuned kernel (2 configurations timed on the GPU before the timed runs)"
    # The hostile corpus's autotune of 4096 configurations, cut down to 2.
    sed 's/range(4096)/range(2)/' tests/agent/corpus_triton/huge_autotune.py >"$LOGS/triton_autotuned.py"
    judge triton-autotuned vector-add benchmark "$LOGS/triton_autotuned.py" >"$LOGS/triton-autotuned.txt" 2>&1
    result "$LOGS/triton-autotuned.txt"
    section "triton vector-add, a block the compile never saw (expect RUNTIME_ERROR: kernel not precompiled)"
    # The compile runs the launcher with stand-in buffers at 0x7F0000000000: a launcher that picks its
    # block by the buffer's address compiles one block there and launches another here.
    sed 's/    BLOCK = 4096/    BLOCK = 4096 if a.data_ptr() == 0x7F0000000000 else 2048/' \
      problems/vector-add/solutions/triton.py >"$LOGS/triton_unforeseen.py"
    judge triton-unforeseen vector-add check "$LOGS/triton_unforeseen.py" >"$LOGS/triton-unforeseen.txt" 2>&1
    result "$LOGS/triton-unforeseen.txt"
  else
    echo "triton: not importable by python3 here; section skipped"
  fi
fi
section end
