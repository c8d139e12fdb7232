# Two commands for a fresh machine:
#   make run   install and run the product on its embedded defaults (SQLite, local disk, no Redis)
#   make test  install what the tests need and run them all (lint, types, SQLite and PostgreSQL)
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test install install-dev lint typecheck test-sqlite test-postgres clean frontend test-frontend cluster nginx oidc-provider tesseract vips clamav dovecot versions demo

# The Python and Node the README names (pyproject.toml's requires-python, frontend/package.json's
# engines), checked before anything installs: a wrong one is named in one line, with the one needed.
CHECK_PYTHON = $(firstword $(wildcard $(BIN)/python) $(PYTHON))
versions:
	@test -n "$(CHECK_PYTHON)" || { echo "Python 3.11 is needed; found no python3 on PATH." >&2; exit 1; }
	@$(CHECK_PYTHON) tools/check_versions.py

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.runtime: $(BIN)/python requirements.lock pyproject.toml
	$(BIN)/pip install --quiet -r requirements.lock
	$(BIN)/pip install --quiet --no-deps -e .
	touch $@

$(VENV)/.dev: $(VENV)/.runtime requirements-dev.lock
	$(BIN)/pip install --quiet -r requirements-dev.lock
	touch $@

install: $(VENV)/.runtime
install-dev: $(VENV)/.dev

run: versions install frontend
	$(BIN)/python -m bff serve

# The synthetic demo (bff/demo.py) into the database `make run` serves, while it runs or not.
demo: versions install
	$(BIN)/python -m bff demo

# Debian's nginx, for the cluster and its tests (installed without starting its service).
nginx:
	@command -v nginx >/dev/null || test -x /usr/sbin/nginx || \
		(DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nginx >/dev/null)

# Debian's tesseract-ocr and its English data: OCR of scanned PDFs and images for search
# (bff/search/extract.py). Other languages: tesseract-ocr-<lang> and BFF_OCR_LANGUAGES.
tesseract:
	@tesseract --list-langs 2>/dev/null | grep -qx eng || \
		(DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
			tesseract-ocr tesseract-ocr-eng >/dev/null)

# Debian's libvips-tools: vipsthumbnail streams the viewer's reduced copy of an image too large
# for the browser, up to a gigapixel (bff/files/previews.py, BFF_VIPSTHUMBNAIL). Optional for
# `make run`: without it Pillow reduces images up to 100 megapixels, larger ones are downloads.
vips:
	@command -v vipsthumbnail >/dev/null || \
		(DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
			libvips-tools >/dev/null)

# Debian's clamav-daemon: the malware scanner every new content passes (bff/scan/, BFF_CLAMD),
# installed without starting its service. The tests run their own clamd with a signature
# database they write (tools/testclamd.py); production runs clamd and freshclam (docs/operations.md).
clamav:
	@test -x /usr/sbin/clamd || \
		(DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
			clamav-daemon >/dev/null)

# Debian's dovecot-imapd: the real IMAP server the intake's mailbox tests start on a port of its
# own, with its own config and a throwaway maildir (tests/intake/imap_server.py). Where the
# package's install started the system service (a machine with an init system), it is stopped
# and disabled again: the tests never use it.
dovecot:
	@test -x /usr/sbin/dovecot || \
		( (DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
			dovecot-imapd >/dev/null) && \
		  { systemctl disable --now dovecot >/dev/null 2>&1 || \
		    service dovecot stop >/dev/null 2>&1 || true; } )

# Two BFF instances behind nginx on PostgreSQL, Redis and an S3-protocol server (moto):
# http://127.0.0.1:8080 until Ctrl-C or SIGTERM; an instance that dies is restarted. See tools/devcluster.py.
cluster: install-dev frontend nginx
	$(BIN)/python -m tools.devcluster

# The real OpenID Provider the single sign-on tests start (npm oidc-provider, pinned in its
# package-lock.json): tests/auth/oidc_provider.
oidc-provider: tests/auth/oidc_provider/node_modules/.package-lock.json
tests/auth/oidc_provider/node_modules/.package-lock.json: tests/auth/oidc_provider/package-lock.json
	cd tests/auth/oidc_provider && npm ci --no-audit --no-fund

