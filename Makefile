# Two entry points that work on a fresh machine with Python 3.11, make and git.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-min lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python examples/demo.py

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks examples
	$(BIN)/ruff format --check src tests benchmarks examples

test: lint
	$(BIN)/python -m pytest -n 2 -q

# The declared minimum versions (pyproject's ">=" pins, installed as "==") in a venv of their
# own with a numba cache of its own; a fast subset of the suite. Not part of `make test`.
# Deselected: before SciPy 1.17, scipy.linalg (imported by Numba's BLAS check on the first
# compiled call in a library process) imports scipy.sparse; same results, slower start.
MIN_VENV := .venv-min
MIN_TESTS := tests/test_install.py tests/test_rules.py tests/test_estimators_api.py \
	tests/test_io_svmlight.py tests/test_io_vw.py tests/test_model_file.py tests/test_cli.py \
	--deselect tests/test_io_svmlight.py::test_chunks_need_no_scipy

$(MIN_VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(MIN_VENV)
	$(MIN_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(PYTHON) -c "import tomllib; p = tomllib.load(open('pyproject.toml', 'rb'))['project']; \
	print('\n'.join(d.replace('>=', '==') for d in p['dependencies']))" > $(MIN_VENV)/minimums.txt
	$(MIN_VENV)/bin/python -m pip install --quiet -c $(MIN_VENV)/minimums.txt -e . \
	  -r $(MIN_VENV)/minimums.txt pytest pytest-xdist hypothesis mmh3
	touch $@

test-min: $(MIN_VENV)/.installed
	$(MIN_VENV)/bin/python -m pip list 2>/dev/null | grep -iE '^(numpy|scipy|numba|scikit-learn) '
	NUMBA_CACHE_DIR=$(MIN_VENV)/numba-cache $(MIN_VENV)/bin/python -m pytest -n 2 -q \
	  -p no:cacheprovider $(MIN_TESTS)

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) $(MIN_VENV) build *.egg-info
