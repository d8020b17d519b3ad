# Local workflow: `make run` serves the site, `make test` runs the tests.
# Everything runs from .venv, which uv builds from uv.lock (every package pinned, with hashes).

PYTHON ?= $(shell pyenv which python3.12 2>/dev/null || command -v python3.12 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
ARGS ?=

# uv, pinned, in a venv of its own (.uv/), installed from PyPI with pip, hash-checked: it
# builds .venv and keeps uv.lock. The release and its files' hashes are in
# tools/uv-requirements.txt (bump it there); pyproject.toml's [tool.uv] required-version
# is the floor.
UV_REQUIREMENTS := tools/uv-requirements.txt
UV_VERSION := $(shell sed -n 's/^uv==\([0-9.]*\).*/\1/p' $(UV_REQUIREMENTS))
UV_HOME := .uv
UV := $(UV_HOME)/bin/uv
# The project's venv is .venv, on the Python above; uv never downloads an interpreter.
export UV_PROJECT_ENVIRONMENT := $(VENV)
export UV_PYTHON_DOWNLOADS := never

# The JavaScript tools (Biome), pinned exactly in package.json and package-lock.json and
# installed into node_modules/ by `npm ci` when the lock file changes: `make lint` and
# `make fmt` need Node.js and npm; `make run` and `make test` do not.
NPM ?= npm
NODE_STAMP := node_modules/.installed
BIOME := node_modules/.bin/biome

.PHONY: venv uv lock node run serve-prod deploy-check test test-fast screens lint fmt messages bench load faults kills crowd pictures tools clean

venv: $(STAMP)

# Syncs only when pyproject.toml or uv.lock changes (or the venv is missing): installs
# exactly what uv.lock pins, runtime and dev group, checking every file's hash, and removes
# whatever else is in .venv. `--locked` fails if uv.lock is out of date with pyproject.toml
# (then run `make lock`). uv recreates .venv if it is not on $(PYTHON).
$(STAMP): pyproject.toml uv.lock | uv
	$(UV) sync --locked --python "$(PYTHON)"
	touch $(STAMP)

uv:
	@if [ -z "$(PYTHON)" ] || ! "$(PYTHON)" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then \
		echo "error: need Python 3.12 or newer, found '$(PYTHON)'." >&2; \
		echo "Install it (pyenv install 3.12.1) or run: make PYTHON=/path/to/python3.12 ..." >&2; \
		exit 1; \
	fi
	@if [ "$$($(UV) --version 2>/dev/null | cut -d' ' -f1,2)" != "uv $(UV_VERSION)" ]; then \
		echo "Installing uv $(UV_VERSION) into $(UV_HOME)/"; \
		rm -rf $(UV_HOME) && "$(PYTHON)" -m venv $(UV_HOME) \
			&& $(UV_HOME)/bin/python -m pip install --quiet --disable-pip-version-check \
				--require-hashes --no-deps -r $(UV_REQUIREMENTS); \
	fi

# After editing the dependencies in pyproject.toml: re-resolve uv.lock, keeping every pin
# that still fits. Upgrade one package: make lock LOCK_ARGS="--upgrade-package django".
LOCK_ARGS ?=
lock: uv
	$(UV) lock --python "$(PYTHON)" $(LOCK_ARGS)

node: $(NODE_STAMP)

$(NODE_STAMP): package.json package-lock.json
	@command -v $(NPM) >/dev/null || { \
		echo "error: make lint and make fmt need npm (Node.js) for Biome, the JavaScript linter." >&2; \
		echo "Install it (apt-get install nodejs npm) or run: make NPM=/path/to/npm ..." >&2; \
		exit 1; \
	}
	$(NPM) ci --no-audit --no-fund
	touch $(NODE_STAMP)

# On port 8000, or another: make run PORT=8001.
run: venv
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py load_demo
	$(BIN)/python manage.py runserver 127.0.0.1:$${PORT:-8000}

# The production setup on this machine, over plain http: DEBUG off, static files collected
# for WhiteNoise, gunicorn with clubsite/gunicorn.conf.py and one task worker beside it
# (`manage.py db_worker`, tasks in the database: DJANGO_TASKS=database), against
# PostgreSQL (the database is created if missing). Any variable can be given: make
# serve-prod PORT=8765 DJANGO_SECRET_KEY=… DATABASE_URL=…; docs/deploy.md lists them.
# Secure cookies and the HTTPS redirect are off here only because local http has no TLS.
# The worker (`manage.py task_worker`) outlives a database outage by itself; should it end
# all the same (killed, out of memory), it is started again a second later, as systemd
# and compose do (docs/deploy.md). Stopping gunicorn (Ctrl+C) stops the worker too.
serve-prod: venv
	@set -e; \
	export DATABASE_URL="$${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/clubsite}"; \
	export DJANGO_DEBUG=0; \
	export DJANGO_SECRET_KEY="$${DJANGO_SECRET_KEY:-$$($(BIN)/python -c 'import secrets; print(secrets.token_urlsafe(50))')}"; \
	export DJANGO_ALLOWED_HOSTS="$${DJANGO_ALLOWED_HOSTS:-127.0.0.1,localhost}"; \
	export DJANGO_SECURE_SSL_REDIRECT="$${DJANGO_SECURE_SSL_REDIRECT:-0}"; \
	export DJANGO_SECURE_COOKIES="$${DJANGO_SECURE_COOKIES:-0}"; \
	export DJANGO_TASKS="$${DJANGO_TASKS:-database}"; \
	database="$${DATABASE_URL##*/}"; database="$${database%%\?*}"; \
	if ! psql "$$DATABASE_URL" -Atqc 'SELECT 1' >/dev/null 2>&1; then \
		echo "Creating the PostgreSQL database $$database"; \
		createdb --maintenance-db="$${DATABASE_URL%/*}/postgres" "$$database"; \
	fi; \
	$(BIN)/python manage.py collectstatic --noinput --verbosity 0; \
	$(BIN)/python manage.py migrate --noinput; \
	( trap 'kill $$task_worker 2>/dev/null; wait $$task_worker; exit 0' INT TERM; \
	  while :; do \
	    $(BIN)/python manage.py task_worker & task_worker=$$!; \
	    wait $$task_worker || true; \
	    echo "The task worker ended: starting it again in a second" >&2; sleep 1; \
	  done ) & worker=$$!; \
	trap 'kill $$worker 2>/dev/null; wait $$worker' EXIT; \
	$(BIN)/gunicorn --config clubsite/gunicorn.conf.py clubsite.wsgi

# The image built from the Dockerfile by podman and run (bench/deploy_check.py; root, podman,
# runc and debootstrap): its base pulled, or where no registry answers a stand-in made from
# Debian's packages and this host's Python; then the image run on this host's network: the
# release (migrate, the demo club) on a scratch PostgreSQL database (DEPLOY_CHECK_DATABASE_URL,
# by default clubsite_deploy_check, dropped after) and gunicorn, asked /healthz and pages.
# compose.yaml itself is checked by tests/deploy/test_compose.py.
deploy-check: venv
	$(BIN)/python -m bench.deploy_check $(ARGS)

# The suite runs on both cores (pytest-xdist, one database per worker), on PostgreSQL when
# one answers on 127.0.0.1 (so the production save path, the connection pool and the write
# races run locally), else on SQLite. A DATABASE_URL in the environment is used as it is;
# DB=sqlite runs SQLite whatever answers, DB=postgres insists on PostgreSQL (.ci/run runs
# both). `make test-fast` leaves out the tests marked slow (whole-site crawls and fuzzers,
# the browser, servers in subprocesses: pyproject.toml's markers): the edit loop. ARGS go
# to pytest: make test-fast ARGS="tests/scoring -x".
# xdist's worksteal, not its default load: load hands out tests in batches by count, and
# the last batch, the transactional and browser tests, went to one worker, which ran them
# alone for 4 to 8 minutes and more while the other waited (tests/conftest.py).
# Bytecode is kept under .pytest_cache/ (never beside the sources or in .venv), even where
# PYTHONDONTWRITEBYTECODE is set: each xdist worker and each manage.py, gunicorn or worker
# process a test starts would otherwise compile the site and its tests again, and pytest
# rewrite every test module's asserts again (about 7 s of CPU per worker).
DB ?=
POSTGRES_URL ?= postgres://postgres@127.0.0.1:5432/clubsite
PYTEST := $(BIN)/pytest -n auto --dist worksteal

define run_tests
	@set -e; why="DB=$(DB)"; \
	case "$(DB)" in \
		sqlite) unset DATABASE_URL ;; \
		postgres) export DATABASE_URL="$${DATABASE_URL:-$(POSTGRES_URL)}" ;; \
		"") why="DATABASE_URL"; \
			if [ -z "$${DATABASE_URL:-}" ]; then \
				if command -v pg_isready >/dev/null && pg_isready -q -h 127.0.0.1; then \
					export DATABASE_URL="$(POSTGRES_URL)"; why="it answers on 127.0.0.1"; \
				else why="no PostgreSQL answers on 127.0.0.1"; fi; \
			fi ;; \
		*) echo "error: DB=$(DB): say DB=sqlite or DB=postgres" >&2; exit 2 ;; \
	esac; \
	case "$${DATABASE_URL:-}" in \
		postgres*) echo "Tests on PostgreSQL, $${DATABASE_URL##*@} ($$why)" ;; \
		"") echo "Tests on SQLite ($$why)" ;; \
		*) echo "Tests on $${DATABASE_URL%%:*} ($$why)" ;; \
	esac; \
	unset PYTHONDONTWRITEBYTECODE; \
	export PYTHONPYCACHEPREFIX="$${PYTHONPYCACHEPREFIX:-$(CURDIR)/.pytest_cache/bytecode}"; \
	$(PYTEST) $(1) $(ARGS)