# The web app: `npm ci` when package.json or its lock changed, then a production build into
# frontend/dist (served by the BFF) when anything it is built from changed (each step's stamp is
# in place once it succeeded; the build's is dated when it began, so a source edited meanwhile
# builds again): a second `make run` with nothing changed serves at once. Test files
# are left out of the build's sources (a change to one alone need not rebuild).
FRONTEND_INSTALLED := frontend/node_modules/.installed
FRONTEND_BUILT := frontend/dist/.built
FRONTEND_SOURCES := $(shell find frontend/src frontend/public ! -name '*.test.ts' ! -name '*.test.tsx') \
	frontend/index.html $(wildcard frontend/*.ts) frontend/tsconfig.json \
	frontend/scripts/precompress.mjs frontend/scripts/bundle-size.mjs

$(FRONTEND_INSTALLED): frontend/package.json frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund
	touch $@

$(FRONTEND_BUILT): $(FRONTEND_INSTALLED) $(FRONTEND_SOURCES)
	touch frontend/node_modules/.build-began
	cd frontend && npm run build
	mv frontend/node_modules/.build-began $@

frontend: $(FRONTEND_BUILT)

# The web app's test tools (Playwright and axe for the browser journeys, Lighthouse and its
# Puppeteer for frontend/scripts/lighthouse-bench.mjs), a package of their own with its own lock:
# make test installs them, make run never does. (`npm run e2e` alone installs them too.)
E2E_TOOLS := frontend/e2e/node_modules/.installed
$(E2E_TOOLS): frontend/e2e/package.json frontend/e2e/package-lock.json
	cd frontend/e2e && npm ci --no-audit --no-fund
	touch $@
e2e-tools: $(E2E_TOOLS)

# The README's picture (docs/folder-page.png), taken from the demo by frontend/scripts/readme-screenshot.mjs.
screenshot: versions install frontend e2e-tools
	cd frontend && npm run screenshot

# Web app checks: API types against the OpenAPI document, tsc, ESLint, Vitest, browser journeys
# (the cluster journey needs the dev tools too: moto for its S3-protocol server).
test-frontend: install-dev nginx tesseract vips clamav dovecot frontend oidc-provider
	$(MAKE) --no-print-directory web-checks journeys

.PHONY: web-checks journeys e2e-tools screenshot
web-checks:
	cd frontend && npm run check:api && npm run typecheck && npm run lint && npm test
journeys: e2e-tools
	cd frontend && npm run e2e

lint: install-dev
	$(BIN)/ruff check bff storage config tools tests bench docs/examples
	$(BIN)/ruff format --check bff storage config tools tests bench docs/examples

typecheck: install-dev
	$(BIN)/mypy bff storage config tools bench docs/examples

# The web app is built first: the tests require its pages to be served (no "not built" 503).
test-sqlite: install-dev nginx tesseract vips clamav dovecot frontend oidc-provider
	$(PYTEST_SQLITE)

test-postgres: install-dev nginx tesseract vips clamav dovecot frontend oidc-provider
	$(PYTEST_POSTGRES)

test-live-stock: install-dev nginx tesseract vips clamav dovecot frontend oidc-provider
	$(PYTEST_LIVE_STOCK)

PYTEST_SQLITE = $(BIN)/pytest -q --durations=10
# The cluster and fuzz tests bring their own databases: once (in SQLite's phase) is enough; and
# tests/conftest.py leaves out every test that uses no database (they ran in SQLite's phase).
PYTEST_POSTGRES = BFF_TEST_DATABASE=postgres $(BIN)/pytest -q --durations=10 --ignore=tests/cluster --ignore=tests/test_fuzz.py
# The live tests again with the live layer's patches of other libraries off (BFF_LIVE_TUNING=off:
# the stock python-engineio, python-socketio, Hypercorn and asyncio loop; bff/live/patches/), so
# an operator's way back keeps working; a test that relies on a patch is skipped, saying which
# (its live_patch mark). On PostgreSQL, after its phase: the tests that touch no database (the
# event loop's, the two processes sharing Redis's database 12) ran in SQLite's phase already.
PYTEST_LIVE_STOCK = BFF_TEST_DATABASE=postgres BFF_LIVE_TUNING=off $(BIN)/pytest -q --durations=5 tests/live

# Both database phases at once: each spends much of its time waiting (on its database, on the
# servers and command lines it starts), and they share nothing that could clash: randomly named
# databases, their own temporary folders, free ports and redis-servers, and of the local Redis
# only database 11 with random names (database 12 is used in SQLite's phase alone). Each phase's
# output is printed whole when it ends.
test-databases: install-dev nginx tesseract vips clamav dovecot frontend oidc-provider
	$(MAKE) --no-print-directory -j2 --output-sync=target pytest-sqlite pytest-postgres

.PHONY: test-databases test-all pytest-sqlite pytest-postgres postgres-then-web-checks test-live-stock
pytest-sqlite:
	$(PYTEST_SQLITE)
pytest-postgres:
	$(PYTEST_POSTGRES)
# PostgreSQL's phase ends minutes before SQLite's: the live tests with the patches off and the web
# app's checks (API types, tsc, ESLint, Vitest) follow it in the same stream, then the browser
# journeys run once both are done.
postgres-then-web-checks:
	$(PYTEST_POSTGRES)
	$(PYTEST_LIVE_STOCK)
	$(MAKE) --no-print-directory web-checks
test-all: install-dev nginx tesseract vips clamav dovecot frontend oidc-provider
	$(MAKE) --no-print-directory -j2 --output-sync=target pytest-sqlite postgres-then-web-checks
	$(MAKE) --no-print-directory journeys

test: versions lint typecheck test-all

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
