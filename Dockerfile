# A container image of the BFF: the web app built with Node, the server on Python 3.11, started
# with the Procfile's web command (tests/operations/test_operator_files.py checks the CMD against
# the Procfile). Images cannot be built on the project's test machines, so this file is checked
# only for that command; build it with `docker build -t patient-records .`.
# Run migrations once per release with the same image: `docker run --env-file bff.env IMAGE
# python -m bff migrate`. Restarting a dead container is the platform's job
# (`docker run --restart=always`, a Kubernetes Deployment, ECS, ...).

FROM node:20-bookworm-slim AS web
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY frontend/ ./
RUN npm run build

FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/bff/.venv/bin:$PATH
WORKDIR /opt/bff
COPY requirements.lock ./
RUN python -m venv .venv && .venv/bin/pip install --no-cache-dir -r requirements.lock
COPY pyproject.toml README.md ./
COPY bff ./bff
COPY storage ./storage
COPY config ./config
RUN .venv/bin/pip install --no-cache-dir --no-deps -e .
# The server's bytecode, compiled once here: the process may not write it (and is told not to),
# so without it every start, a restart after a crash too, compiles each module it imports again
# (about 0.2 s of CPU: docs/operations.md, "Restarting after a crash").
RUN .venv/bin/python -m compileall -q bff storage config
COPY --from=web /src/frontend/dist ./frontend/dist
RUN useradd --system --home-dir /opt/bff bff && mkdir -p var && chown bff:bff var
USER bff
EXPOSE 8000
VOLUME ["/opt/bff/var"]
# Everything the process writes is owner-only, for the Procfile's commands and any other one
# run in the image (`docker run IMAGE python -m bff ...`); the process sets the same umask itself.
ENTRYPOINT ["/bin/sh", "-c", "umask 0077 && exec \"$@\"", "--"]
CMD ["/bin/sh", "-c", "exec hypercorn --config config/hypercorn.toml --bind 0.0.0.0:${PORT:-${BFF_PORT:-8000}} bff.asgi:app"]
