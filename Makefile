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
	$(MAKE) lint
	$(PYTHON) -m pytest -p no:benchmark -n 3 -m "not alone" --durations=25 --doctest-modules tressette agent server treset tests
	$(PYTHON) -m pytest -p no:benchmark -m alone tests
