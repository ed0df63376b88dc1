# make lab    - create .venv, install, prepare the sample data, open JupyterLab on the quickstart;
#               PORT (8888) is tried first and a port in use is skipped; Ctrl-C twice stops it.
#               The CLI is then .venv/bin/blue-nb (or: source .venv/bin/activate); write output to scratch/
#               It installs what the lab needs and nothing else (no test tools).
# make test   - add the test extras to .venv (pytest, hypothesis, Playwright, ...) and run every test
# make bench  - the whole design loop at 100k and 1M items (SCALE=N for another), each stage's seconds and
#               peak memory against a naive baseline measured in the same run; writes bench/results.json
# make dynalite - install dynalite (tests/dynalite, with npm) for the differential test; make test runs it
# make browser - install Chromium, a CJK font and an emoji font with apt-get where they are missing (for the
#               browser tests, which run in make test whenever Chromium is installed; .ci/run calls it)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
# --no-compile: pip would byte-compile every installed module (about 1 GB) up front; Python compiles the
# modules a session imports on first use instead (measured: a fresh `make venv` 58 s -> 44 s, no slower start)
PIP    := $(BIN)/python -m pip install --quiet --disable-pip-version-check --no-compile
PORT   ?= 8888

DYNALITE := tests/dynalite/node_modules/dynalite/cli.js

.PHONY: lab test bench browser sample-data venv clean dynalite

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP) -e .
	touch $(STAMP)

$(TEST_STAMP): $(STAMP)
	$(PIP) -e ".[test]"
	touch $(TEST_STAMP)

sample-data: $(STAMP)
	$(BIN)/blue-nb prepare

lab: sample-data
	$(BIN)/blue-nb lab --port $(PORT)

test: $(TEST_STAMP) dynalite
	$(BIN)/python -m pytest

# dynalite (an independent DynamoDB implementation, pinned in tests/dynalite/package-lock.json) for the
# differential test; without npm the test skips and says why
dynalite:
	@if [ -f $(DYNALITE) ]; then :; \
	elif command -v npm >/dev/null 2>&1; then npm ci --prefix tests/dynalite --no-audit --no-fund --ignore-scripts \
		|| echo "npm ci failed: tests/test_differential.py will skip until dynalite is installed (make dynalite)"; \
	else echo "no npm: tests/test_differential.py will skip (install Node.js to run it)"; fi

bench: $(STAMP)
	$(BIN)/python -m bench $(if $(SCALE),--scale $(SCALE))

browser:
	@if command -v chromium >/dev/null 2>&1 && fc-list 2>/dev/null | grep -qi "cjk" \
		&& fc-list 2>/dev/null | grep -qi "emoji"; then \
		echo "Chromium, a CJK font and an emoji font are installed"; \
	elif command -v apt-get >/dev/null 2>&1; then \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends chromium fonts-noto-cjk fonts-noto-color-emoji; \
	else \
		echo "no apt-get: install Chromium, a CJK font (Noto Sans CJK) and an emoji font (Noto Color Emoji) yourself; the browser tests skip without Chromium"; \
	fi

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
