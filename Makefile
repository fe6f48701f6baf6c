# One entry point for the common tasks. The first two are the README's two commands.
#
#   make lab        set up .venv (first time only) and open JupyterLab on work/, your own
#                   copy of the notebooks: made from notebooks/ the first time, and each later
#                   time given the notebooks a newer workbook adds; a file in it is never
#                   overwritten, and git ignores it, so no `git pull` or release touches it
#   make test       set up .venv and the test tools (first time only), run every test (CI)
#   make sample          set up .venv (first time only), print ten emails from the shipped model
#   make check NB=01     run the visible checks of one notebook, yours in work/ (the released
#                        one in notebooks/ if you have no copy), as the autograder runs it;
#                        concept answers are graded later, unless ANSWERS=1 (a clone
#                        holds the keys: each answer is graded now, with its reason)
#   make progress        one line per notebook: functions passed, questions answered (right
#                        or wrong with ANSWERS=1), time left by the notebooks' own estimates
#   make hint NB=01 EX=score_matrix  the next level of help for one exercise: what the check
#                        says about yours, then the key idea, then its solution cell alone
#                        (LEVEL=1|2|3 for one level; NB=01 alone lists the exercises)
#   make solutions-html  executed HTML copies of the solution notebooks, figures inside, in
#                        build/solutions-html/ (NB=01 for one; made on demand, not committed)
#   make reset NB=01     put the released notebook 01 in place of yours in work/; yours is
#                        kept in work/backups/<name>-<date>T<time>.ipynb
#   make release         regenerate notebooks/ from solutions/ (instructors); refuses, naming
#                        them, while a file in notebooks/ holds changes no release made
#                        (someone's work); FORCE=1 backs them up in work/backups/ and goes on
#   make kit             the student kit: dist/attnbook-kit-<version>-<python>-<platform>.zip,
#                        installable offline, without solutions or grader (instructors)
#   make formgrader      JupyterLab with nbgrader's formgrader for this course (TAs)
#   make fast-test       the tests without notebook runs, round trips or the browser
#   make bench           run the benchmarks and print their figures
#   make clean           remove .venv and the test and lint caches; never grading data,
#                        work/ or dist/ (the kits: rm -rf dist deletes them)
#   make clean-grading   delete the TA's grading data in autograder/ (gradebook, submissions,
#                        grades.csv, feedback, ...): lists it and asks y/N, or FORCE=1

PYTHON ?= python3
VENV ?= .venv
# Your notebooks: a copy of notebooks/ that git ignores (make lab, check, reset)
WORK ?= work
FORCE ?=
BIN := $(VENV)/bin
# The torch this project pins, and where pip gets it (scripts/torch_source.py). TORCH_INDEX
# empty: a wheel this machine's pip already has, else PyPI's CUDA build when nvidia-smi finds
# an NVIDIA GPU, else the CPU-only build from PyTorch's CPU index; or cpu, cuda, local, a URL.
TORCH_SPEC ?= torch==2.13.0
TORCH_INDEX ?=
LAB_ARGS ?=
# e.g. KIT_ARGS="--torch-index https://download.pytorch.org/whl/cpu" (see scripts/build_kit.py)
KIT_ARGS ?=
PYTEST_ARGS ?=
# make test runs the tests on this many processes (pytest-xdist; whole files per process,
# tests/conftest.py groups those that share a setup); PYTEST_WORKERS=1: one process
PYTEST_WORKERS ?= 2
PYTEST_WORKER_ARGS := $(if $(filter-out 0 1,$(PYTEST_WORKERS)),-n $(PYTEST_WORKERS) --dist loadscope --no-loadscope-reorder,)
SAMPLE_ARGS ?= --count 10
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)
# Tools that nbgrader and JupyterLab start themselves (alembic, jupyter) come from .venv.
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: setup dev-setup test-deps lab formgrader test fast-test check hint progress solutions-html reset sample \
	release kit bench \
	clean clean-grading

# A learner's set-up: what the notebooks need (the package, PyTorch, JupyterLab). The test,
# TA and instructor tools come with `dev-setup`, which the targets that use them run.
setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	args=$$($(BIN)/python scripts/torch_source.py --spec "$(TORCH_SPEC)" "$(TORCH_INDEX)") && \
	  $(BIN)/python -m pip install --progress-bar on $(TORCH_SPEC) $$args
	$(BIN)/python -m pip install --progress-bar on -e ".[lab]"
	touch $@

