"""The catalogue of malformed-line errors shared by the readers (codes used by compiled code)."""

OK = 0
NONNUMERIC_LABEL = 1
NONFINITE = 2
MISSING_COLON = 3
BAD_INDEX = 4
NEGATIVE_INDEX = 5
BAD_VALUE = 6
UNSORTED_INDEX = 7
DUPLICATE_INDEX = 8
ZERO_INDEX = 9
INDEX_OUT_OF_RANGE = 10
CUT_OFF = 11
BAD_QID = 12
BAD_IMPORTANCE = 13
NO_FEATURES_BAR = 14
BAD_NAMESPACE_VALUE = 15
NO_LABEL = 16

MESSAGES = {
    NONNUMERIC_LABEL: "label is not a number",
    NONFINITE: "NaN or infinite value",
    MISSING_COLON: "feature has no ':' (expected index:value)",
    BAD_INDEX: "feature index is not an integer",
    NEGATIVE_INDEX: "negative feature index",
    BAD_VALUE: "feature value is not a number",
    UNSORTED_INDEX: "feature indices are not in increasing order",
    DUPLICATE_INDEX: "duplicate feature index",
    ZERO_INDEX: "feature index 0 in a one-based file (use --zero-based)",
    INDEX_OUT_OF_RANGE: "feature index beyond the model's width",
    CUT_OFF: "line cut off at end of file (no final newline)",
    BAD_QID: "qid is not an integer",
    BAD_IMPORTANCE: "importance weight is not a non-negative number",
    NO_FEATURES_BAR: "expected '|' before the features",
    BAD_NAMESPACE_VALUE: "namespace weight is not a number",
    NO_LABEL: "no label",
}


class BadLineError(ValueError):
    """A malformed input line: ``file:line: problem: 'token'``."""

    def __init__(self, source: str, line: int, code: int, token: str, detail: str = ""):
        self.source = source
        self.line = line
        self.code = code
        self.token = token
        problem = MESSAGES.get(code, f"error {code}")
        if detail:
            problem = f"{problem} {detail}"
        shown = token if len(token) <= 60 else token[:57] + "..."
        super().__init__(f"{source}:{line}: {problem}: {shown!r}")
