"""``olearn warmup``: compile every loop now, so later runs load it from the disk cache."""


def register(subparsers) -> None:
    parser = subparsers.add_parser("warmup", help="compile all compiled loops into the cache")
    parser.set_defaults(run=run)


def run(args) -> int:
    import olearn
    import olearn.io

    olearn.warmup()
    olearn.io.warmup()
    print("olearn: compiled loops are cached")
    return 0
