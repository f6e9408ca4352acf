#!/usr/bin/env bash
# The judge on a real NVIDIA GPU, under bubblewrap, as a GPU VM's agent runs it: every problem's
# cuda solution checked (8 jobs at once, twice: the GPU is shared as on a busy VM), the cuda
# kernels of the GPU-bug corpus with the emulator's expected verdict beside the real one, the
# conformance suite's cuda entries (each verdict must agree with the emulated device's), every
# benchmark, and one leaderboard judging. Prints each job's result and benchmark table.
#
#   bash bench/gpu_device.sh            # from the repository root; needs python3 with NumPy, ml-dtypes and
#                                       # PyYAML, nvcc, a GPU, and bwrap on PATH or its .deb:
#   BWRAP_DEB=path/bubblewrap.deb bash bench/gpu_device.sh   # unpacked into /usr/local/bin
#
# LOGS (default /tmp/hipjudge-gpu-logs) keeps every job's full report; JOB_TIMEOUT (default 120 s)
# bounds each job; SECTIONS (default "check corpus conformance bench leaderboard") picks what runs.
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
SECTIONS=${SECTIONS:-check corpus conformance bench leaderboard}
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
section end
