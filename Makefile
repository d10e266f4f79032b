# teamchat: every target sets up what it needs, starting from a bare Python 3.11.
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PORT ?= 8000
export AWS_DEFAULT_REGION ?= us-east-1

.PHONY: run test test-fast reset package lint bench load fuzz clean

$(STAMP): requirements.txt requirements-dev.txt
	@echo "==> creating $(VENV) and installing pinned requirements"
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install -q --disable-pip-version-check -r requirements-dev.txt 2>&1 | { grep -v "^WARNING: Location" || true; }
	@touch $(STAMP)

## run: serve the API on http://127.0.0.1:$(PORT) over an embedded moto backend
run: $(STAMP)
	@PORT=$(PORT) $(BIN)/python -m infra.local_stack

## test: the whole suite (unit, functional, e2e) plus the packaging check
test: $(STAMP) package lint
	@$(BIN)/python -m pytest -q tests

## test-fast: unit and functional tiers only
test-fast: $(STAMP) package
	@$(BIN)/python -m pytest -q tests/unit tests/functional

## reset: forget the local stack's saved state
reset:
	rm -rf .local-state

## package: CloudFormation for AWS via `chalice package`, checked by cfn-lint
package: $(STAMP)
	@rm -rf build/package
	@$(BIN)/chalice package --stage prod --pkg-format cloudformation \
		--merge-template infra/template.json build/package >/dev/null
	@$(BIN)/cfn-lint build/package/sam.json
	@echo "==> build/package/sam.json passes cfn-lint"

lint: $(STAMP)
	@$(BIN)/ruff check app.py chalicelib infra tests bench

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

## load: a bounded load run on its own local stack (20 senders, 50 waiting clients, 60 s)
load: $(STAMP)
	@$(BIN)/python -m bench.load

clean:
	rm -rf $(VENV) build .pytest_cache
