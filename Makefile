# make lab   -> set up .venv on first use, then open JupyterLab on notebooks/
# make test  -> set up .venv on first use, then run unit tests + every notebook under nbval, on
#   every core (PYTEST_JOBS=0: one process)
#   (also the real-browser tests, marker browser, the Binder build, marker binder, and the
#    installed wheel, marker wheel; skip them with:
#    make test PYTEST_ARGS="-m 'not browser and not binder and not wheel and not nbgrader and not hub'")
# make test-latest -> the notebooks and solutions on the newest releases of everything but torch,
#   in .venv-latest; it prints the versions it used
#   (nbval lax: outputs may drift, the claims' asserts may not fail; needs the package registry)
# make figures -> every slide figure into figures-out/ (FIGURES_ARGS="--theme dark --format svg")
# make site    -> the course website into site/ from the stored notebooks (offline; the first run
#   fetches MathJax, require.js, d3 and jQuery once with npm into .site-cache/)
# make serve-site -> preview site/ on http://127.0.0.1:8000
# make slides  -> one slide deck per lecture into slides/ (HTML + PDF; offline; the first run fetches
#   reveal.js and MathJax once with npm into .site-cache/; the PDFs need Debian's chromium)
# make serve-slides -> present slides/ from http://127.0.0.1:8001
# make student-release -> the tree a class hub's nbgitpuller links pull into student-release/:
#   the lectures without solutions/ or per-run metadata (docs/teaching-a-class.md)
# figures, site, slides, student-release and test also install the builder, tools/
#   (lecturekit_publish with its slide figures, lecturekit_publish.figures; its own distribution:
#   the student wheel does not carry it) with pip install -e ./tools.
# Set-up is redone only when requirements.txt, pyproject.toml or setup.py change
# (requirements-test.txt, for make test only, when it changes; tools/pyproject.toml for the builder).

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.lecturekit-installed
TEST_STAMP := $(VENV)/.lecturekit-test-installed
SITE_STAMP := $(VENV)/.lecturekit-site-installed
SLIDES_STAMP := $(VENV)/.lecturekit-slides-installed
PUBLISH_STAMP := $(VENV)/.lecturekit-publish-installed
PYTEST_ARGS ?=
# pytest-xdist workers for make test (a test file per worker at a time): one per core by default
PYTEST_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
FIGURES_ARGS ?= --format png,svg,pdf
LAB_ARGS ?=
# Jupyter refuses to start as root (e.g. in a container) unless told to.
ROOT_FLAG := $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root)

.PHONY: lab test test-latest figures site serve-site slides serve-slides student-release install clean-venv

install: $(STAMP)

# --no-compile: a module compiles when first imported; byte-compiling all of torch and
# transformers at install took about a minute
$(STAMP): requirements.txt pyproject.toml setup.py
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' || \
	  { echo "lecturekit needs Python >= 3.10; $(PYTHON) is $$($(PYTHON) --version 2>&1)."; \
	    echo "Run: make PYTHON=python3.11 ..."; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install --no-compile -r requirements.txt
	$(BIN)/python -m pip install --no-deps -e .
	touch $(STAMP)

$(TEST_STAMP): requirements-test.txt requirements-site.txt requirements-slides.txt requirements-class.txt $(STAMP) $(PUBLISH_STAMP)
	$(BIN)/python -m pip install --no-compile -r requirements-test.txt
	@# (not byte-compiled here: the root conftest.py has each module's bytecode written by the
	@# first process of the run that imports it, where PYTHONDONTWRITEBYTECODE would prevent it)
	touch $(TEST_STAMP)

# the site and slide builder (tools/): editable, like lecturekit; its dependency is lecturekit
$(PUBLISH_STAMP): tools/pyproject.toml $(STAMP)
	$(BIN)/python -m pip install --no-deps -e ./tools
	touch $(PUBLISH_STAMP)

$(SITE_STAMP): requirements-site.txt $(STAMP) $(PUBLISH_STAMP)
	$(BIN)/python -m pip install --no-compile -r requirements-site.txt
	touch $(SITE_STAMP)

$(SLIDES_STAMP): requirements-slides.txt $(STAMP) $(PUBLISH_STAMP)
	$(BIN)/python -m pip install --no-compile -r requirements-slides.txt
	touch $(SLIDES_STAMP)

lab: $(STAMP)
	$(BIN)/jupyter lab --notebook-dir=notebooks $(ROOT_FLAG) $(LAB_ARGS)

test: $(TEST_STAMP)
	$(BIN)/python -m pytest --nbval --nbval-current-env -n $(PYTEST_JOBS) --dist loadfile \
	  --no-loadscope-reorder \
	  --nbval-sanitize-with tests/nbval_sanitize.cfg tests notebooks solutions companions $(PYTEST_ARGS)

LATEST_VENV ?= .venv-latest
test-latest:
	test -x $(LATEST_VENV)/bin/python || $(PYTHON) -m venv $(LATEST_VENV)
	$(LATEST_VENV)/bin/python -m pip install --upgrade pip
	$(LATEST_VENV)/bin/python -m pip install --upgrade --upgrade-strategy eager -r requirements-latest.txt
	$(LATEST_VENV)/bin/python -m pip install --no-deps -e .
	mkdir -p test-output && $(LATEST_VENV)/bin/python -m pip list --format=freeze > test-output/latest-versions.txt
	@echo "test-latest runs with (all in test-output/latest-versions.txt):" $$(grep -iE '^(torch|numpy|matplotlib|ipywidgets|bertviz|scikit-learn|transformers|safetensors)==' test-output/latest-versions.txt)
	$(LATEST_VENV)/bin/python -m pytest --nbval-lax --nbval-current-env notebooks solutions $(PYTEST_ARGS)

figures: $(PUBLISH_STAMP)
	$(BIN)/python -m lecturekit_publish.figures build --out figures-out $(FIGURES_ARGS)

SITE_ARGS ?=
site: $(SITE_STAMP)
	$(BIN)/python -m lecturekit_publish vendor
	$(BIN)/python -m lecturekit_publish site --out site $(SITE_ARGS)

serve-site:
	@test -f site/index.html || { echo "no site/ yet: run make site first"; exit 1; }
	$(BIN)/python -m http.server --directory site --bind 127.0.0.1 8000

SLIDES_ARGS ?=
slides: $(SLIDES_STAMP)
	$(BIN)/python -m lecturekit_publish vendor
	$(BIN)/python -m lecturekit_publish slides --out slides $(SLIDES_ARGS)

serve-slides:
	@test -f slides/index.html || { echo "no slides/ yet: run make slides first"; exit 1; }
	$(BIN)/python -m http.server --directory slides --bind 127.0.0.1 8001

student-release: $(PUBLISH_STAMP)
	$(BIN)/python -m lecturekit_publish student-release --out student-release

clean-venv:
	rm -rf $(VENV)
