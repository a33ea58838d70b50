"""``olearn list [ALGO]``: the algorithms, their papers, tasks and hyper-parameters."""

from __future__ import annotations

from olearn.cli._data import add_debug


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "list",
        help="list algorithms, papers and parameters",
        description="List the algorithm names that every olearn command accepts, with their "
        "papers and parameters.",
    )
    parser.add_argument("algorithm", nargs="?", metavar="ALGO", help="show only this one")
    add_debug(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    from olearn.cli.algorithms import ALGORITHMS, available, lookup, parameters

    found = available()
    names = [lookup(args.algorithm).name] if args.algorithm else list(ALGORITHMS)
    shown = 0
    for name in names:
        classes = found.get(name)
        if not classes:
            if args.algorithm:
                raise ValueError(f"algorithm {name!r} is not available in this olearn")
            continue
        algorithm = ALGORITHMS[name]
        if shown:
            print()
        shown += 1
        print(f"{name}: {algorithm.title}")
        print(f"  paper: {algorithm.paper}")
        if algorithm.fixed:
            print("  sets: " + ", ".join(f"{k}={v!r}" for k, v in algorithm.fixed.items()))
        by_class: dict[type, list[str]] = {}
        for task, cls in classes.items():
            by_class.setdefault(cls, []).append(task)
        for cls, tasks in by_class.items():
            print(f"  {'/'.join(tasks)}: {cls.__name__}")
            for p in parameters(cls):
                default = algorithm.fixed.get(p.name, p.default)
                flag = p.name.replace("_", "-")
                flag = f"--[no-]{flag}" if p.is_flag else f"--{flag} {p.metavar}"
                text = f"    {flag} (default {default})"
                if p.help:
                    text += f": {p.help}"
                print(text)
    return 0