endef

test: venv
	$(call run_tests,)

test-fast: venv
	$(call run_tests,-m "not slow")

# The visual regression references (tests/browser/test_screens.py): every main page on a
# phone and a desktop pictured again into tests/browser/screens/ (that run fails by design:
# each picture written is reported), then compared once more, which must pass: a page that
# does not look the same twice is not deterministic. Look at the pictures, then commit them.
SCREENS_TESTS := tests/browser/test_screens.py -k look_as_their_references -p no:cacheprovider -n 0
screens: venv
	@set -e; unset PYTHONDONTWRITEBYTECODE; \
	export PYTHONPYCACHEPREFIX="$${PYTHONPYCACHEPREFIX:-$(CURDIR)/.pytest_cache/bytecode}"; \
	UPDATE_SCREENS=1 $(BIN)/pytest $(SCREENS_TESTS) -q $(ARGS) 2>&1 | grep -E "^E +[^ ]+\.png: written|rror" || true; \
	$(BIN)/pytest $(SCREENS_TESTS) -q $(ARGS); \
	git status --short tests/browser/screens/

# Biome lints static/js/ and checks its format (biome.json; `biome ci` writes nothing);
# djLint lints the templates (pyproject.toml's [tool.djlint]) and does not format them.
lint: venv node
	$(UV) lock --check --python "$(PYTHON)"
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports --no-logo
	$(BIOME) ci
	$(BIN)/djlint templates --lint

