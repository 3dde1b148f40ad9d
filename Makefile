# The two commands of the README: `make up` starts everything, `make test` runs every check.
PYTHON ?= python3

.PHONY: install up test lint

install:
	$(PYTHON) -m pip install --quiet --disable-pip-version-check -e '.[dev]'

PORT ?= 8000
HOST ?= 127.0.0.1

up: install
	$(PYTHON) -m treset.cli up --port $(PORT) --host $(HOST)

lint:
	$(PYTHON) -m ruff check .
	$(PYTHON) -m mypy

test: install
	bash scripts/ensure-chromium.sh
	bash scripts/ensure-nginx.sh
	PYTHON=$(PYTHON) bash scripts/test.sh   # pytest and lint: the steps and why in the script
