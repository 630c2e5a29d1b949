# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed
# One versioned package per folder: matchserver/v1 (the service), matchserver/<game>/v1 (typed commands).
PROTOS := $(shell find protos -name '*.proto' | sort)
GENERATED := matchserver/.generated

.PHONY: run test proto lint typecheck bench clean

$(INSTALLED): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]' --config-settings editable_mode=compat
	touch $@

# Generated code (with typed stubs) comes from protos/, never edited by hand.
$(GENERATED): $(PROTOS) $(INSTALLED)
	rm -rf matchserver
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(PY) -m grpc_tools.protoc -Iprotos --python_out=. --grpc_python_out=. --mypy_out=. --mypy_grpc_out=. $(PROTOS)
	find matchserver -type d -exec touch {}/__init__.py \;
	touch $@

proto: $(GENERATED)

run: proto
	$(VENV)/bin/matchserver

test: proto
	$(PY) -m pytest

lint: proto
	$(VENV)/bin/ruff check engine server clients tests bench
	$(VENV)/bin/ruff format --check engine server clients tests bench

typecheck: proto
	$(VENV)/bin/mypy engine server clients

bench: proto
	$(PY) -m bench.run

clean:
	rm -rf $(VENV) matchserver var
