# The two commands of README.md: `make run` serves the CMS, `make test` checks it. Both set up what they need.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install --quiet --disable-pip-version-check -c requirements/constraints.txt
export HOST ?= 127.0.0.1
export PORT ?= 8000


.PHONY: assets run test screenshots bench bench-import bench-search stress fuzz lint openapi mcp-tools constraints clean

$(VENV)/.prod-installed: requirements/base.txt requirements/prod.txt requirements/constraints.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed (set PYTHON=python3.11)")'
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo "Installing runtime dependencies into $(VENV) …"
	$(PIP) -r requirements/prod.txt
	@touch $@

$(VENV)/.dev-installed: $(VENV)/.prod-installed requirements/dev.txt
	@echo "Installing test tools into $(VENV) …"
	$(PIP) -r requirements/dev.txt
	@touch $@

## Serve the CMS on $(HOST):$(PORT): install, migrate, create the first admin (printing its token once), run.
run: $(VENV)/.prod-installed
	$(PY) manage.py migrate --noinput
	$(PY) manage.py collectstatic --noinput --verbosity 0
	$(PY) manage.py cms_setup --print-token
	PY=$(PY) exec bash scripts/serve.sh

# The npm test tools: the TypeScript compiler that checks the schema export (tests/schema/test_export.py) and axe-core,
# which the browser tests run in every studio page (tests/browser/studio.py). Without npm those tests skip, except
# under CI, where they fail.
TS_CHECK := tests/typescript/node_modules/.ci-installed
$(TS_CHECK): tests/typescript/package.json tests/typescript/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		npm ci --prefix tests/typescript --no-audit --no-fund --loglevel=error && touch $@; \
	else echo "npm not found: the TypeScript export will not be compiled by the tests."; fi

## Lint, migration check and the whole test suite on SQLite, then on PostgreSQL when one is reachable.
test: $(VENV)/.dev-installed $(TS_CHECK)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	@# B608 (SQL built from strings) is reviewed line by line through ruff's S608 instead: each such line carries a noqa.
	$(PY) -m bandit --quiet --recursive apps --severity-level medium --skip B608
	DATABASE_URL=sqlite:///:memory: $(PY) manage.py makemigrations --check --dry-run
	VENV=$(VENV) bash scripts/run-tests.sh $(PYTEST_ARGS)

## The studio's pictures in docs/studio/ (docs/studio.md), taken by its browser tests at fixed sizes; every page they
## visit is also saved full length in var/screenshots/.
screenshots: $(VENV)/.dev-installed $(TS_CHECK)
	CMS_SCREENSHOTS=docs/studio $(PY) -m pytest -q -p no:cacheprovider tests/browser -k studio

## Every benchmark (HTTP, MCP, media, mixed load, search, import) on SQLite and PostgreSQL, as ratios to a bare WSGI
## app measured in the same run; writes docs/performance.md and docs/performance.png (needs wrk).
$(VENV)/.bench-installed: $(VENV)/.dev-installed requirements/bench.txt
	$(PIP) -r requirements/bench.txt
	@touch $@

bench: $(VENV)/.bench-installed
	@command -v wrk >/dev/null || { echo "wrk is needed: apt-get install wrk"; exit 1; }
	$(PY) -m bench.all -- $(BENCH_ARGS)

## WordPress import: posts/s end to end on SQLite and PostgreSQL beside the bare parse+convert rate, peak memory.
bench-import: $(VENV)/.dev-installed
	$(PY) -m bench.import_bench $(BENCH_IMPORT_ARGS)

## Load and faults with pass/fail verdicts (10 minutes of mixed load, killed workers, a PostgreSQL restart).
stress: $(VENV)/.dev-installed
	$(PY) -m bench.stress $(STRESS_ARGS)

$(VENV)/.fuzz-installed: $(VENV)/.dev-installed requirements/fuzz.txt
	$(PIP) -r requirements/fuzz.txt
	@touch $@

## Property-based fuzzing of every documented operation with schemathesis, against a real server.
fuzz: $(VENV)/.fuzz-installed
	$(PY) -m tests.fuzz.run $(FUZZ_ARGS)

## Full-text search at 100,000 entries on SQLite and PostgreSQL (RUM and GIN); writes docs/performance.md (needs wrk).
bench-search: $(VENV)/.dev-installed
	@command -v wrk >/dev/null || { echo "wrk is needed: apt-get install wrk"; exit 1; }
	$(PY) -m bench.search $(BENCH_ARGS)

## Rebuild the studio's rich-text editor (apps/studio/static/studio/editor/, committed) from apps/studio/frontend with
## the pinned npm toolchain; tests/studio/test_assets.py fails until the result is committed. `make run` needs no Node.
assets:
	@command -v npm >/dev/null || { echo "npm (Node 20 or newer) is needed for make assets, never for make run"; exit 1; }
	npm ci --prefix apps/studio/frontend --no-audit --no-fund --loglevel=error
	cd apps/studio/frontend && node build.mjs

lint: $(VENV)/.dev-installed
	$(PY) -m ruff check --fix .
	$(PY) -m ruff format .

## Regenerate the committed OpenAPI document after changing an endpoint.
openapi: $(VENV)/.dev-installed
	DATABASE_URL=sqlite:///:memory: $(PY) manage.py spectacular --format openapi-json --file docs/openapi.json

## The MCP tools/list snapshot (docs/mcp-tools.json) and the tool reference of docs/mcp.md, compared by tests/mcp.
mcp-tools: $(VENV)/.dev-installed
	DATABASE_URL=sqlite:///:memory: $(PY) manage.py mcp_tools > docs/mcp-tools.json
	DATABASE_URL=sqlite:///:memory: $(PY) manage.py mcp_tools --doc docs/mcp.md

## Re-pin every installed package after changing requirements/*.txt.
constraints: $(VENV)/.dev-installed
	( echo "# Every installed package's version, direct and transitive, so a fresh install matches what CI tested."; \
	  echo "# Regenerate with: make constraints"; \
	  $(PY) -m pip freeze --exclude-editable | grep -v -i -E '^(pip|setuptools)==' ) > requirements/constraints.txt

clean:
	rm -rf $(VENV) var/static tests/typescript/node_modules apps/studio/frontend/node_modules
