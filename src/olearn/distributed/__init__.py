"""Training on a Dask cluster: iterative parameter mixing.

>>> from dask.distributed import Client, LocalCluster           # doctest: +SKIP
>>> import olearn.distributed
>>> client = Client(LocalCluster(n_workers=4, threads_per_worker=1))   # doctest: +SKIP
>>> model = olearn.distributed.fit(AROWClassifier(), ["data/*.svm"], n_rounds=3)  # doctest: +SKIP
>>> olearn.save(model, "model.olm")                             # doctest: +SKIP

Each round every partition of the data runs one online pass from the shared state, the driver
mixes the partitions' states in partition order and broadcasts the result once per worker
(McDonald, Hall, Mann, NAACL 2010). How states mix is each representation's
``merge(states, weights, start)`` (``olearn.representations``); ``docs/distributed.md``
derives the rules. Dask is optional: ``pip install 'olearn[distributed]'``; importing this
package does not import it.
"""

from olearn._lazy import lazy_exports

#: The mixing rules ``fit`` and ``olearn train --mixing`` accept.
MIXING = ("auto", "seen", "changed", "uniform", "updates", "precision", "summed")

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    globals(),
    {name: "olearn.distributed._fit" for name in ("RoundReport", "Scan", "fit", "scan")},
    ("MIXING",),
)
