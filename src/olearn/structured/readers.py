"""Streaming readers of tagged sentences: CoNLL-U and ``token TAB tag``.

Both yield ``(tokens, tags)`` per sentence without loading the file; ``.gz`` files are read
through gzip. Malformed lines raise ``ValueError`` naming the file and line number.
"""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterator
from pathlib import Path

#: CoNLL-U columns that can serve as tags.
CONLLU_COLUMNS = {"upos": 3, "xpos": 4, "deprel": 7}


def _open(path) -> io.TextIOBase:
    path = Path(path)
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def read_conllu(
    path, column: str = "upos", tagged: bool = True
) -> Iterator[tuple[list[str], list[str] | None]]:
    """Sentences of a CoNLL-U file as ``(forms, tags)``; ``column`` is ``upos`` (default),
    ``xpos`` or ``deprel``. Comment lines, multi-word token ranges (``1-2``) and empty nodes
    (``1.1``) are skipped. With ``tagged=False`` the tag column is not read (untagged text
    has ``_`` there) and the tags are ``None``."""
    if column not in CONLLU_COLUMNS:
        raise ValueError(f"column must be one of {sorted(CONLLU_COLUMNS)}, got {column!r}")
    col = CONLLU_COLUMNS[column]
    tokens: list[str] = []
    tags: list[str] = []
    with _open(path) as lines:
        for number, line in enumerate(lines, start=1):
            line = line.rstrip("\n").rstrip("\r")
            if not line.strip():
                if tokens:
                    yield tokens, (tags if tagged else None)
                    tokens, tags = [], []
                continue
            if line.startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) != 10:
                raise ValueError(
                    f"{path}:{number}: a CoNLL-U token line has 10 tab-separated fields, "
                    f"found {len(fields)}"
                )
            word_id = fields[0]
            if "-" in word_id or "." in word_id:
                continue
            if not word_id.isdigit():
                raise ValueError(f"{path}:{number}: bad token id {word_id!r}")
            if int(word_id) != len(tokens) + 1:
                raise ValueError(
                    f"{path}:{number}: token id {word_id} out of order "
                    f"(expected {len(tokens) + 1}; missing blank line between sentences?)"
                )
            if not fields[1]:
                raise ValueError(f"{path}:{number}: empty form")
            if tagged and (not fields[col] or fields[col] == "_"):
                raise ValueError(f"{path}:{number}: empty {column} (untagged text?)")
            tokens.append(fields[1])
            tags.append(fields[col])
    if tokens:
        yield tokens, (tags if tagged else None)


def read_tsv(path, tagged: bool = True) -> Iterator[tuple[list[str], list[str] | None]]:
    """Sentences of a ``token TAB tag`` file (one token per line, a blank line between
    sentences). With ``tagged=False`` lines hold only the token (a tag column, if present, is
    ignored) and the tags are ``None``."""
    tokens: list[str] = []
    tags: list[str] = []
    with _open(path) as lines:
        for number, line in enumerate(lines, start=1):
            line = line.rstrip("\n").rstrip("\r")
            if not line.strip():
                if tokens:
                    yield tokens, (tags if tagged else None)
                    tokens, tags = [], []
                continue
            fields = line.split("\t")
            if tagged:
                if len(fields) != 2 or not fields[0] or not fields[1]:
                    raise ValueError(f"{path}:{number}: expected 'token<TAB>tag', got {line!r}")
                tags.append(fields[1])
            elif not fields[0]:
                raise ValueError(f"{path}:{number}: empty token")
            tokens.append(fields[0])
    if tokens:
        yield tokens, (tags if tagged else None)


def write_tsv(stream, sentences, tags) -> None:
    """Write ``token TAB tag`` lines, a blank line after each sentence."""
    for tokens, labels in zip(sentences, tags, strict=True):
        for token, tag in zip(tokens, labels, strict=True):
            stream.write(f"{token}\t{tag}\n")
        stream.write("\n")
