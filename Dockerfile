# selfheal's GitHub Action image: `selfheal action` with git, in a virtualenv at /opt/selfheal.
#
#   docker build -t selfheal-action .                                   # what GitHub's runner does
#   docker build --build-arg BASE_IMAGE=selfheal-sandbox:bookworm -t selfheal-action:test .
#
# No `# syntax=` line and no `RUN --mount`: it must build with the legacy builder (act, old
# engines) as well as with BuildKit (GitHub's runner).
#
# BASE_IMAGE: any Debian-like image with Python >= 3.11 and python3 -m venv (python:3.1x-slim, or
# docker/build-base-image.sh's registry-free selfheal-sandbox:bookworm). Both stages use it, so the
# virtualenv built in the first stage finds the same interpreter at the same path in the second.
ARG BASE_IMAGE=python:3.12-slim

# -- builder: the project's wheel and all its dependencies, installed into /opt/selfheal ---------
FROM ${BASE_IMAGE} AS builder

# Optional, normally empty: PEM text of extra CA certificates that pip must trust here, for builds
# behind a TLS-inspecting proxy, e.g.
#   --build-arg EXTRA_CA_CERTS="$(cat /usr/local/share/ca-certificates/*.crt)"
# It only exists in this stage (pip runs nowhere else), so it never reaches the final image.
ARG EXTRA_CA_CERTS=""
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_CERT=/tmp/pip-ca.pem

# pip's own trust store (certifi, or the system bundle on Debian's pip) plus the extra certificates.
RUN python3 -m venv /opt/selfheal \
 && ca="$(/opt/selfheal/bin/python -c 'from pip._vendor import certifi; print(certifi.where())')" \
 && { cat "$ca"; printf '%s\n' "$EXTRA_CA_CERTS"; } > /tmp/pip-ca.pem

WORKDIR /src
# Dependencies and build tools first, from pyproject.toml alone, so that a change to the code
# downloads nothing: the runtime dependencies go into /opt/selfheal, the build backend into a
# throwaway venv of its own (it is not needed at run time).
COPY pyproject.toml README.md ./
RUN /opt/selfheal/bin/python -c "import tomllib; p = tomllib.load(open('pyproject.toml', 'rb')); print('\n'.join(p['project']['dependencies'])); print('\n'.join(p['build-system']['requires']), file=open('/tmp/build-requirements.txt', 'w'))" > /tmp/requirements.txt \
 && /opt/selfheal/bin/pip install -r /tmp/requirements.txt \
 && python3 -m venv /tmp/build-venv \
 && /tmp/build-venv/bin/pip install -r /tmp/build-requirements.txt

# The project's wheel (no build isolation: the backend is already in /tmp/build-venv).
COPY selfheal ./selfheal
RUN /tmp/build-venv/bin/pip wheel --no-deps --no-build-isolation --wheel-dir /tmp/dist . \
 && /opt/selfheal/bin/pip install --no-deps /tmp/dist/selfheal-*.whl \
 && /opt/selfheal/bin/selfheal --version

# -- final: the virtualenv, git, and the entrypoint ----------------------------------------------
FROM ${BASE_IMAGE}

# The action clones and pushes with git. Where no Docker engine answers, the local sandbox runs
# the repository's tests: as an unprivileged uid of its own always (setpriv, from util-linux),
# inside bubblewrap's namespaces where the kernel and the container let bubblewrap make them.
# Neither python:*-slim nor the registry-free base image has git or bubblewrap; what an image
# already has is left alone.
RUN missing=""; \
    command -v git >/dev/null 2>&1 || missing="$missing git ca-certificates"; \
    command -v bwrap >/dev/null 2>&1 || missing="$missing bubblewrap"; \
    command -v setpriv >/dev/null 2>&1 || missing="$missing util-linux"; \
    if [ -n "$missing" ]; then \
        apt-get update -q \
     && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing \
     && apt-get clean \
     && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin; \
    fi \
 && git --version && bwrap --version && setpriv --version

COPY --from=builder /opt/selfheal /opt/selfheal
# Also on the standard PATH: a runner may start the container with a PATH of its own (act does,
# with -P <platform>=-self-hosted), and `selfheal` must still resolve.
RUN ln -s /opt/selfheal/bin/selfheal /usr/local/bin/selfheal
ENV PATH=/opt/selfheal/bin:$PATH \
    PYTHONUNBUFFERED=1

# No USER and no WORKDIR: GitHub's runner starts docker actions as root with --workdir
# /github/workspace and expects to write the files it mounts.
ENTRYPOINT ["selfheal", "action"]
