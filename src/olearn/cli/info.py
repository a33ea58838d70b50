"""``olearn info MODEL``: what a model file holds, without importing its estimator."""

from __future__ import annotations

import json

from olearn.cli._data import add_debug


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "info", help="describe a saved model", description="Describe a saved model file."
    )
    parser.add_argument("model", metavar="MODEL")
    parser.add_argument("--json", action="store_true", help="the whole header as JSON")
    add_debug(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    import io

    import numpy as np

    from olearn.cli._data import format_labels
    from olearn.cli.train import _plain
    from olearn.io.model_file import _read_verified

    header, payload = _read_verified(args.model)
    if args.json:
        print(json.dumps(header, indent=2, sort_keys=True))
        return 0
    with np.load(io.BytesIO(payload), allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in header["arrays"]}
    scalars = {
        k: v
        for k, v in header["attributes"].items()
        if not isinstance(v, dict) and not k.startswith("_")
    }
    metadata = _plain(header.get("metadata")) or {}
    params = {k: _plain(v) for k, v in header["params"].items()}
    print(f"model           {args.model}")
    print(f"estimator       {header['estimator'].rsplit('.', 1)[-1]} ({header['estimator']})")
    if metadata.get("algorithm"):
        print(f"algorithm       {metadata['algorithm']} ({metadata.get('task', '?')})")
    print("parameters      " + ", ".join(f"{k}={v!r}" for k, v in sorted(params.items())))
    if "n_features_in_" in scalars:
        print(f"features        {scalars['n_features_in_']}")
    if "classes_" in arrays:
        classes = arrays["classes_"]
        print(f"classes         {' '.join(format_labels(classes))}")
    stats = arrays.get("stats_")
    if stats is not None and stats.size >= 3:
        print(f"rounds          {int(stats[0])}")
        print(f"mistakes        {int(stats[1])}")
        print(f"updates         {int(stats[2])}")
    spec = metadata.get("input")
    if spec:
        text = ", ".join(f"{k}={v}" for k, v in spec.items() if k != "format")
        print(f"input           {spec['format']}" + (f" ({text})" if text else ""))
    if metadata.get("trained_on"):
        print(f"trained on      {' '.join(metadata['trained_on'])}")
    shapes = ", ".join(
        f"{name} {tuple(a.shape)}"
        for name, a in sorted(arrays.items())
        if a.size and not name.startswith("_")
    )
    print(f"arrays          {shapes}")
    print(f"format          {header['format']} (written by olearn {header['olearn_version']})")
    return 0
