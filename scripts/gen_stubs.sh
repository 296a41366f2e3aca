#!/usr/bin/env bash
# Generate the TypeScript, browser and Go client stubs for proto/yggdrasil/v1/*.proto:
#   clients/ts/src/gen/yggdrasil/v1/*.ts           messages + @grpc/grpc-js clients (ts-proto)
#   clients/web/src/gen/yggdrasil/v1/*_pb.ts       messages + service descriptors for the browser
#                                                  (protoc-gen-es; @connectrpc/connect-web's
#                                                  gRPC-Web transport calls them)
#   clients/go/yggdrasil/v1/*.pb.go, *_grpc.pb.go  messages + grpc-go clients
# protoc is grpc_tools' bundled one (python -m grpc_tools.protoc, pinned by grpcio-tools in
# pyproject.toml), the same that generates the Python stubs, so no separate protoc is needed.
#
# Generator versions (the output depends only on them and on the proto files; a different
# version fails here with a clear message instead of producing a silent diff):
#   ts-proto            2.18.0   npm, pinned in clients/ts/package.json + package-lock.json and
#                                installed with `npm ci` (make stubs does that)
#   protoc-gen-es       2.17.0   npm (@bufbuild/protoc-gen-es), pinned in clients/web/package.json
#                                + package-lock.json, installed with `npm ci` (make stubs)
#   protoc-gen-go       1.28.1   Debian bookworm package protoc-gen-go (1.28.1-3+b2)
#   protoc-gen-go-grpc  1.33.3   Debian bookworm package protoc-gen-go-grpc (1.33.3-2+b4;
#                                built from grpc-go 1.33.3, the binary says "1.0")
# The Debian packages are installed with apt-get when missing (needs root or sudo).
#
# Usage (from anywhere; make stubs / make stubs-check call it):
#   PYTHON=.venv/bin/python scripts/gen_stubs.sh [ts|web|go|all]   regenerate (default: all)
#   scripts/gen_stubs.sh install-go                install the Go plugins only
#   scripts/gen_stubs.sh build-go                  compile clients/go (the stubs and the example
#                                                  bot, into build/go/) with Debian's Go toolchain
#                                                  and grpc/protobuf sources (GOPATH mode: the Go
#                                                  module proxy is not needed); docs/clients.md

# (The TypeScript side is compiled by `npm run build` in clients/ts, see make ts-example.)
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
PYTHON=${PYTHON:-.venv/bin/python}
export LC_ALL=C

TS_PROTO_VERSION=2.18.0
GO_PLUGIN_VERSION=1.28.1       # protoc-gen-go (upstream google.golang.org/protobuf version)
GO_GRPC_PLUGIN_VERSION=1.33.3  # protoc-gen-go-grpc (upstream grpc-go version of the package)
GO_PLUGIN=/usr/bin/protoc-gen-go
GO_GRPC_PLUGIN=/usr/bin/protoc-gen-go-grpc

TS_DIR=clients/ts
TS_OUT=$TS_DIR/src/gen
TS_PLUGIN=$TS_DIR/node_modules/.bin/protoc-gen-ts_proto
# outputServices=grpc-js: @grpc/grpc-js client classes; forceLong=bigint: (u)int64 fields are
# bigint, never rounded; env=node: Buffer-free Node typings.
TS_OPTS=outputServices=grpc-js,esModuleInterop=true,env=node,forceLong=bigint
GO_OUT=clients/go

ES_VERSION=2.17.0
WEB_DIR=clients/web
WEB_OUT=$WEB_DIR/src/gen
ES_PLUGIN=$WEB_DIR/node_modules/.bin/protoc-gen-es
# target=ts: TypeScript sources that Vite compiles with the page; import_extension=js keeps the
# relative imports valid for both Vite and tsc's bundler resolution.
ES_OPTS=target=ts,import_extension=js

die() { echo "gen_stubs: $*" >&2; exit 1; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo "$@"
  else die "need root (or sudo) to run: $*"
  fi
}

# apt-get install the named Debian packages if any is missing (apt-get update first, once).
apt_install() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  command -v apt-get >/dev/null 2>&1 || die "apt-get not found; install ${missing[*]} by hand"
  echo "gen_stubs: apt-get install ${missing[*]}" >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq ||
    die "apt-get update failed"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null || die "apt-get install ${missing[*]} failed"
}

