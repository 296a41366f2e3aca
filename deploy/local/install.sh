#!/usr/bin/env bash
# What the container checks need on this machine, installed if missing: Debian's podman with
# runc (crun refuses this VM's hybrid cgroups), netavark and aardvark-dns (container networks
# where services find each other by name), iptables (netavark's port forwarding), catatonit
# (the pause process of `podman kube play` pods) and debootstrap (the local base image); then, in .tools/deploy, the Python tools pinned in
# deploy/local/requirements.txt (podman-compose 1.6: Debian's 1.0.3 fails on the compose
# files; kubectl for kustomize; kubernetes-validate; check-jsonschema).
set -euo pipefail
cd "$(dirname "$0")/../.."

TOOLS=.tools/deploy
PYTHON3=${PYTHON3:-python3}
SUDO=$(command -v sudo || true)

missing=()
for tool in podman:podman runc:runc netavark:/usr/lib/podman/netavark \
            aardvark-dns:/usr/lib/podman/aardvark-dns iptables:iptables catatonit:catatonit \
            debootstrap:debootstrap; do
  package=${tool%%:*}
  probe=${tool#*:}
  if [[ $probe == /* ]]; then [ -x "$probe" ] || missing+=("$package")
  else command -v "$probe" >/dev/null 2>&1 || [ -x "/usr/sbin/$probe" ] || missing+=("$package"); fi
done
if [ ${#missing[@]} -gt 0 ]; then
  start=$SECONDS
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null 2>&1
  echo "install: apt-get install ${missing[*]} in $((SECONDS - start)) s"
fi

STAMP=$TOOLS/.installed
if [ ! -f "$STAMP" ] || [ deploy/local/requirements.txt -nt "$STAMP" ]; then
  start=$SECONDS
  "$PYTHON3" -m venv "$TOOLS"
  "$TOOLS/bin/pip" install --quiet --disable-pip-version-check -r deploy/local/requirements.txt \
    2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
  touch "$STAMP"
  echo "install: $TOOLS (deploy/local/requirements.txt) in $((SECONDS - start)) s"
fi
