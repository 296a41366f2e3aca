#!/usr/bin/env bash
# The base image of every image built here: a minimal Debian bookworm with Python 3.11
# (Debian's python3, python3-venv for `python -m venv`, python-is-python3 for `python`),
# debootstrapped from Debian's packages and imported into podman. It stands in for
# python:3.11-slim where no registry image can be pulled (deploy/README.md, "Here, without a
# registry"). Skipped when the image exists already; FORCE=1 rebuilds it.
#
#     deploy/local/base.sh [IMAGE]        # default localhost/debian-python:3.11-bookworm
set -euo pipefail

IMAGE=${1:-${YGGDRASIL_BASE_IMAGE:-localhost/debian-python:3.11-bookworm}}
SUITE=bookworm
HERE=$(cd "$(dirname "$0")" && pwd)
export CONTAINERS_CONF=${CONTAINERS_CONF:-$HERE/containers.conf}

if [ -z "${FORCE:-}" ] && podman image exists "$IMAGE"; then
  echo "base: $IMAGE exists (FORCE=1 rebuilds it)"
  exit 0
fi

# The Debian mirror this machine's apt uses (its first deb URI), so that the image comes from
# the same place as the host's packages; debootstrap's own default if none is found.
mirror() {
  local uri=""
  if [ -r /etc/apt/sources.list.d/debian.sources ]; then
    uri=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
  fi
  if [ -z "$uri" ] && [ -r /etc/apt/sources.list ]; then
    uri=$(awk '$1 == "deb" && $0 !~ /security/ {for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) {print $i; exit}}' \
      /etc/apt/sources.list)
  fi
  echo "$uri"
}

START=$SECONDS
ROOTFS=$(mktemp -d "${TMPDIR:-/tmp}/yggdrasil-base.XXXXXX")
trap 'rm -rf "$ROOTFS"' EXIT
MIRROR=$(mirror)
echo "base: debootstrap $SUITE into $ROOTFS${MIRROR:+ from $MIRROR}"
debootstrap --variant=minbase \
  --include=python3,python3-venv,python-is-python3,ca-certificates \
  "$SUITE" "$ROOTFS" ${MIRROR:+"$MIRROR"} >"$ROOTFS.log" 2>&1 || {
  tail -20 "$ROOTFS.log" >&2
  exit 1
}
rm -f "$ROOTFS.log"
# The security updates too, as an image built from the upstream one would have them, and
# apt's lists and caches out of the image (a Containerfile runs apt-get update itself).
if [ -n "$MIRROR" ]; then
  security=${MIRROR%/debian}/debian-security
  printf 'deb %s %s main\ndeb %s %s-updates main\ndeb %s %s-security main\n' \
    "$MIRROR" "$SUITE" "$MIRROR" "$SUITE" "$security" "$SUITE" >"$ROOTFS/etc/apt/sources.list"
fi
rm -rf "$ROOTFS"/var/lib/apt/lists/* "$ROOTFS"/var/cache/apt/archives/*.deb
tar -C "$ROOTFS" --numeric-owner -c . | podman import \
  --change 'CMD ["python3"]' --change 'ENV LANG=C.UTF-8' - "$IMAGE" >/dev/null
echo "base: $IMAGE ($(podman run --rm "$IMAGE" python --version)) in $((SECONDS - START)) s"
