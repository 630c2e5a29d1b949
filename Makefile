# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed
# One versioned package per folder: matchserver/v1 (the service), matchserver/<game>/v1 (typed commands).
PROTOS := $(shell find protos -name '*.proto' | sort)
GENERATED := matchserver/.generated

.PHONY: run test test-quick test-under-load proto protocheck lint typecheck bench bench-peers dist clean

$(INSTALLED): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]' --config-settings editable_mode=compat
	touch $@

# Generated code (with typed stubs) comes from protos/, never edited by hand.
$(GENERATED): $(PROTOS) $(INSTALLED)
	rm -rf matchserver && mkdir -p matchserver
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(PY) -m grpc_tools.protoc -Iprotos --python_out=. --grpc_python_out=. --mypy_out=. --mypy_grpc_out=. \
		--descriptor_set_out=matchserver/descriptors.binpb --include_source_info --include_imports $(PROTOS)
	find matchserver -type d -exec touch {}/__init__.py \;
	touch $@

proto: $(GENERATED)

# The wire contract: buf's STANDARD lint, and nothing that would break a v1 client (on the binary wire or in
# JSON) since the commit in protos/BREAKING_BASE: v1 may gain fields and RPCs, never lose or renumber them.
protocheck: $(INSTALLED)
	$(VENV)/bin/buf lint protos
	$(VENV)/bin/buf breaking protos --against '.git#ref=$(shell cat protos/BREAKING_BASE),subdir=protos'

run: proto
	$(VENV)/bin/matchserver

test: proto
	$(PY) -m pytest

# The inner loop: every test but those marked slow (a second or more) and the browser's (pyproject.toml's
# markers). `make test`, which CI runs, still runs them all.
test-quick: proto
	$(PY) -m pytest -m "not slow and not browser"

# The suite must pass on a busy machine: `make test` five times beside two busy loops, stopping at the
# first failure; the loops are killed however it ends (the trap).
test-under-load: proto
	@$(PY) -c 'while True: pass' & one=$$!; \
	$(PY) -c 'while True: pass' & two=$$!; \
	trap 'kill $$one $$two 2>/dev/null' EXIT INT TERM; \
	for run in 1 2 3 4 5; do \
		echo "== make test under load: run $$run of 5"; \
		$(MAKE) --no-print-directory test || exit 1; \
	done

lint: proto
	$(VENV)/bin/ruff check engine pictures server clients tests bench
	$(VENV)/bin/ruff format --check engine pictures server clients tests bench

typecheck: proto
	$(VENV)/bin/mypy engine pictures server clients bench

# Benchmarks (docs/BENCHMARKS.md): each figure beside its ceiling measured in the same run, written to
# var/bench.json; under ten minutes. `make bench BENCH_FLAGS=--quick` for a smoke pass, `--only NAME` for one.
bench: proto
	$(PY) -m bench.run $(BENCH_FLAGS)

# Ours beside boardgame.io and Colyseus (bench/peers.py, docs/BENCHMARKS.md): installs the pinned peers
# (bench/peers/package-lock.json) with npm into bench/peers/node_modules (ignored), then measures them all in one
# interleaved run; merged into var/bench.json. A benchmark, not a test; `BENCH_FLAGS=--quick` for a smoke pass.
PEERS_INSTALLED := bench/peers/node_modules/.installed
$(PEERS_INSTALLED): bench/peers/package.json bench/peers/package-lock.json
	cd bench/peers && npm ci --no-audit --no-fund
	touch $@

bench-peers: proto $(PEERS_INSTALLED)
	$(PY) -m bench.peers $(BENCH_FLAGS)

# The installable client (clients/pyproject.toml): the generated stubs, clients/client.py and clients/botloop.py
# (run_bot, for arena bots), staged in $(DIST_STAGE) and built into $(DIST)/matchserver_client-*.whl; it depends
# only on grpcio and protobuf.
DIST ?= dist
DIST_STAGE ?= build/client-wheel
dist: proto
	rm -rf $(DIST_STAGE) && mkdir -p $(DIST_STAGE)/clients $(DIST)
	cp clients/pyproject.toml $(DIST_STAGE)/
	cp -r matchserver $(DIST_STAGE)/
	rm -f $(DIST_STAGE)/matchserver/.generated
	cp clients/__init__.py clients/client.py clients/botloop.py $(DIST_STAGE)/clients/
	find $(DIST_STAGE) -name __pycache__ -prune -exec rm -rf {} +
	$(PY) -m pip wheel -q --no-deps --no-build-isolation --wheel-dir $(DIST) $(DIST_STAGE)

clean:
	rm -rf $(VENV) matchserver var build dist
