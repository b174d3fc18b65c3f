# Two entry points for a fresh machine: `make demo` and `make test`.
# Each creates .venv and installs what it needs; nothing relies on a global install.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.taiwa-installed
PYTEST_ARGS ?=

.PHONY: demo test install lint typecheck pytest bench clean

$(PY):
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "taiwa needs Python >= 3.11")'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# torch first, pinned: it resolves to the CPU wheel on local disk (an unpinned torch would pull
# a multi-GB CUDA build). llama-cpp-python builds from source once (~6-10 min), then pip caches it.
$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet "torch==2.13.0"
	$(PY) -m pip install --quiet -e ".[all,dev]"
	$(PY) -m pip install --quiet --no-deps "ja-ginza==5.3.0"  # word vectors only; spaCy not needed
	@touch $(STAMP)

install: $(STAMP)

demo: install
	$(VENV)/bin/taiwa demo

lint: install
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/ruff format --check src tests benchmarks

typecheck: install
	$(VENV)/bin/mypy src

# pytest exits 5 when it collected no test: that must never count as a pass.
pytest: install
	@$(PY) -m pytest $(PYTEST_ARGS); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "error: pytest collected no tests (selection: '$(PYTEST_ARGS)')" >&2; exit 1; fi; \
	exit $$rc

test: lint typecheck pytest

bench: install
	$(PY) benchmarks/metrics_speed.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
