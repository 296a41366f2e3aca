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
.PHONY: help install test lint bench serve proto proto-check buf-lint buf-breaking clean

help:
	@echo "make serve         install, then run the gRPC server (ARGS=\"--port 0\" to override)"
	@echo "make test          install, then run the test suite"
	@echo "make lint          ruff + mypy"
	@echo "make bench         run the benchmarks"
	@echo "make proto         regenerate the Python stubs in yggdrasil/v1 from proto/"
	@echo "make proto-check   fail if the committed stubs differ from a fresh generation"
	@echo "make buf-lint      lint proto/ with buf"
	@echo "make buf-breaking  check proto/ for breaking changes against the previous commit"
	@echo "make clean         remove the venv, tools and caches"

# The venv is rebuilt/refreshed whenever pyproject.toml changes. editable_mode=compat puts the
# repository root on sys.path, so packages created after the install (engine/, server/, ...)
# are importable without reinstalling.
$(STAMP): pyproject.toml
	$(PYTHON3) -m venv $(VENV)
	$(PY) -m pip install --quiet -e '.[dev]' --config-settings editable_mode=compat
	touch $@

install: $(STAMP)

test: $(STAMP)
	$(PY) -m pytest -q -p no:cacheprovider

lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m mypy $(wildcard engine server clients bench)

bench: $(STAMP)
	$(PY) -m bench

# The gRPC server (python -m server): 127.0.0.1:50051, /metrics on 9464; YGGDRASIL_* environment
# variables or ARGS="--port 0 ..." override (see server/config.py). Ctrl-C stops it gracefully.
serve: $(STAMP)
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
	rm -rf $(VENV) $(TOOLS) build *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
