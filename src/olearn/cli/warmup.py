"""``olearn warmup``: compile every loop now, so later runs load it from the disk cache."""


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "warmup",
        help="compile all compiled loops into the cache",
        description="Compile every loop of olearn once, group by group (a minute or two the "
        "first time; seconds when they are already cached). Later runs load the compiled "
        "code from the disk cache instead of compiling on first use.",
    )
    parser.add_argument("--quiet", action="store_true", help="print only errors")
    parser.set_defaults(run=run)


def run(args) -> int:
    import sys

    import olearn

    seconds = olearn.warmup(progress=not args.quiet)
    if not args.quiet:
        print(f"olearn: compiled loops are cached ({seconds:.1f} s)", file=sys.stderr)
    return 0