fmt: venv node
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .
	$(BIOME) check --write

# The Russian translation: refresh locale/ru/LC_MESSAGES/django.po from the sources (no
# file:line comments: they churn with every edit and make branches conflict), then
# compile django.mo (needs GNU gettext's msgfmt). Commit both files: a machine without
# gettext still serves Russian from the committed .mo. tests/clubsite/test_i18n.py checks that every
# message is translated and that the .mo matches the .po.
messages: venv
	$(BIN)/python manage.py makemessages -l ru --keyword=N_ --no-obsolete --no-location --ignore=.venv --ignore=bench --ignore=staticfiles
	$(BIN)/python manage.py compilemessages -l ru --ignore=.venv

# Benchmarks (bench/): the engine, then the site's pages beside a bare view, and the save
# of a deal beside a bare write view taken in turns with it, as a ratio (marked only when
# it is more than 25% above the ratio docs/performance.md records), each in one run.
bench: venv tools
	$(BIN)/python -m bench

# 50 viewers polling a live pulka for 60 s while deals are entered, through nginx to two
# gunicorn instances sharing PostgreSQL and Redis (redis://127.0.0.1:6379/5, or
# LOAD_REDIS_URL); fails on an error, a missed deal or a sheet rendered twice. Needs
# Debian's nginx and a running Redis (.ci/run installs both). make load ARGS="--servers 1".
# Then 2,000 viewers holding the event streams of 100 tables in play through nginx and
# Pushpin while scorers save deals (bench/push_load.py): fails on an error, a missed deal,
# a save-to-sheet latency over its target (median 300 ms, p95 1 s) or idle app servers
# using 5% of a core. PUSH_ARGS go to it: make load PUSH_ARGS="--viewers 500".
PUSH_ARGS ?=
load: venv tools
	@command -v nginx >/dev/null || test -x /usr/sbin/nginx || { echo "error: make load needs nginx (apt-get install nginx)" >&2; exit 1; }
	$(BIN)/python -m bench.live_load $(ARGS)
	$(BIN)/python -m bench.push_load $(PUSH_ARGS)

