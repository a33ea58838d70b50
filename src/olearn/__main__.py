"""``python -m olearn``: the ``olearn`` command."""

from olearn.cli import run

run()
