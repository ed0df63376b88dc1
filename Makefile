# make lab    - create .venv, install, prepare the sample data, open JupyterLab on the quickstart;
#               PORT (8888) is tried first and a port in use is skipped; Ctrl-C twice stops it.
#               The CLI is then .venv/bin/blue-nb (or: source .venv/bin/activate); write output to scratch/
# make test   - create or update .venv with the test extras and run every test (notebooks included)
# make bench  - speed numbers against a naive baseline measured in the same run
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PORT   ?= 8888

.PHONY: lab test bench sample-data venv clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

sample-data: $(STAMP)
	$(BIN)/blue-nb prepare

lab: sample-data
	$(BIN)/blue-nb lab --port $(PORT)

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python -m blue_nb.bench

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
