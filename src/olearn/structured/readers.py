"""Streaming readers of tagged sentences: CoNLL-U and ``token TAB tag``.

Both yield ``(tokens, tags)`` per sentence without loading the file. Compressed input (gzip,
bzip2, xz) is recognised by its first bytes, whatever the file name (``.conllu.GZ`` too), as
by the other readers (``olearn.io.chunks.open_source``). The text is UTF-8: a byte-order mark
at the very start is skipped (editors on Windows write one); a byte that is not UTF-8, a
byte-order mark anywhere else, a malformed line or a truncated compressed file raise
``ValueError`` naming the file and line number. A last line without newline is a complete
line; lines ending in a lone carriage return (classic Mac OS) are refused, as by the other
readers. A binary stream (standard input) reads as a file.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from olearn.io.chunks import READ_ERRORS, check_line_ends, open_source, source_name

#: CoNLL-U columns that can serve as tags.
CONLLU_COLUMNS = {"upos": 3, "xpos": 4, "deprel": 7}

_BOM = "\ufeff"


#: The longest line read (bytes): a file without newlines (``/dev/zero``) stops here with an
#: error naming the line instead of growing one line until memory runs out.
DEFAULT_MAX_LINE_BYTES = 256 << 20


def _lines(path, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> Iterator[tuple[int, str]]:
    """``(line number, text without its line end)`` of a UTF-8 text file, plain or
    compressed, or of a binary stream (``sys.stdin.buffer``: its ``name`` in the errors)."""
    source, path = path, source_name(path)
    number = 0
    try:
        stream, owned = open_source(source)  # (peeks: a truncated stream may fail here)
        with stream if owned else contextlib.nullcontext(stream):  # (the caller's: open)
            # lone CRs (classic Mac OS) would make the file one line: untagged, one token
            check_line_ends(stream, path)
            while raw := stream.readline(max_line_bytes + 1):
                number += 1
                if len(raw) > max_line_bytes and not raw.endswith(b"\n"):
                    raise ValueError(
                        f"{path}:{number}: line longer than the limit ({max_line_bytes} bytes): "
                        f"{raw[:24].decode('utf-8', 'replace')!r}"
                    )
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as error:
                    bad = raw[error.start : error.start + 1].hex()
                    raise ValueError(
                        f"{path}:{number}: not UTF-8 text: byte 0x{bad} at column "
                        f"{len(raw[: error.start].decode('utf-8', 'replace')) + 1}"
                    ) from None
                if number == 1 and text.startswith(_BOM):
                    text = text[1:]
                if _BOM in text:
                    raise ValueError(
                        f"{path}:{number}: a byte-order mark (U+FEFF) inside the text "
                        "(files joined together?)"
                    )
                yield number, text.rstrip("\n").rstrip("\r")
    except READ_ERRORS as error:
        if isinstance(error, FileNotFoundError | PermissionError | IsADirectoryError):
            raise
        raise ValueError(f"{path}: cannot read after line {number}: {error}") from error


def _is_number(text: str) -> bool:
    # str.isdigit() also takes "²" or "٣", which int() then refuses
    return text.isascii() and text.isdigit()


def read_conllu(
    path,
    column: str = "upos",
    tagged: bool = True,
    *,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
) -> Iterator[tuple[list[str], list[str] | None]]:
    """Sentences of a CoNLL-U file as ``(forms, tags)``; ``column`` is ``upos`` (default),
    ``xpos`` or ``deprel``. Comment lines, multi-word token ranges (``1-2``) and empty nodes
    (``1.1``) are skipped. With ``tagged=False`` the tag column is not read (untagged text
    has ``_`` there) and the tags are ``None``. A token id other than ``N``, ``N-M`` or
    ``N.M`` (ASCII digits), a line longer than ``max_line_bytes``, or a byte that is not
    UTF-8 is a ValueError naming the file and line."""
    if column not in CONLLU_COLUMNS:
        raise ValueError(f"column must be one of {sorted(CONLLU_COLUMNS)}, got {column!r}")
    col = CONLLU_COLUMNS[column]
    tokens: list[str] = []
    tags: list[str] = []
    for number, line in _lines(path, max_line_bytes):
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
        separator = "-" if "-" in word_id else "." if "." in word_id else None
        parts = word_id.split(separator, 1) if separator else [word_id]
        if not all(_is_number(part) for part in parts):
            raise ValueError(f"{path}:{number}: bad token id {word_id!r}")
        if separator:  # a multi-word token range N-M or an empty node N.M
            continue
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


def read_tsv(
    path, tagged: bool = True, *, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
) -> Iterator[tuple[list[str], list[str] | None]]:
    """Sentences of a ``token TAB tag`` file (one token per line, a blank line between
    sentences). With ``tagged=False`` lines hold only the token (a tag column, if present, is
    ignored) and the tags are ``None``. A line of more fields is an error: CoNLL-U read as
    untagged text would tag its comments and token ids."""
    tokens: list[str] = []
    tags: list[str] = []
    for number, line in _lines(path, max_line_bytes):
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
        elif len(fields) > 2:
            raise ValueError(
                f"{path}:{number}: expected 'token' or 'token<TAB>tag', found {len(fields)} "
                "tab-separated fields (CoNLL-U? read it as CoNLL-U: --format conllu)"
            )
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
