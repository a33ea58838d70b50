"""A one-line notice before olearn compiles a group of loops for the first time.

Numba compiles a loop at its first call for each kind of input and stores the machine code in a
disk cache; later processes load it in milliseconds instead of compiling for seconds to a
minute. Numba broadcasts its ``"numba:compile"`` event only for a real compilation (after a
cache miss), so listening to it costs nothing once the cache is warm: no event, no work.

The notice is logged at INFO level on the ``olearn.compile`` logger; when the program has not
configured logging it is written to standard error. To silence it, set the environment variable
``OLEARN_COMPILE_NOTICE=0`` or raise that logger's level
(``logging.getLogger("olearn.compile").setLevel(logging.WARNING)``); ``olearn train --quiet``
does the latter.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import time

logger = logging.getLogger("olearn.compile")
if logger.level == logging.NOTSET:  # shown unless the program raises the level
    logger.setLevel(logging.INFO)

#: module prefix of the compiled functions -> what the user is told is compiling
GROUPS = (
    ("olearn.engine", "the linear models' loops"),
    ("olearn.rules", "the linear models' loops"),
    ("olearn.representations", "the linear models' loops"),
    ("olearn.tasks", "the linear models' loops"),
    ("olearn.kernels", "the kernel learners' loops"),
    ("olearn.estimators.kernel", "the kernel learners' loops"),
    ("olearn.structured", "the sequence tagger's loops"),
    ("olearn.io", "the data readers"),
    ("olearn.evaluation", "the evaluation loops"),
)


def group_of(module: str) -> str | None:
    """What a compiled function of ``module`` belongs to, or None if not olearn's."""
    for prefix, group in GROUPS:
        if module == prefix or module.startswith(prefix + "."):
            return group
    return "olearn's compiled loops" if module.startswith("olearn.") else None


def enabled() -> bool:
    return os.environ.get("OLEARN_COMPILE_NOTICE", "1") != "0" and logger.isEnabledFor(logging.INFO)


def announce(text: str) -> None:
    """Log ``text`` at INFO, or write it to stderr when logging is not configured."""
    if logger.hasHandlers():
        logger.info(text)
    else:
        print(f"olearn: {text}", file=sys.stderr, flush=True)


class _State:
    """Announces the first top-level compilation of each group in this process."""

    def __init__(self):
        self.depth = 0  # numba compiles callees inside their caller's compilation
        self.compiled = 0  # top-level compilations of olearn's functions so far
        self.muted = 0  # inside ``muted()``: count, do not announce
        self.announced: set[str] = set()
        self.started = 0.0
        self.group: str | None = None

    def on_start(self, event) -> None:
        self.depth += 1
        if self.depth != 1:
            return
        dispatcher = event.data.get("dispatcher")
        module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
        self.group = group_of(module)
        self.started = time.perf_counter()
        if self.group is None:
            return
        self.compiled += 1
        if self.muted or self.group in self.announced or not enabled():
            return
        self.announced.add(self.group)
        announce(
            f"compiling {self.group} (first use of this input type; cached on disk for "
            "later runs; OLEARN_COMPILE_NOTICE=0 hides this notice)"
        )

    def on_end(self, event) -> None:
        self.depth -= 1
        if self.depth == 0 and self.group is not None:
            logger.debug("compiled %s in %.1f s", self.group, time.perf_counter() - self.started)


state = _State()


@contextlib.contextmanager
def muted():
    """No notices inside (``olearn warmup`` reports its own progress); still counted."""
    state.muted += 1
    try:
        yield
    finally:
        state.muted -= 1


_installed = False


def install() -> None:
    """Listen to numba's compile events (once per process; called by ``olearn._compile``)."""
    global _installed
    if _installed:
        return
    from numba.core import event

    class Listener(event.Listener):
        def on_start(self, ev):
            state.on_start(ev)

        def on_end(self, ev):
            state.on_end(ev)

    event.register("numba:compile", Listener())
    _installed = True
