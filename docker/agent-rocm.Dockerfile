# The image of dstack pools' VMs: ROCm (hipcc for gfx942) plus what the agent needs, so a cold start
# installs nothing (the pool's setup_commands find everything here and skip). The agent's code is not
# baked in: each VM run ships agent/ by `files:`, so the image never runs a stale agent.
#
# Pin the base by tag AND digest (fleets.dstack refuses an image without both):
#   docker buildx imagetools inspect rocm/dev-ubuntu-24.04:6.2.4    # prints "Digest: sha256:<64 hex>"
#   docker build -f docker/agent-rocm.Dockerfile \
#     --build-arg ROCM_IMAGE=rocm/dev-ubuntu-24.04:6.2.4@sha256:<64 hex> -t <registry>/hipjudge-agent:6.2.4 .
#   docker buildx imagetools inspect <registry>/hipjudge-agent:6.2.4  # then set the pool's image (or
#   HIPJUDGE_DSTACK_IMAGE) to <registry>/hipjudge-agent:6.2.4@sha256:<its digest>
# Ubuntu 24.04, not 22.04: the agent needs Python 3.11 or newer (22.04 ships 3.10).
# No default: a digest is only worth pinning once read from the registry, so the build takes it as
# an argument and refuses a reference without one.
ARG ROCM_IMAGE
FROM ${ROCM_IMAGE}
ARG ROCM_IMAGE
RUN printf '%s\n' "$ROCM_IMAGE" | grep -Eq '^[a-z0-9][a-z0-9._/:-]*:[A-Za-z0-9_][A-Za-z0-9_.-]*@sha256:[0-9a-f]{64}$' \
    && ! printf '%s\n' "$ROCM_IMAGE" | grep -Eq '@sha256:0{64}$' \
    || { echo "ROCM_IMAGE=$ROCM_IMAGE: pin the ROCm base as name:tag@sha256:<digest> (see the top of this file)" >&2; \
         exit 1; }
# python3 with NumPy and PyYAML (the agent's only libraries), bubblewrap (its sandbox), g++ (cpp
# submissions and the cache-eviction helper), from the distribution: no pip into the system Python.
# python3-dev: Python's headers, with which Triton builds its launcher in a Triton job's compile
# phase (docs/adding-a-language.md).
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
       python3 python3-dev python3-numpy python3-yaml bubblewrap g++ ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && python3 -c "import sys, numpy, yaml; assert sys.version_info >= (3, 11), sys.version" \
    && command -v hipcc bwrap g++
ENV PYTHONUNBUFFERED=1 HIP_PLATFORM=amd
