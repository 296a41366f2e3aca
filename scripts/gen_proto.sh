#!/usr/bin/env bash
# Regenerate the Python code for proto/yggdrasil/v1/*.proto into yggdrasil/v1/:
#   *_pb2.py        messages            (grpc_tools' bundled protoc, --python_out)
#   *_pb2_grpc.py   service stubs       (--grpc_python_out)
#   *_pb2.pyi, *_pb2_grpc.pyi  typed stubs (mypy-protobuf: --mypy_out / --mypy_grpc_out)
# The output depends only on the proto files and the pinned grpcio-tools / mypy-protobuf
# versions, so `make proto-check` can compare it byte for byte with what is committed.
# Usage: PYTHON=.venv/bin/python scripts/gen_proto.sh   (run from anywhere)
set -euo pipefail

cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
BIN_DIR=$(dirname "$PYTHON")
MYPY_PLUGIN="$BIN_DIR/protoc-gen-mypy"
MYPY_GRPC_PLUGIN="$BIN_DIR/protoc-gen-mypy_grpc"
for plugin in "$MYPY_PLUGIN" "$MYPY_GRPC_PLUGIN"; do
  if [ ! -x "$plugin" ]; then
    echo "gen_proto: $plugin not found; install the dev extras (make install)" >&2
    exit 1
  fi
done

export LC_ALL=C
shopt -s nullglob
protos=(proto/yggdrasil/v1/*.proto)
if [ ${#protos[@]} -eq 0 ]; then
  echo "gen_proto: no .proto files under proto/yggdrasil/v1" >&2
  exit 1
fi

# Remove every previously generated file first, so a deleted .proto leaves no stale module.
rm -f yggdrasil/v1/*_pb2.py yggdrasil/v1/*_pb2.pyi yggdrasil/v1/*_pb2_grpc.py \
  yggdrasil/v1/*_pb2_grpc.pyi

"$PYTHON" -m grpc_tools.protoc \
  -Iproto \
  --python_out=. \
  --grpc_python_out=. \
  --plugin=protoc-gen-mypy="$MYPY_PLUGIN" \
  --mypy_out=. \
  --plugin=protoc-gen-mypy_grpc="$MYPY_GRPC_PLUGIN" \
  --mypy_grpc_out=. \
  "${protos[@]}"

echo "gen_proto: generated $(ls yggdrasil/v1/*_pb2*.py* | wc -l) files from ${#protos[@]} protos"
