"""The ``olearn`` command.

Each subcommand lives in its own module ``olearn.cli.<name>`` exposing::

    def register(subparsers) -> None   # add its parser; set_defaults(run=<callable>)
    # the callable takes the parsed args and returns the exit code

Modules are imported at start-up, so they must import nothing heavy at module level
(scikit-learn, numba, matplotlib are imported inside ``run``): ``olearn --help`` stays fast.
A ``register`` may look at :data:`ARGV` (the arguments being parsed) to add options that
depend on them (``olearn train ALGO`` adds ALGO's hyper-parameters).
"""

from __future__ import annotations

import argparse
import importlib
import sys

# Subcommand modules, in the order ``--help`` lists them; missing ones are skipped.
SUBCOMMANDS = ("train", "predict", "evaluate", "info", "list", "warmup", "experiment", "tag")


#: The command-line arguments being parsed (without the program name).
ARGV: list[str] = []


class UsageError(Exception):
    """A usage or input error: exit code 2 and a one-line message."""


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    global ARGV
    ARGV = [*(sys.argv[1:] if argv is None else argv)]
    parser = argparse.ArgumentParser(
        prog="olearn", description="Online learning from the command line."
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        try:
            module = importlib.import_module(f"olearn.cli.{name}")
        except ModuleNotFoundError as error:
            if error.name == f"olearn.cli.{name}":
                continue
            raise
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = [*(sys.argv[1:] if argv is None else argv)]  # (the `list` subcommand shadows list)
    debug = "--debug" in argv
    try:
        parser = build_parser(argv)
    except (UsageError, ValueError) as error:  # e.g. an unknown algorithm name
        if debug:
            raise
        print(f"olearn: error: {error}", file=sys.stderr)
        return 2
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        return int(args.run(args) or 0)
    except BrokenPipeError:  # e.g. `olearn predict ... | head`: the reader has gone
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (UsageError, ValueError, OSError, EOFError) as error:
        if debug:
            raise
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        if isinstance(error, OSError) and error.filename and error.strerror:
            message = f"{error.filename}: {error.strerror}"
        print(f"olearn: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("olearn: interrupted", file=sys.stderr)
        return 130
