"""Type information for the lazy exports of ``olearn.plotting`` (see ``__init__.py``)."""

from olearn.plotting.boundary import (
    GaussianSnapshot as GaussianSnapshot,
)
from olearn.plotting.boundary import (
    animate_boundary as animate_boundary,
)
from olearn.plotting.boundary import (
    gaussian_snapshot as gaussian_snapshot,
)
from olearn.plotting.boundary import (
    plot_decision_boundary as plot_decision_boundary,
)
from olearn.plotting.boundary import (
    plot_weights_over_time as plot_weights_over_time,
)
from olearn.plotting.curves import (
    plot_bounds as plot_bounds,
)
from olearn.plotting.curves import (
    plot_comparison as plot_comparison,
)
from olearn.plotting.curves import (
    plot_learning_curves as plot_learning_curves,
)
from olearn.plotting.curves import (
    plot_mean_ranks as plot_mean_ranks,
)
from olearn.plotting.style import color_of as color_of
from olearn.plotting.style import save as save
from olearn.plotting.style import style as style

__all__: list[str]
