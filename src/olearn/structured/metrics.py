"""Evaluation of tag sequences: token accuracy, sentence accuracy, BIO span F1."""

from __future__ import annotations

from collections.abc import Sequence


def _pairs(y_true: Sequence[Sequence[str]], y_pred: Sequence[Sequence[str]]):
    if len(y_true) != len(y_pred):
        raise ValueError(f"{len(y_true)} gold sentences but {len(y_pred)} predicted ones")
    for q, (gold, pred) in enumerate(zip(y_true, y_pred, strict=True)):
        if len(gold) != len(pred):
            raise ValueError(f"sentence {q}: {len(gold)} gold tags but {len(pred)} predicted")
        yield gold, pred


def token_accuracy(y_true, y_pred) -> float:
    """Fraction of tokens whose predicted tag equals the gold tag."""
    right = total = 0
    for gold, pred in _pairs(y_true, y_pred):
        right += sum(g == p for g, p in zip(gold, pred, strict=True))
        total += len(gold)
    if total == 0:
        raise ValueError("no tokens to evaluate")
    return right / total


def sentence_accuracy(y_true, y_pred) -> float:
    """Fraction of sentences tagged entirely right."""
    pairs = list(_pairs(y_true, y_pred))
    if not pairs:
        raise ValueError("no sentences to evaluate")
    return sum(list(g) == list(p) for g, p in pairs) / len(pairs)


def bio_spans(tags: Sequence[str]) -> set[tuple[int, int, str]]:
    """Spans ``(start, end_exclusive, type)`` of a BIO (or IOB2) tag sequence.

    ``B-X`` opens a span; ``I-X`` continues a span of type X and opens one after ``O`` or a
    span of another type (the conlleval convention); ``O`` (or any tag without a ``B-``/``I-``
    prefix) closes it.
    """
    spans = set()
    start, kind = None, None
    for i, tag in enumerate(list(tags) + ["O"]):
        prefix, _, label = tag.partition("-")
        if prefix not in ("B", "I") or not label:
            prefix, label = "O", None
        if start is not None and (prefix != "I" or label != kind):
            spans.add((start, i, kind))
            start, kind = None, None
        if prefix == "B" or (prefix == "I" and start is None):
            start, kind = i, label
    return spans


def is_bio(y: Sequence[Sequence[str]]) -> bool:
    """Whether every tag is ``O`` or starts with ``B-`` / ``I-`` (and some are not ``O``)."""
    tags = {t for sentence in y for t in sentence}
    return bool(tags - {"O"}) and all(t == "O" or t[:2] in ("B-", "I-") for t in tags)


def span_f1(y_true, y_pred) -> tuple[float, float, float]:
    """Precision, recall and F1 of exactly matching BIO spans (0 when undefined)."""
    tp = n_pred = n_gold = 0
    for gold, pred in _pairs(y_true, y_pred):
        g, p = bio_spans(gold), bio_spans(pred)
        tp += len(g & p)
        n_gold += len(g)
        n_pred += len(p)
    precision = tp / n_pred if n_pred else 0.0
    recall = tp / n_gold if n_gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1
