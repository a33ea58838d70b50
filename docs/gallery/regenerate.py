"""Regenerate the committed gallery (small PNGs, one GIF) from the full-size experiments.

    PYTHONPATH=src python docs/gallery/regenerate.py

PNGs are written at 80 dpi and quantised to 64 colours to keep the gallery to a few hundred KB.
"""

import os
import shutil
import tempfile

from PIL import Image

from olearn.experiments import run

HERE = os.path.dirname(os.path.abspath(__file__))
KEEP = {
    "table1": ({}, ["table1_ranks.png"]),
    "fig2": ({}, ["fig2_synthetic.png", "fig2_mnist.png"]),
    "bounds": ({}, ["bounds.png"]),
    "libol": ({"tasks": ("mnist-3v5",)}, ["libol_mnist-3v5.png"]),
    "iris-scw": (
        {"n_frames": 16},
        [
            "iris_separable_boundaries.png",
            "iris_nonseparable_boundaries.png",
            "iris_nonseparable_arow_weights.png",
            "iris_nonseparable_arow_animation.gif",
        ],
    ),
}


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for name, (kwargs, files) in KEEP.items():
            run(name, tmp, dpi=80, **kwargs)
            for file in files:
                source, target = os.path.join(tmp, file), os.path.join(HERE, file)
                if file.endswith(".png"):
                    image = Image.open(source).convert("RGB")
                    image.quantize(colors=64, method=Image.Quantize.MEDIANCUT).save(
                        target, optimize=True
                    )
                else:
                    shutil.copy(source, target)
                print(f"{file}: {os.path.getsize(target) / 1024:.0f} KB")


if __name__ == "__main__":
    main()