# Upstream version of an installed Debian package ("1.33.3-2+b4" -> "1.33.3").
deb_upstream_version() {
  local v
  v=$(dpkg-query -W -f='${Version}' "$1" 2>/dev/null) || return 1
  v=${v#*:}
  echo "${v%-*}"
}

install_go_plugins() {
  apt_install protoc-gen-go protoc-gen-go-grpc
  local got
  got=$("$GO_PLUGIN" --version 2>/dev/null) || die "$GO_PLUGIN does not run"
  [ "$got" = "protoc-gen-go v$GO_PLUGIN_VERSION" ] ||
    die "protoc-gen-go version mismatch: installed '$got', the committed stubs need" \
      "v$GO_PLUGIN_VERSION (Debian package protoc-gen-go). Install that version, or bump" \
      "GO_PLUGIN_VERSION in scripts/gen_stubs.sh and commit the regenerated stubs."
  got=$(deb_upstream_version protoc-gen-go-grpc) || die "protoc-gen-go-grpc is not installed"
  [ "$got" = "$GO_GRPC_PLUGIN_VERSION" ] ||
    die "protoc-gen-go-grpc version mismatch: installed Debian package version '$got', the" \
      "committed stubs need $GO_GRPC_PLUGIN_VERSION. Install that version, or bump" \
      "GO_GRPC_PLUGIN_VERSION in scripts/gen_stubs.sh and commit the regenerated stubs."
}

# check_npm_plugin PLUGIN_BIN DIR PACKAGE VERSION VARIABLE: the npm-installed generator is there
# and is the version the committed stubs were made with.
check_npm_plugin() {
  local plugin=$1 dir=$2 package=$3 want=$4 variable=$5 got
  [ -x "$plugin" ] || die "$plugin not found; run 'npm ci' in $dir (make stubs does)"
  got=$(node -p "require('./$dir/node_modules/$package/package.json').version")
  [ "$got" = "$want" ] ||
    die "$package version mismatch: installed $got, the committed stubs need $want." \
      "Run 'npm ci' in $dir, or bump $variable here together with $dir/package.json" \
      "and commit the regenerated stubs."
}

protos() {
  shopt -s nullglob
  PROTOS=(proto/yggdrasil/v1/*.proto)
  [ ${#PROTOS[@]} -gt 0 ] || die "no .proto files under proto/yggdrasil/v1"
  "$PYTHON" -c "import grpc_tools" 2>/dev/null ||
    die "$PYTHON cannot import grpc_tools; run 'make install'"
}

gen_ts() {
  check_npm_plugin "$TS_PLUGIN" "$TS_DIR" ts-proto "$TS_PROTO_VERSION" TS_PROTO_VERSION
  protos
  rm -rf "$TS_OUT"
  mkdir -p "$TS_OUT"
  "$PYTHON" -m grpc_tools.protoc -Iproto \
    --plugin=protoc-gen-ts_proto="$ROOT/$TS_PLUGIN" \
    --ts_proto_out="$TS_OUT" --ts_proto_opt="$TS_OPTS" \
    "${PROTOS[@]}"
  echo "gen_stubs: ts-proto $TS_PROTO_VERSION wrote $(find "$TS_OUT" -name '*.ts' | wc -l)" \
    "files to $TS_OUT"
}

gen_web() {
  check_npm_plugin "$ES_PLUGIN" "$WEB_DIR" @bufbuild/protoc-gen-es "$ES_VERSION" ES_VERSION
  protos
  rm -rf "$WEB_OUT"
  mkdir -p "$WEB_OUT"
  "$PYTHON" -m grpc_tools.protoc -Iproto \
    --plugin=protoc-gen-es="$ROOT/$ES_PLUGIN" \
    --es_out="$WEB_OUT" --es_opt="$ES_OPTS" \
    "${PROTOS[@]}"
  echo "gen_stubs: protoc-gen-es $ES_VERSION wrote $(find "$WEB_OUT" -name '*.ts' | wc -l)" \
    "files to $WEB_OUT"
}

gen_go() {
  install_go_plugins
  protos
  rm -f "$GO_OUT"/yggdrasil/v1/*.pb.go
  mkdir -p "$GO_OUT"
  # paths=source_relative: files land in clients/go/yggdrasil/v1/ whatever go_package says
  # (its import path, yggdrasil/gen/go/yggdrasil/v1, is the module path in clients/go/go.mod).
  "$PYTHON" -m grpc_tools.protoc -Iproto \
    --plugin=protoc-gen-go="$GO_PLUGIN" \
    --go_out="$GO_OUT" --go_opt=paths=source_relative \
    --plugin=protoc-gen-go-grpc="$GO_GRPC_PLUGIN" \
    --go-grpc_out="$GO_OUT" --go-grpc_opt=paths=source_relative \
    "${PROTOS[@]}"
  echo "gen_stubs: protoc-gen-go $GO_PLUGIN_VERSION + protoc-gen-go-grpc 1.0 (Debian package" \
    "$GO_GRPC_PLUGIN_VERSION) wrote $(find "$GO_OUT" -name '*.pb.go' | wc -l) files to $GO_OUT"
}

# The Go packages the stubs and the example build with, from Debian (bookworm versions in
# brackets). golang-google-grpc-dev depends on "golang-github-golang-protobuf-1-3-dev |
# golang-github-golang-protobuf-1-5-dev", and apt picks 1.3 unless 1.5 is named: with 1.3 the
# code compiles but the first RPC panics ("protobuf tag not enough fields"), so 1.5 is named
# here and the versions are checked.
GO_PACKAGES=(
  golang-go                              # the toolchain, Go >= 1.19 [1.19]
  golang-google-grpc-dev                 # google.golang.org/grpc >= 1.32 [1.33.3]
  golang-google-protobuf-dev             # google.golang.org/protobuf >= 1.20 [1.28.1]
  golang-github-golang-protobuf-1-5-dev  # github.com/golang/protobuf >= 1.4 [1.5.2]
)
GO_BUILD_DIR=build/go

# "dpkg --compare-versions" on the upstream version of an installed package, or die.
require_version() {
  local pkg=$1 min=$2 got
  got=$(deb_upstream_version "$pkg") || die "$pkg is not installed"
  got=${got%%+*}
  got=${got%%~*}
  dpkg --compare-versions "$got" ge "$min" ||
    die "$pkg $got is too old: the Go stubs need $min or later (see docs/clients.md)"
}

# Compile the generated Go package and the example bot against Debian's grpc-go and protobuf
# sources in GOPATH mode (module downloads are impossible here): go vet type-checks both, and
# the example is built into build/go/random_bot.
build_go() {
  apt_install "${GO_PACKAGES[@]}"
  require_version golang-google-grpc-dev 1.32
  require_version golang-google-protobuf-dev 1.20
  require_version golang-github-golang-protobuf-1-5-dev 1.4
  local gopath rc=0
  gopath=$(mktemp -d)
  mkdir -p "$gopath/src/yggdrasil/gen" "$GO_BUILD_DIR"
  cp -r "$GO_OUT" "$gopath/src/yggdrasil/gen/go"
  (
    cd "$gopath/src/yggdrasil/gen/go"
    export GO111MODULE=off GOFLAGS= GOPATH="$gopath:/usr/share/gocode" \
      GOCACHE="${GOCACHE:-$ROOT/.tools/go-cache}"
    go vet ./... &&
      go build -o "$ROOT/$GO_BUILD_DIR/random_bot" ./example/random_bot
  ) || rc=$?
  rm -rf "$gopath"
  [ "$rc" -eq 0 ] || die "the Go stubs or the example do not compile (see above)"
  echo "gen_stubs: clients/go compiles ($(go version)); example: $GO_BUILD_DIR/random_bot"
}

case "${1:-all}" in
  all) gen_ts; gen_web; gen_go ;;
  ts) gen_ts ;;
  web) gen_web ;;
  go) gen_go ;;
  install-go) install_go_plugins ;;
  build-go) build_go ;;
  *) die "unknown command '$1' (all, ts, web, go, install-go, build-go)" ;;
esac
