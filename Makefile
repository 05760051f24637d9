# The two commands of the README:
#   make demo   a real Hermes session with the fence, on a scripted model on 127.0.0.1
#   make test   every test
#   make bench  the fence beside its peers (bench/run.py; not a test)
#   make fuzz   the fuzzers and the differential test, long (FUZZ_RUNS cases per property)
#   make wheel  the package a user installs: build/wheel/agentsfence-VERSION-py3-none-any.whl
# Both install what they need first (npm ci, the build, a venv with the package and Hermes);
# `make test` also installs Debian's Chromium for the playground's browser test, and strace,
# bubblewrap, iproute2 and ripgrep for the bash differential test (tests/bashdiff), rsyslog,
# the audit collector the shipping tests start (host-python/tests/test_shipping.py), and
# PostgreSQL, which the state store's tests start on 127.0.0.1 for themselves (tests/state).

VENV := .venv
PY := $(VENV)/bin/python
NODE_STAMP := node_modules/.package-lock.json
VENV_STAMP := $(VENV)/.installed

WHEEL_DIR := build/wheel

.PHONY: demo test test-py314 build setup bench chromium bashdiff-tools fleet-servers state-servers fuzz wheel

demo: setup
	$(PY) tests/e2e/demo.py

# tests/e2e/test_wheel.py installs the wheel into a clean virtualenv with no Node on its PATH.
test: setup chromium bashdiff-tools fleet-servers state-servers wheel
	npm run --silent typecheck
	npx vitest run
	npm run --silent test:as
	$(PY) -m pytest -q host-python/tests tests/e2e tests/corpora tests/state
	$(VENV)/bin/agentsfence test policies/tests/*.test.yaml examples/*/*.test.yaml
	$(PY) -m pytest -q tests/bashdiff

# The package's own tests on Debian's python3.14, in the Debian sid root scripts/install-py314.sh
# makes: the work tree mounted at /src, the package installed editable from it (offline). Tests
# that need Hermes (hermes-agent 0.19.0 requires Python < 3.14) are skipped, each with that
# reason (scripts/py314_pytest.py); Node is not there, and the tests that need it skip themselves.
PY314_CACHE ?= /var/cache/agentsfence-py314
PY314_RUN := bwrap --bind $(PY314_CACHE)/root / --ro-bind $(CURDIR) /src --chdir /src --bind /proc /proc --dev-bind /dev /dev --tmpfs /tmp \
	--ro-bind /etc/resolv.conf /etc/resolv.conf --ro-bind /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt \
	--setenv HOME /root --setenv PATH /opt/py314/bin:/usr/bin:/bin --setenv PYTHONPATH /src/scripts --unsetenv PIP_FIND_LINKS
test-py314: build
	PY314_CACHE=$(PY314_CACHE) scripts/install-py314.sh
	$(PY314_RUN) /opt/py314/bin/pip install --quiet --no-deps --no-build-isolation --no-index -e /src/host-python
	$(PY314_RUN) /opt/py314/bin/python -m pytest -q -p no:cacheprovider -p py314_pytest -rs host-python/tests

FUZZ_RUNS ?= 20000
FUZZ_TESTS_NODE := tests/evaluator/verify.fuzz.test.ts tests/differential.test.ts
FUZZ_TESTS_PY := host-python/tests/test_fuzz_verifier.py host-python/tests/test_fuzz_intent.py

# The bash differential draws FUZZ_RUNS new commands (BASHDIFF_SEED=N repeats a run) and fails
# on any disagreement.
# The state store's kill test: STATE_KILLS gateways killed at random points (make test: 10).
STATE_KILLS ?= 100

fuzz: setup bashdiff-tools state-servers
	STATE_KILLS=$(STATE_KILLS) $(PY) -m pytest -q -s tests/state/test_kills.py
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

# PostgreSQL, which the state store's tests (tests/state) start on 127.0.0.1 for themselves.
state-servers:
	scripts/install-state-servers.sh

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
