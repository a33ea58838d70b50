"""``olearn experiment NAME|all --output DIR``: reproduce the papers' experiments."""

from __future__ import annotations

from olearn.cli import DeprecatedAlias

NAMES = ("table1", "fig2", "iris-scw", "bounds", "libol")
#: the folder written without -o (in the working directory)
DEFAULT_OUTPUT = "experiments-out"


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "experiment",
        help="reproduce the papers' experiments (figures and a Markdown report)",
        description="Reproduce an experiment of the source documents, or all of them: "
        + ", ".join(NAMES)
        + ". Writes figures (PNG, GIF) and, for 'all', report.md to --output.",
    )
    parser.add_argument(
        "name", metavar="NAME", choices=(*NAMES, "all"), help="|".join(NAMES) + "|all"
    )
    parser.add_argument(
        "-o",
        "--output",
        default=DEFAULT_OUTPUT,
        metavar="DIR",
        help=f"where to write (default {DEFAULT_OUTPUT}, made if missing)",
    )
    parser.add_argument("--out", dest="output", action=DeprecatedAlias, new="--output")
    parser.add_argument(
        "--quick", action="store_true", help="reduced sizes (seconds; as in the test suite)"
    )
    parser.add_argument(
        "--dpi",
        type=int,
        default=150,
        help="resolution of the PNG figures (default 150; the GIFs at two thirds of it)",
    )
    parser.set_defaults(run=run)


def run(args) -> int:
    from olearn.cli import UsageError

    if not 20 <= args.dpi <= 600:
        raise UsageError(f"--dpi must be in [20, 600], got {args.dpi}")
    from olearn.experiments import run as run_one
    from olearn.experiments import run_all

    if args.name == "all":
        path = run_all(args.output, quick=args.quick, dpi=args.dpi)
        print(f"report: {path}")
        return 0
    result, paths = run_one(args.name, args.output, quick=args.quick, dpi=args.dpi)
    print(result.to_markdown())
    if hasattr(result, "agreement"):
        print()
        print("\n".join(f"- {note}" for note in result.agreement()))
    for path in paths.values():
        print(f"figure: {path}")
    return 0
