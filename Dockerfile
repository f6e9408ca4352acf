# HIPJudge web and worker image: `docker run IMAGE web`, `... worker`, `... release` (scripts/serve.sh).
# The base images are named by tag; pin them by digest for reproducible builds, as docker/agent-rocm.Dockerfile
# explains (`docker buildx imagetools inspect python:3.11-slim-bookworm` prints the digest).

# Front-end libraries from package-lock.json (served by the site itself, no CDN).
FROM node:20-bookworm-slim AS assets
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error

FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    HIPJUDGE_PYTHON=python \
    HIPJUDGE_VAR_DIR=/var/lib/hipjudge \
    HIPJUDGE_STATIC_ROOT=/app/staticfiles \
    HIPJUDGE_STATIC_FINDERS=false \
    HIPJUDGE_HOST=0.0.0.0 \
    HIPJUDGE_PORT=8000
WORKDIR /app
COPY pyproject.toml README.md manage.py ./
COPY accounts accounts
COPY agent agent
COPY billing billing
COPY cli cli
COPY config config
COPY core core
COPY fleets fleets
COPY leaderboard leaderboard
COPY limits limits
COPY ops ops
COPY submissions submissions
COPY web web
COPY problems problems
COPY templates templates
COPY static static
COPY scripts scripts
RUN pip install --no-cache-dir -e .
COPY --from=assets /build/node_modules /app/node_modules
# Static files are collected into the image (whitenoise serves them, compressed and hashed); the
# key only satisfies settings during the build and is never used at run time.
RUN python scripts/vendor_assets.py \
    && rm -rf node_modules \
    && DJANGO_SECRET_KEY=build-only-collectstatic python manage.py collectstatic --noinput -v0 \
    && useradd --system --create-home --home-dir /var/lib/hipjudge hipjudge
USER hipjudge
EXPOSE 8000
ENTRYPOINT ["scripts/serve.sh"]
CMD ["web"]
