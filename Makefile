# make lab   -> set up .venv on first use, then open JupyterLab on notebooks/
# make test  -> set up .venv on first use, then run unit tests + every notebook under nbval
#   (also the real-browser tests, marker browser, and the Binder build, marker binder; skip
#    them with: make test PYTEST_ARGS="-m 'not browser and not binder'")
# make figures -> every slide figure into figures-out/ (FIGURES_ARGS="--theme dark --format svg")
# Set-up is redone only when requirements.txt or pyproject.toml change (requirements-test.txt, for
# make test only, when it changes).

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.lecturekit-installed
TEST_STAMP := $(VENV)/.lecturekit-test-installed
PYTEST_ARGS ?=
FIGURES_ARGS ?= --format png,svg,pdf
LAB_ARGS ?=
# Jupyter refuses to start as root (e.g. in a container) unless told to.
ROOT_FLAG := $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root)

.PHONY: lab test figures install clean-venv

install: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' || \
	  { echo "lecturekit needs Python >= 3.10; $(PYTHON) is $$($(PYTHON) --version 2>&1)."; \
	    echo "Run: make PYTHON=python3.11 ..."; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -r requirements.txt
	$(BIN)/python -m pip install --no-deps -e .
	touch $(STAMP)

$(TEST_STAMP): requirements-test.txt $(STAMP)
	$(BIN)/python -m pip install -r requirements-test.txt
	touch $(TEST_STAMP)

lab: $(STAMP)
	$(BIN)/jupyter lab --notebook-dir=notebooks $(ROOT_FLAG) $(LAB_ARGS)

test: $(TEST_STAMP)
	$(BIN)/python -m pytest --nbval --nbval-current-env \
	  --nbval-sanitize-with tests/nbval_sanitize.cfg tests notebooks $(PYTEST_ARGS)

figures: $(STAMP)
	$(BIN)/python -m lecturekit.figures build --out figures-out $(FIGURES_ARGS)

clean-venv:
	rm -rf $(VENV)