# The site's dependencies taken away under load: PostgreSQL stopped 30 s and started, then
# Redis killed 30 s and started, under the layout of `make load` but on a PostgreSQL cluster
# and a Redis of the run's own (free loopback ports; the machine's are never touched).
# Fails on an answer other than 503 during the database outage, on any error otherwise, or
# on a server not serving again within 5 s (bench/fault_run.py). Needs PostgreSQL 15's
# programs (/usr/lib/postgresql/15/bin, or FAULTS_PG_BIN), redis-server and nginx.
faults: venv
	@command -v nginx >/dev/null || test -x /usr/sbin/nginx || { echo "error: make faults needs nginx (apt-get install nginx)" >&2; exit 1; }
	$(BIN)/python -m bench.fault_run $(ARGS)

# Ten gunicorn workers killed (kill -9) in 45 s while four scorers save deals, resending a
# save whose answer was lost with its key as the outbox does, and twelve viewers poll, on
# the layout and the servers of `make faults` (bench/kill_run.py). Fails on a 500, a deal
# lost or doubled, or a resend not answered as the first (issue 35).
kills: venv
	@command -v nginx >/dev/null || test -x /usr/sbin/nginx || { echo "error: make kills needs nginx (apt-get install nginx)" >&2; exit 1; }
	$(BIN)/python -m bench.kill_run $(ARGS)

# Sixteen clients flooding the sign-in (at one gunicorn, then through nginx) while a visitor
# watches a pulka's page, then 2,000 connections at once, against nginx with deploy/nginx's
# settings (bench/crowd_run.py). Fails if the flood through nginx more than doubles the
# page's median, or on a dropped connection.
crowd: venv tools
	@command -v nginx >/dev/null || test -x /usr/sbin/nginx || { echo "error: make crowd needs nginx (apt-get install nginx)" >&2; exit 1; }
	$(BIN)/python -m bench.crowd_run $(ARGS)

# The biggest sheet's picture asked by 20 anonymous clients at once while /healthz is
# probed (bench/picture_burst.py). Fails if /healthz takes a second or a worker dies.
pictures: venv
	@command -v nginx >/dev/null || test -x /usr/sbin/nginx || { echo "error: make pictures needs nginx (apt-get install nginx)" >&2; exit 1; }
	$(BIN)/python -m bench.picture_burst $(ARGS)

# The load tool the benchmarks drive gunicorn with, and the push server of the load run
# (Debian's pushpin; its own service is not wanted: the runs start theirs).
tools:
	@command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
	@command -v pushpin >/dev/null || { apt-get update -qq && apt-get install -y -qq pushpin && { systemctl disable --now pushpin 2>/dev/null || true; }; }

clean:
	rm -rf $(VENV) $(UV_HOME) node_modules staticfiles .pytest_cache .ruff_cache .mypy_cache .hypothesis .import_linter_cache .grimp_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
