"""Every figure the experiments write, rendered at reduced sizes and measured in pixels: the
PNG's resolution and size, text readable at the width a page shows it, drawn content in every
panel, titles inside the figure, legends off the data, and GIFs whose layout and class colours
hold from frame to frame."""

import importlib

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from PIL import Image  # noqa: E402

# the module (``olearn.plotting.style`` as an attribute is the context manager of that name)
figure_style = importlib.import_module("olearn.plotting.style")

#: small versions of every experiment (seconds in all)
SMALL = {
    "table1": {
        "tasks": ("digits-3v5", "arow-synthetic"),
        "synthetic_size": 300,
        "noise_levels": (0.0, 0.3),
        "n_permutations": 1,
    },
    "fig2": {"n_runs": 2, "n_train": 300, "n_test": 300, "n_checkpoints": 4, "mnist_noise": ()},
    "iris-scw": {"n_draws": 300, "n_snapshots": 5, "n_frames": 4},
    "bounds": {"n": 200, "n_checkpoints": 4},
    "libol": {
        "tasks": ("breast-cancer",),
        "algorithms": ("perceptron", "pa1", "arow"),
        "n_permutations": 3,
        "n_checkpoints": 3,
    },
}
PNGS = [
    "table1_ranks",
    "fig2_synthetic",
    "iris_separable_boundaries",
    "iris_nonseparable_boundaries",
    "iris_nonseparable_arow_weights",
    "bounds",
    "libol_breast-cancer",
]
GIFS = [f"iris_nonseparable_{a}_animation" for a in ("cw", "scw-i", "scw-ii", "arow")]
#: smallest text height, in pixels, once the page has scaled the image to its column
MIN_TEXT_PX = 9.0


def _interior(rgb, bbox, height, margin=4):
    """Pixels strictly inside a display-space bbox (origin bottom left) of an image."""
    x0, x1 = int(bbox.x0) + margin, int(bbox.x1) - margin
    y0, y1 = int(height - bbox.y1) + margin, int(height - bbox.y0) - margin
    return rgb[max(y0, 0) : y1, max(x0, 0) : x1]


def _drawn(pixels) -> float:
    """Fraction of pixels that are data ink: coloured or dark (not the white background, not
    the light grey of the grid)."""
    p = pixels.astype(int)
    spread = p.max(axis=2) - p.min(axis=2)
    return float(np.mean((spread > 60) | (p.max(axis=2) < 150)))


