# teamchat: every target sets up what it needs, starting from a bare Python 3.11.
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# checkov in a virtualenv of its own (requirements-checkov.txt says why).
CHECKOV_VENV := build/checkov-venv
CHECKOV_STAMP := $(CHECKOV_VENV)/.installed
PORT ?= 8000
export AWS_DEFAULT_REGION ?= us-east-1
# The docs page's viewer, vendored from the npm registry (checked against its integrity).
SWAGGER_UI_VERSION := 5.35.0
SWAGGER_UI_INTEGRITY := sha512-U06rpMtW9V3XPGOBeamTUSr0Z09jMX4IJuANpE/EZbAhw0G8CgwrzU4YmXkn/h0wCDNsXdGarTNNHC3sU8yVUQ==
DOCS_STATIC := chalicelib/apidocs/static
DOCS_STAMP := $(DOCS_STATIC)/.swagger-ui-$(SWAGGER_UI_VERSION)
CHROMIUM ?= chromium
FUZZ_SECONDS ?= 600

.PHONY: term-client js-client run test test-fast test-large-org reset package lint bench load clean openapi feature-levels docs-assets browser fuzz try-terminal web node bench-web web-screenshots web-test web-lint web-emoji

$(STAMP): requirements.txt requirements-dev.txt
	@echo "==> creating $(VENV) and installing pinned requirements"
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install -q --disable-pip-version-check -r requirements-dev.txt 2>&1 | { grep -v "^WARNING: Location" || true; }
	@touch $(STAMP)

$(CHECKOV_STAMP): requirements-checkov.txt
	@echo "==> creating $(CHECKOV_VENV) for checkov"
	@test -x $(CHECKOV_VENV)/bin/python || $(PYTHON) -m venv $(CHECKOV_VENV)
	@$(CHECKOV_VENV)/bin/python -m pip install -q --disable-pip-version-check -r requirements-checkov.txt 2>&1 | { grep -v "^WARNING: Location" || true; }
	@touch $(CHECKOV_STAMP)

## docs-assets: the Swagger UI files GET /api/docs loads, from the npm registry
docs-assets: $(DOCS_STAMP)

$(DOCS_STAMP):
	@echo "==> vendoring swagger-ui-dist $(SWAGGER_UI_VERSION) from the npm registry"
	@rm -rf build/swagger-ui $(DOCS_STATIC) && mkdir -p build/swagger-ui $(DOCS_STATIC)
	@cd build/swagger-ui && npm pack --silent swagger-ui-dist@$(SWAGGER_UI_VERSION) >/dev/null 2>&1
	@test "$$($(PYTHON) -c 'import base64, hashlib, sys; print("sha512-" + base64.b64encode(hashlib.sha512(open(sys.argv[1], "rb").read()).digest()).decode())' build/swagger-ui/swagger-ui-dist-$(SWAGGER_UI_VERSION).tgz)" = "$(SWAGGER_UI_INTEGRITY)" \
		|| { echo "swagger-ui-dist $(SWAGGER_UI_VERSION): integrity mismatch" >&2; exit 1; }
	@tar -xzf build/swagger-ui/swagger-ui-dist-$(SWAGGER_UI_VERSION).tgz -C build/swagger-ui \
		package/swagger-ui-bundle.js package/swagger-ui.css package/LICENSE
	@cp build/swagger-ui/package/swagger-ui-bundle.js build/swagger-ui/package/swagger-ui.css \
		build/swagger-ui/package/LICENSE $(DOCS_STATIC)/
	@touch $(DOCS_STAMP)

## browser: Debian's Chromium, for the docs page test (installed with apt if missing)
browser:
	@command -v $(CHROMIUM) >/dev/null || { \
		echo "==> installing Debian's chromium for the docs page test"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
			$$SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null; }

## node: Node.js and npm for the web client's build (Debian's packages if missing)
node:
	@command -v npm >/dev/null || { \
		echo "==> installing Debian's nodejs and npm for the web client's build"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
			$$SUDO apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null; }

