# Two entry points for a fresh machine: `make demo` and `make test`.
# Each creates .venv and installs what it needs; nothing relies on a global install.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.taiwa-installed
PYTEST_ARGS ?=
# worksteal: a worker that runs out of tests takes queued ones from the other, so the few
# minute-long tests (the README walk, the demo LLM) do not leave one core idle at the end
# Parallel pytest workers (pytest-xdist): one per core and one more, so that a worker waiting
# on a subprocess, a server's latency or an fsync leaves its core to another (2 cores, one
# fresh clone, quiet: 3 workers 456 s, 2 workers 482 s; 4 workers cost more CPU than they
# saved on the in-process tests measured earlier). PYTEST_WORKERS=0: serial.
PYTEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 2) + 1 )))

.PHONY: demo test install lint typecheck docs pytest bench clean chromium

$(PY):
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "taiwa needs Python >= 3.11")'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# llama-cpp-python builds from source. Its default (GGML_NATIVE) compiles for the build machine's
# CPU, AMX included, and a VM that reports AMX but does not let a guest use it dies with SIGILL
# on the first matrix product (seen on these machines: `tilezero` in ggml_backend_amx_mul_mat).
# So it is built once for AVX2 (every x86-64 machine here has it; elsewhere the default build)
# and the wheel kept in its own folder: pip's wheel cache is keyed by the sdist, not CMAKE_ARGS,
# and would hand back a native build made earlier.
LLAMA_VERSION := 0.3.36
LLAMA_WHEELS  := $(HOME)/.cache/taiwa-wheels/llama-cpp-python-$(LLAMA_VERSION)-$(shell uname -m)-avx2
LLAMA_CMAKE   := $(if $(filter x86_64,$(shell uname -m)),-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON,)

# torch first, pinned: it resolves to the CPU wheel on local disk (an unpinned torch would pull
# a multi-GB CUDA build). llama-cpp-python: built once per machine (~6-10 min), see above.
$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet "torch==2.13.0"
	@ls $(LLAMA_WHEELS)/llama_cpp_python-*.whl >/dev/null 2>&1 || { \
	  echo "building llama-cpp-python $(LLAMA_VERSION) once for this machine (6-10 min)"; \
	  rm -rf $(LLAMA_WHEELS).tmp $(LLAMA_WHEELS); \
	  CMAKE_ARGS="$(LLAMA_CMAKE)" $(PY) -m pip wheel --quiet --no-deps --no-cache-dir \
	    "llama-cpp-python==$(LLAMA_VERSION)" -w $(LLAMA_WHEELS).tmp && mv $(LLAMA_WHEELS).tmp $(LLAMA_WHEELS); }
	$(PY) -m pip install --quiet --no-deps $(LLAMA_WHEELS)/llama_cpp_python-*.whl
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

# The documentation site (mkdocs.yml, docs/): built in strict mode, so a broken link, a missing
# anchor, a page left out of the nav or an API reference that does not resolve fails `make test`.
# Into a temporary directory (nothing is written to the tree); offline, no web fonts.
docs: install
	@site=$$(mktemp -d) && trap 'rm -rf "$$site"' EXIT && \
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir "$$site"

# pytest exits 5 when it collected no test: that must never count as a pass. The sources are
# byte-compiled first: where PYTHONDONTWRITEBYTECODE is set (as on some CI machines) every
# worker and every `taiwa` the tests start would compile them again (~60-100 ms a process).
pytest: install
	@$(PY) -m compileall -q src >/dev/null
	@$(PY) -m pytest -n $(PYTEST_WORKERS) --dist worksteal $(PYTEST_ARGS); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "error: pytest collected no tests (selection: '$(PYTEST_ARGS)')" >&2; exit 1; fi; \
	exit $$rc

# The browser test of `taiwa report` opens the report in headless Chromium: Debian's chromium
# package and a Japanese font (fonts-ipafont-gothic), installed with apt-get when missing (as
# root, or through sudo); a clear error when apt cannot.
chromium:
	@missing=""; command -v chromium >/dev/null 2>&1 || missing=" chromium"; \
	fc-list :lang=ja 2>/dev/null | grep -q . || missing="$$missing fonts-ipafont-gothic"; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages for the browser test of taiwa report:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  { $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq $$missing; } >/dev/null \
	  && command -v chromium >/dev/null 2>&1 || { \
	    echo "error: could not install$$missing with apt-get: install Debian's chromium" \
	      "package (apt-get install chromium fonts-ipafont-gothic) and run make test again" >&2; \
	    exit 1; }; \
	fi

test: chromium lint typecheck docs pytest

bench: install
	$(PY) benchmarks/metrics_speed.py
	$(PY) benchmarks/report_speed.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