def _measure(fig) -> dict:
    """Draw ``fig`` at the PNG resolution and measure what a reader would see."""
    from matplotlib.axis import Axis
    from matplotlib.text import Text

    fig.set_dpi(figure_style.DPI)
    fig.canvas.draw()
    rgb = np.asarray(fig.canvas.buffer_rgba())[..., :3]
    height, width = rgb.shape[:2]
    renderer = fig.canvas.get_renderer()
    scale = min(1.0, figure_style.DISPLAY_WIDTH / width)
    texts = [
        t
        for t in fig.findobj(Text)
        if t.get_visible() and t.get_text().strip() and t.get_figure() is not None
    ]
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.axison]
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    # what must be whole: titles, axis labels, legends, and each axis with its drawn ticks
    whole = [fig._suptitle] if fig._suptitle is not None else []
    for ax in panels:
        whole += [ax.title, ax.xaxis.label, ax.yaxis.label, ax.xaxis, ax.yaxis]
    whole += legends
    outside = []
    for artist in whole:
        if isinstance(artist, Axis):
            box = artist.get_tightbbox(renderer)
        else:
            box = artist.get_window_extent(renderer)
        if box is None or box.width == 0:
            continue
        if box.x0 < -1 or box.y0 < -1 or box.x1 > width + 1 or box.y1 > height + 1:
            outside.append(getattr(artist, "get_text", lambda a=artist: str(a))())
    overlaps = [
        (legend.get_window_extent(renderer).overlaps(ax.get_window_extent(renderer)))
        for legend in legends
        for ax in panels
    ]
    titles = [ax.title for ax in panels if ax.get_title()]
    if fig._suptitle is not None:
        titles.append(fig._suptitle)
    boxes = [t.get_window_extent(renderer) for t in titles]
    title_clashes = sum(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
    return {
        "width": width,
        "min_text_px": min(t.get_fontsize() for t in texts) * figure_style.DPI / 72 * scale,
        "outside": outside,
        "ink": [_drawn(_interior(rgb, ax.get_window_extent(renderer), height)) for ax in panels],
        "legends": len(legends),
        "legend_on_data": any(overlaps),
        "title_clashes": title_clashes,
        "has_title": bool(titles),
        "labelled": all(ax.get_xlabel() and ax.get_ylabel() for ax in panels),
    }


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """Run every experiment small, measure each figure as it is saved; {name: (measures,
    path)}."""
    import olearn.plotting
    from olearn.experiments import run

    out = tmp_path_factory.mktemp("figures")
    measures = {}
    real_save = figure_style.save

    def measuring_save(fig, path, **kwargs):
        name = str(path).rsplit("/", 1)[-1].rsplit(".", 1)[0]
        if name in PNGS:
            measures[name] = _measure(fig)
        return real_save(fig, path, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(olearn.plotting, "save", measuring_save)
        paths = {}
        for name, small in SMALL.items():
            if name == "iris-scw":  # one weights figure of eight is enough
                result, _ = run(name, **small)
                weights = [("nonseparable", "AROW")]
                paths.update(result.figures(str(out), weights=weights))
            else:
                paths.update(run(name, str(out), **small)[1])
    return {name: (measures.get(name), path) for name, path in paths.items()}


def test_every_figure_is_written(rendered):
    assert set(PNGS + GIFS) <= set(rendered)
    for name, (_, path) in rendered.items():
        assert path.endswith(".gif" if name in GIFS else ".png")


@pytest.mark.parametrize("name", PNGS)
def test_png_resolution_and_readable_size(rendered, name):
    measure, path = rendered[name]
    image = Image.open(path)
    assert image.info["dpi"][0] >= 149.5  # 150 dpi, stored in pixels per metre
    assert image.width == measure["width"]
    assert image.width <= figure_style.MAX_WIDTH_IN * figure_style.DPI + 1
    # at the width a Markdown page shows it, the smallest text is still ≥ 9 px tall
    assert measure["min_text_px"] >= MIN_TEXT_PX, measure["min_text_px"]
    rgb = np.asarray(image.convert("RGB"))
    assert _drawn(rgb) > 0.01  # not a blank canvas


@pytest.mark.parametrize("name", PNGS)
def test_every_panel_has_drawn_content(rendered, name):
    measure, _ = rendered[name]
    assert measure["ink"], "no panels"
    # an empty panel (axes, ticks and grid only) has no data ink at all
    assert min(measure["ink"]) > 0.002, measure["ink"]


@pytest.mark.parametrize("name", PNGS)
def test_titles_inside_legends_off_the_data(rendered, name):
    measure, _ = rendered[name]
    assert measure["outside"] == [], f"clipped text: {measure['outside']}"
    assert measure["has_title"] and measure["title_clashes"] == 0
    assert measure["labelled"]
    assert measure["legends"] >= 1 and not measure["legend_on_data"]


def _frames(path):
    gif = Image.open(path)
    frames = []
    for k in range(gif.n_frames):
        gif.seek(k)
        frames.append(np.asarray(gif.convert("RGB")).astype(int))
    return frames


@pytest.mark.parametrize("name", GIFS)
def test_gif_frames_keep_layout_and_class_colours(rendered, name):
    _, path = rendered[name]
    frames = _frames(path)
    assert len(frames) == SMALL["iris-scw"]["n_frames"]
    height, width = frames[0].shape[:2]
    assert width >= 500 and height >= 400  # 10-point text is ≥ 13 px tall at this size
    # the legend (bottom band) and the axis labels do not move between frames
    bottom = slice(int(height * 0.8), height)
    assert all(np.array_equal(f[bottom], frames[0][bottom]) for f in frames)
    # each class keeps a colour close to its own in every frame (never turned grey)
    for f in frames:
        for hex_color in figure_style.CLASS_COLORS[:2]:
            target = np.array([int(hex_color[i : i + 2], 16) for i in (1, 3, 5)])
            near = np.abs(f - target).sum(axis=2) < 90
            assert near.sum() > 200, (hex_color, near.sum())