# The test suite's, the TA's and the instructor's tools on top: pytest, ruff, mypy, the
# Hugging Face extra, and the grader (attnbook-grader: package, reference answers, catalogue).
dev-setup: $(VENV)/.installed-dev

$(VENV)/.installed-dev: $(VENV)/.installed pyproject.toml autograder/pyproject.toml
	$(BIN)/python -m pip install --progress-bar on -e ".[dev,hf]"
	$(BIN)/python -m pip install --progress-bar on -e ./autograder
	touch $@

lab: setup
	$(BIN)/python scripts/workspace.py --work $(WORK) prepare
	JUPYTER_CONFIG_PATH=$(abspath scripts/learner/jupyter) \
	  $(BIN)/jupyter lab --ServerApp.root_dir=$(WORK) $(ROOT_FLAG) $(LAB_ARGS)

# What the TA-grader and browser tests need beyond pip: bubblewrap, PostgreSQL, Chromium and
# Playwright. Both scripts are idempotent; without root they say what is missing, and
# install_system_deps.sh then exits 1, so `make test-deps` (and CI, which runs it as root)
# stops; `make test` goes on, and the tests that need a missing tool skip with that reason.
test-deps: dev-setup
	bash autograder/install_system_deps.sh
	bash scripts/install_browser.sh

# For TAs: JupyterLab with nbgrader's formgrader on this course (run from autograder/, so
# nbgrader finds autograder/nbgrader_config.py; both trees visible).
formgrader: dev-setup
	cd autograder && $(abspath $(BIN))/jupyter lab --ServerApp.root_dir=.. $(ROOT_FLAG) $(LAB_ARGS)

test: dev-setup
	-bash autograder/install_system_deps.sh
	bash scripts/install_browser.sh
	$(BIN)/python -m pytest $(PYTEST_WORKER_ARGS) $(PYTEST_ARGS)

fast-test: dev-setup
	$(BIN)/python -m pytest -m "not slow and not browser" $(PYTEST_ARGS)

check: setup
	@test -n "$(NB)" || { echo "usage: make check NB=01 (or NB=path/to/notebook.ipynb)"; exit 2; }
	$(BIN)/python scripts/check_notebook.py --work $(WORK) $(if $(filter 1,$(ANSWERS)),--answers,) $(NB)

hint: setup
	@test -n "$(NB)" || { echo "usage: make hint NB=01 EX=score_matrix [LEVEL=1|2|3]"; exit 2; }
	$(BIN)/python scripts/hint.py --work $(WORK) $(if $(LEVEL),--level $(LEVEL),) $(NB) $(EX)

solutions-html: setup
	$(BIN)/python scripts/solutions_html.py $(NB)

progress: setup
	$(BIN)/python scripts/progress.py --work $(WORK) $(if $(filter 1,$(ANSWERS)),--answers,)

reset: setup
	@test -n "$(NB)" || { echo "usage: make reset NB=01"; exit 2; }
	$(BIN)/python scripts/workspace.py --work $(WORK) reset $(NB)

sample: setup
	$(BIN)/attnbook sample $(SAMPLE_ARGS)

release: dev-setup
	$(BIN)/python scripts/release.py $(if $(filter 1,$(FORCE)),--force,)

# For instructors: what a course hands to students instead of this repository. Built for this
# machine's Python and system; build it on each platform students use (README, "The kit").
kit: dev-setup
	$(BIN)/python scripts/build_kit.py $(KIT_ARGS)

# bench_tests.py times the whole test suite; it runs on its own: python benchmarks/bench_tests.py
bench: dev-setup
	@for script in benchmarks/bench_*.py; do \
	  case $$script in */bench_tests.py) continue;; esac; \
	  echo "== $$script"; $(BIN)/python $$script; done

# Never grading data, never work/: those are someone's work (clean-grading, make reset).
# Never dist/ either: the kits take minutes to build (delete them with rm -rf dist).
clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache

# No .venv needed (make clean removes it); stdin stays the terminal for the y/N question.
clean-grading:
	$(PYTHON) scripts/clean_grading.py $(if $(filter 1,$(FORCE)),--force,)
