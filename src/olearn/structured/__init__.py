"""Structured output: sequence labelling with a first-order Markov chain (seed 003 §9–10).

``Φ(x, y)`` sums emission features (hashed token features × label) and label transition
features (start, label → label, end), so ``argmax_y w·Φ(x, y)`` is Viterbi and the k best
outputs come from k-best Viterbi. Learning: structured Perceptron (Collins 2002, averaged),
structured PA / PA-I / PA-II with prediction-based or max-loss updates (Crammer et al. 2006,
§8–9), k-best MIRA (McDonald, Crammer, Pereira 2005, Hildreth's method) and diagonal AROW.

Modules: ``decode`` (compiled Viterbi, k-best Viterbi, emission scores), ``train`` (compiled
feature differences, Hildreth's solver and the training pass), ``features`` (feature
functions and hashing), ``readers`` (CoNLL-U and ``token TAB tag``), ``metrics``
(token / sentence accuracy, BIO span F1) and ``tagger`` (:class:`SequenceTagger`).
"""

from olearn import _compile  # noqa: F401  (installs the cache policy before any @njit runs)