## web: the web client (web/), built by Vite into web/dist with the pinned packages of
## web/package-lock.json; the local stack serves it at /
WEB_SOURCES := $(shell find web/src -type f 2>/dev/null) web/index.html web/vite.config.js web/package.json
WEB_MODULES := web/node_modules/.installed
WEB_STAMP := web/dist/.built
web: $(WEB_STAMP)

$(WEB_MODULES): web/package-lock.json | node
	@echo "==> installing the web client's pinned packages (npm ci)"
	@cd web && npm ci --no-audit --no-fund --loglevel=error
	@touch $(WEB_MODULES)

$(WEB_STAMP): $(WEB_MODULES) $(WEB_SOURCES)
	@echo "==> building the web client (vite build)"
	@cd web && npx --no-install vite build --logLevel warn
	@touch $(WEB_STAMP)

## web-test: the web client's own logic (narrows, events, unread, reading, autocomplete),
## unit-tested with node's test runner (web/test/)
web-test: $(WEB_MODULES)
	@cd web && node --test --test-reporter=dot test/*.test.js

## web-lint: ESLint over the web client (web/eslint.config.js)
web-lint: $(WEB_MODULES)
	@cd web && npx --no-install eslint --max-warnings 0 .

## web-emoji: write web/src/emoji-data.js from the server's emoji table (commit the result)
web-emoji: $(STAMP)
	@$(BIN)/python -m infra.write_web_emoji

## openapi: write the OpenAPI document generated from the views (commit the result)
openapi: $(STAMP)
	@$(BIN)/python -m infra.write_openapi

## feature-levels: write docs/feature-levels.md from chalicelib/core/feature_levels.py
feature-levels: $(STAMP)
	@$(BIN)/python -m infra.write_feature_levels

## fuzz: a long property-based run against the document (FUZZ_SECONDS, default 600)
fuzz: $(STAMP)
	@FUZZ_SECONDS=$(FUZZ_SECONDS) $(BIN)/python -m bench.fuzz

## run: serve the API on http://127.0.0.1:$(PORT) over an embedded moto backend
run: $(STAMP) $(DOCS_STAMP) $(WEB_STAMP)
	@PORT=$(PORT) $(BIN)/python -m infra.local_stack

# One pytest worker per CPU (pytest-xdist), whole files to a worker: a file's fixtures
# (a realm, a local stack) are made once, as in one process.
PYTEST_WORKERS ?= $(shell nproc 2>/dev/null || echo 2)
PYTEST := $(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) --dist loadfile

## test: the whole suite (unit, functional, e2e) plus the packaging check
test: $(STAMP) $(DOCS_STAMP) $(WEB_STAMP) browser term-client js-client package lint web-test
	@$(PYTEST) tests

## test-large-org: only the terminal client for an ordinary member of a generated
## 10,000-person organization (bench/org_snapshot.py), with its timings; `test` runs it too
test-large-org: $(STAMP) term-client
	@$(BIN)/python -m pytest -q -s tests/e2e/test_terminal_large_org.py

## test-fast: unit and functional tiers only
test-fast: $(STAMP) $(DOCS_STAMP) package
	@$(PYTEST) tests/unit tests/functional

## reset: forget the local stack's saved state (.local-state links to it: see
## infra/local/environment.py, prepare_state_dir)
reset:
	rm -rf "$$(readlink -f .local-state)" .local-state

## package: CloudFormation for AWS via `chalice package`, checked by cfn-lint
package: $(STAMP) $(DOCS_STAMP)
	@rm -rf build/package
	@$(BIN)/chalice package --stage prod --pkg-format cloudformation \
		--merge-template infra/template.json build/package >/dev/null
	@$(BIN)/python -m infra.compact_template build/package/sam.json
	@$(BIN)/cfn-lint build/package/sam.json
	@echo "==> build/package/sam.json passes cfn-lint"

## lint: ruff over everything (ruff.toml), mypy strict over app.py and chalicelib/ (mypy.ini),
## bandit over the code the functions run (app.py, chalicelib/: a finding is fixed or
## skipped on its line with `# nosec <id> # <reason>`), and checkov over the packaged
## template: any finding neither fixed nor skipped on its resource with a written reason fails;
## ESLint over the web client (web-lint)
lint: $(STAMP) $(CHECKOV_STAMP) package web-lint
	@$(BIN)/ruff check app.py chalicelib infra tests bench
	@$(BIN)/python -m mypy
	@$(BIN)/bandit -q -r app.py chalicelib
	@$(BIN)/python -m infra.checkov_gate --checkov $(CHECKOV_VENV)/bin/checkov build/package/sam.json

bench: $(STAMP)
	@$(BIN)/python -m bench.request_counts
	@$(BIN)/python -m bench.events
	@$(BIN)/python -m bench.message_moves
	@$(BIN)/python -m bench.webhooks
	@$(BIN)/python -m bench.user_state
	@$(BIN)/python -m bench.channel_admin
	@$(BIN)/python -m bench.invites
	@$(BIN)/python -m bench.user_access
	@$(BIN)/python -m bench.reactions
	@$(BIN)/python -m bench.message_deletion
	@$(BIN)/python -m bench.presence
	@$(BIN)/python -m bench.register
	@$(BIN)/python -m bench.read_state
	@$(BIN)/python -m bench.persistence
	@$(BIN)/python -m bench.search 10000

## load: the paced load (20 senders at 20 messages/s, 50 waiting clients, 60 s) on its own
## local stack, with the floor measured in the same run (docs/load-runs.md)
load: $(STAMP)
	@$(BIN)/python -m bench.load

## term-client: the official terminal client (zulip-term) in build/term-venv, for its tests
# zulip-term 0.7.0 declares Python < 3.11 but runs on 3.11; it gets a venv of its own.
TERM_VENV := build/term-venv
TERM_STAMP := $(TERM_VENV)/.installed
term-client: $(TERM_STAMP)

$(TERM_STAMP): requirements-terminal.txt
	@echo "==> installing the terminal client (zulip-term) into $(TERM_VENV)"
	@test -x $(TERM_VENV)/bin/python || $(PYTHON) -m venv $(TERM_VENV)
	@$(TERM_VENV)/bin/python -m pip install -q --disable-pip-version-check \
	  --ignore-requires-python -r requirements-terminal.txt 2>&1 | \
	  { grep -v "^WARNING: Location" || true; }
	@touch $(TERM_STAMP)

## js-client: the official JavaScript library (zulip-js), pinned in tests/clients/js, for
## its test in make test
JS_CLIENT_STAMP := tests/clients/js/node_modules/.installed
js-client: $(JS_CLIENT_STAMP)

$(JS_CLIENT_STAMP): tests/clients/js/package-lock.json | node
	@echo "==> installing the JavaScript library (zulip-js) into tests/clients/js"
	@cd tests/clients/js && npm ci --no-audit --no-fund --loglevel=error
	@touch $(JS_CLIENT_STAMP)

## try-terminal: the official terminal client searches a fresh local stack
try-terminal: $(STAMP) $(TERM_STAMP)
	@$(TERM_VENV)/bin/python tests/clients/terminal_search.py

## web-screenshots: the pictures of docs/web-client.md, taken by the browser tests (with
## Debian's emoji font, which a person's machine has and a bare server lacks)
web-screenshots: $(STAMP) $(WEB_STAMP) browser
	@test -e /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf || { \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get install -y -qq --no-install-recommends fonts-noto-color-emoji >/dev/null; }
	@WEB_SCREENSHOTS_DIR=docs/images $(PYTEST) tests/browser/test_accessibility.py \
		tests/browser/test_chat_live.py tests/browser/test_reading.py tests/browser/test_phone.py

## bench-web: the web client in Chromium: first view with 1,000 messages, scrolling 10,000
bench-web: $(STAMP) $(WEB_STAMP) browser
	@$(BIN)/python -m bench.web_client

clean:
	rm -rf $(VENV) build .pytest_cache $(DOCS_STATIC) web/node_modules web/dist
