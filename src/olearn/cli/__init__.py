"""The ``olearn`` command.

Each subcommand lives in its own module ``olearn.cli.<name>`` exposing::

    def register(subparsers) -> None   # add its parser; set_defaults(run=<callable>)
    # the callable takes the parsed args and returns the exit code

Modules are imported at start-up, so they must import nothing heavy at module level
(scikit-learn, numba, matplotlib are imported inside ``run``): ``olearn --help`` stays fast.
A ``register`` may look at :data:`ARGV` (the arguments being parsed) to add options that
depend on them (``olearn train ALGO`` adds ALGO's hyper-parameters).

The ``olearn`` process (:func:`run`, also ``python -m olearn``) is tuned for start-up: one BLAS
thread (the loops are Numba's own; an idle OpenBLAS pool only burns CPU), no ``scipy.linalg``
import for Numba's BLAS check, and the process ends with ``os._exit`` once :func:`main` has
returned and the standard streams are flushed, skipping an interpreter teardown that takes
longer than a small job. So a command must close the files it writes before returning
(``with`` blocks), which :func:`main`'s callers in the test suite rely on too.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings

# Subcommand modules, in the order ``--help`` lists them; missing ones are skipped.
SUBCOMMANDS = (
    "train",
    "predict",
    "evaluate",
    "info",
    "list",
    "warmup",
    "experiment",
    "tag",
    "serve",
)


#: The command-line arguments being parsed (without the program name).
ARGV: list[str] = []


class UsageError(Exception):
    """A usage or input error: exit code 2 and a one-line message."""


class DeprecatedAlias(argparse.Action):
    """An old spelling of an option, still accepted but hidden from ``--help``; using it
    prints a warning naming the current spelling. A flag is ``nargs=0`` with a ``const``::

        parser.add_argument("-q", dest="quiet", action=DeprecatedAlias, nargs=0, const=True,
                            new="--quiet")
    """

    def __init__(self, option_strings, dest, *, new: str, nargs=None, const=None, **kwargs):
        kwargs.update(default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        super().__init__(option_strings, dest, nargs=nargs, const=const, **kwargs)
        self.new = new

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"olearn: warning: {option_string} is deprecated; use {self.new}", file=sys.stderr)
        setattr(namespace, self.dest, self.const if self.nargs == 0 else values)


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    global ARGV
    ARGV = [*(sys.argv[1:] if argv is None else argv)]
    parser = argparse.ArgumentParser(
        prog="olearn", description="Online learning from the command line."
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    parser.add_argument("--version", action="version", version=f"olearn {_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    named = _command_in(ARGV)
    for name in (named,) if named else SUBCOMMANDS:  # one command: only its module
        try:
            module = importlib.import_module(f"olearn.cli.{name}")
        except ModuleNotFoundError as error:
            if error.name == f"olearn.cli.{name}":
                continue
            raise
        module.register(subparsers)
    _accept_debug(subparsers)
    return parser


def _accept_debug(subparsers: argparse._SubParsersAction) -> None:
    """``--debug`` after every command and action too (``olearn warmup --debug`` was an
    unrecognized argument where ``olearn train ... --debug`` works): it is read from the
    raw arguments."""
    from olearn.cli._data import add_debug

    for command in subparsers.choices.values():
        if "--debug" not in command._option_string_actions:
            add_debug(command)
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):
                _accept_debug(action)


def _command_in(argv: list[str]) -> str | None:
    """The subcommand ``argv`` runs, when it names one before any other argument but
    ``--debug`` (``olearn --help`` and errors need every subcommand)."""
    tokens = [token for token in argv if token != "--debug"]
    return tokens[0] if tokens and tokens[0] in SUBCOMMANDS else None


def _version() -> str:
    from olearn import __version__

    return __version__


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
    args, extras = parser.parse_known_args(argv)
    if extras and getattr(args, "data", "") is None and not extras[0].startswith("-"):
        # options between evaluate's ALGO and DATA (`evaluate arow -k 2 data.svm`, as train
        # takes them): argparse takes optional positionals in one run, leaving DATA over
        args.data = extras.pop(0)
    if extras:
        _unrecognized(parser, args, extras)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    notices = _silence_compile_notices() if getattr(args, "quiet", False) else None
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            # every chunk's count, added up and reported once (``_report_not_learned``)
            warnings.filterwarnings("always", _NOT_LEARNED, RuntimeWarning)
            _not_learned.clear()
            try:
                return int(args.run(args) or 0)
            finally:
                _report_not_learned()
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
    except ImportError as error:  # a missing optional dependency: its install command
        if debug:
            raise
        from olearn._optional import message as one_line

        print(f"olearn: error: {one_line(error)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("olearn: interrupted", file=sys.stderr)
        return 130
    except SystemExit as stop:
        from olearn.cli._data import Terminated

        if not isinstance(stop, Terminated):
            raise
        print("olearn: terminated", file=sys.stderr)
        return int(stop.code)
    finally:
        if notices is not None:
            notices()


def _unrecognized(parser: argparse.ArgumentParser, args, extras: list[str]) -> None:
    """Arguments no option takes: the error with the command's own usage line (as argparse
    words a command's other errors; the top level's ``COMMAND ...`` line helped nobody), and,
    for ``train``, where ALGO's hyper-parameters are listed (``--C`` is PA's, not AROW's)."""
    message = f"unrecognized arguments: {' '.join(extras)}"
    algorithm = str(getattr(args, "algorithm", None) or "").lower()
    if args.command == "train" and any(extra.startswith("--") for extra in extras):
        from olearn.registry import ALGORITHMS

        if algorithm in ALGORITHMS:
            message += f" (see olearn train {algorithm} --help)"
    commands = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
    command = commands.choices.get(args.command) if commands is not None else None
    (command or parser).error(message)


#: The text of ``olearn.estimators._state.NotLearnedWarning`` (not imported here: the
#: command line starts without the estimators).
_NOT_LEARNED = r"\d+ row\(s\) were not learned"
#: The NotLearnedWarning instances of the running command.
_not_learned: list = []


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A library warning during a command, as the command's own warnings read (rows not
    learned: the first report at once, the total at the end, ``_report_not_learned``)."""
    if isinstance(getattr(message, "count", None), int) and category.__name__ == (
        "NotLearnedWarning"
    ):
        _not_learned.append(message)
        if len(_not_learned) > 1:
            return
    print(f"olearn: warning: {message}", file=sys.stderr)


def _report_not_learned() -> None:
    """The total of the rows not learned in the whole command, when more than the first
    report said (each compiled call warns with its own count)."""
    if len(_not_learned) > 1:
        total = sum(warning.count for warning in _not_learned)
        print(f"olearn: warning: in all, {total} row(s) were not learned", file=sys.stderr)
    _not_learned.clear()


def _silence_compile_notices():
    """``--quiet``: no notice before a first compilation; returns the function restoring it."""
    import logging

    logger = logging.getLogger("olearn.compile")
    level = logger.level
    logger.setLevel(logging.WARNING)
    return lambda: logger.setLevel(level)


def run() -> None:
    """The ``olearn`` program: :func:`main` in a process set up for a fast start and end."""
    for variable in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
        os.environ.setdefault(variable, "1")  # before NumPy loads its BLAS
    code = main()
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # the reader has gone: nothing more to say
        pass
    try:
        sys.stderr.flush()
    finally:
        os._exit(code)
