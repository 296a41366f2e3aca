#!/bin/sh
# As the upstream image: arguments that start with an option are Envoy's.
set -e
case "${1:-}" in
  -*) set -- envoy "$@" ;;
esac
exec "$@"
