# The two commands of the README:
#   make demo   a real Hermes session with the fence, on a scripted model on 127.0.0.1
#   make test   every test
#   make bench  the fence beside its peers (bench/run.py; not a test)
#   make fuzz   the fuzzers and the differential test, long (FUZZ_RUNS cases per property)
#   make wheel  the package a user installs: build/wheel/agentsfence-VERSION-py3-none-any.whl
# Both install what they need first (npm ci, the build, a venv with the package and Hermes);
# `make test` also installs Debian's Chromium for the playground's browser test, and strace,
# bubblewrap, iproute2 and ripgrep for the bash differential test (tests/bashdiff), and rsyslog,
# the audit collector the shipping tests start (host-python/tests/test_shipping.py).

VENV := .venv
PY := $(VENV)/bin/python
NODE_STAMP := node_modules/.package-lock.json
VENV_STAMP := $(VENV)/.installed

WHEEL_DIR := build/wheel

.PHONY: demo test build setup bench chromium bashdiff-tools fleet-servers fuzz wheel

demo: setup
	$(PY) tests/e2e/demo.py

# tests/e2e/test_wheel.py installs the wheel into a clean virtualenv with no Node on its PATH.
test: setup chromium bashdiff-tools fleet-servers wheel
	npm run --silent typecheck
	npx vitest run
	npm run --silent test:as
	$(PY) -m pytest -q host-python/tests tests/e2e tests/corpora
	$(VENV)/bin/agentsfence test policies/tests/*.test.yaml examples/*/*.test.yaml
	$(PY) -m pytest -q tests/bashdiff

FUZZ_RUNS ?= 20000
FUZZ_TESTS_NODE := tests/evaluator/verify.fuzz.test.ts tests/differential.test.ts
FUZZ_TESTS_PY := host-python/tests/test_fuzz_verifier.py

# The bash differential draws FUZZ_RUNS new commands (BASHDIFF_SEED=N repeats a run) and fails
# on any disagreement.
fuzz: setup bashdiff-tools
	FUZZ_RUNS=$(FUZZ_RUNS) npx vitest run $(FUZZ_TESTS_NODE)
	FUZZ_RUNS=$(FUZZ_RUNS) $(PY) -m pytest -q -s $(FUZZ_TESTS_PY)
	FUZZ_RUNS=$(FUZZ_RUNS) BASHDIFF_STRICT=1 $(PY) -m pytest -q tests/bashdiff/test_bashdiff.py -k generated

bench: setup
	bench/setup.sh
	$(PY) bench/run.py

setup: $(NODE_STAMP) $(VENV_STAMP) build

# The wheel holds fence.wasm, the compiled shipped policies and the compiler bundle: built after `build`.
wheel: setup
	rm -rf $(WHEEL_DIR) host-python/build
	$(PY) -m pip wheel --quiet --no-deps --wheel-dir $(WHEEL_DIR) ./host-python
	rm -rf host-python/build
	@ls -l $(WHEEL_DIR)/*.whl

chromium:
	scripts/install-chromium.sh

bashdiff-tools:
	scripts/install-bashdiff-tools.sh

fleet-servers:
	scripts/install-fleet-servers.sh

# The build precompiles fence.wasm with the package's pinned wasmtime: the venv comes first.
build: $(NODE_STAMP) $(VENV_STAMP)
	scripts/build.sh

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund

$(VENV_STAMP): host-python/pyproject.toml
	python3 -m venv $(VENV)
	mkdir -p host-python/agentsfence/_data  # the package's data, which scripts/build.sh fills
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e 'host-python[test]'
	touch $@
