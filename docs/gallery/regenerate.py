"""Refresh the committed gallery from the documented command.

    .venv/bin/olearn experiment all -o report/          # every figure and report/report.md
    .venv/bin/python docs/gallery/regenerate.py report/ # copy the gallery's files from it

Without an argument it runs ``olearn experiment all`` into a temporary folder first. The files
are copied byte for byte: the gallery shows exactly what the command writes (PNGs at 150 dpi
with a 256-colour palette, GIFs at 100 dpi with a shared 24-colour palette).
"""

import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GALLERY = [
    "table1_ranks.png",
    "fig2_synthetic.png",
    "fig2_mnist.png",
    "iris_separable_boundaries.png",
    "iris_nonseparable_boundaries.png",
    "iris_nonseparable_cw_animation.gif",
    "iris_nonseparable_scw-i_animation.gif",
    "iris_nonseparable_scw-ii_animation.gif",
    "iris_nonseparable_arow_animation.gif",
    "iris_nonseparable_cw_weights.png",
    "iris_nonseparable_arow_weights.png",
    "bounds.png",
    "libol_mnist-3v5.png",
]


def copy_gallery(report: str) -> None:
    for name in GALLERY:
        target = os.path.join(HERE, name)
        shutil.copyfile(os.path.join(report, name), target)
        print(f"{name}: {os.path.getsize(target) / 1024:.0f} KB")


def main() -> None:
    if len(sys.argv) > 1:
        copy_gallery(sys.argv[1])
        return
    from olearn.cli import main as olearn

    with tempfile.TemporaryDirectory() as report:
        if olearn(["experiment", "all", "--output", report]) != 0:
            raise SystemExit("olearn experiment all failed")
        copy_gallery(report)


if __name__ == "__main__":
    main()
