# Local workflow: `make run` serves the site, `make test` runs the tests.
# Everything runs from .venv, built from the pinned requirements files.

PYTHON ?= $(shell pyenv which python3.12 2>/dev/null || command -v python3.12 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
ARGS ?=

.PHONY: venv run test lint fmt bench clean

venv: $(STAMP)

# Reinstalls only when a requirements file changes (or the venv is missing).
$(STAMP): requirements.txt requirements-dev.txt
	@if [ -z "$(PYTHON)" ] || ! "$(PYTHON)" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then \
		echo "error: need Python 3.12 or newer, found '$(PYTHON)'." >&2; \
		echo "Install it (pyenv install 3.12.1) or run: make PYTHON=/path/to/python3.12 ..." >&2; \
		exit 1; \
	fi
	@if ! $(BIN)/python -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then \
		rm -rf $(VENV) && "$(PYTHON)" -m venv $(VENV); \
	fi
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	touch $(STAMP)

run: venv
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py load_demo
	$(BIN)/python manage.py runserver 127.0.0.1:8000

test: venv
	$(BIN)/pytest $(ARGS)

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

fmt: venv
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Engine benchmarks (bench/): each figure printed beside its target.
bench: venv
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .ruff_cache .mypy_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
