# The Docker sandbox's image (HIPJUDGE_SANDBOX_IMAGE, default hipjudge-sandbox:latest), for agents
# that judge on the host device where bubblewrap cannot run but a Docker engine answers. The
# sandboxed child needs python3 (3.11+) with NumPy; cpp submissions are compiled in it with g++.
# The agent's code is not baked in: each container gets the agent's own content-addressed copy
# read-only at /opt/hipjudge/agent. On a HIP VM use the agent image (docker/agent-rocm.Dockerfile):
# it has python3-numpy, g++ and hipcc, so set HIPJUDGE_SANDBOX_IMAGE to that image there.
#
#   docker build -f docker/sandbox.Dockerfile -t hipjudge-sandbox:latest docker/
#
# python3-dev: Python's headers, with which Triton builds its launcher (a C module) in a Triton
# job's compile phase on a GPU agent; Debian bookworm's package for its python3 (3.11).
#
# Pin the base by digest for reproducible builds (`docker buildx imagetools inspect debian:bookworm-slim`).
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 python3-dev python3-numpy g++ \
    && rm -rf /var/lib/apt/lists/* \
    && python3 -c "import sys, numpy; assert sys.version_info >= (3, 11), sys.version" \
    && test -f "$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')/Python.h" \
    && command -v g++
ENV PYTHONDONTWRITEBYTECODE=1
