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
# 11: formerly CUT_OFF (a last line without newline is now a complete line)
BAD_QID = 12
BAD_IMPORTANCE = 13
NO_FEATURES_BAR = 14
BAD_NAMESPACE_VALUE = 15
NO_LABEL = 16
OVERFLOW = 17
INDEX_TOO_LARGE = 18
LINE_TOO_LONG = 19
ROW_TOO_LARGE = 20
BAD_BASE = 21
EXTRA_TOKEN = 22

MESSAGES = {
    NONNUMERIC_LABEL: "label is not a number",
    NONFINITE: "NaN or infinite value",
    MISSING_COLON: "feature has no ':' (expected index:value)",
    BAD_INDEX: "feature index is not an integer",
    NEGATIVE_INDEX: "negative feature index",
    BAD_VALUE: "feature value is not a number",
    UNSORTED_INDEX: "feature indices are not in increasing order",
    DUPLICATE_INDEX: "duplicate feature index",
    ZERO_INDEX: "feature index 0 in a one-based file",
    INDEX_OUT_OF_RANGE: "feature index beyond the model's width",
    BAD_QID: "qid is not an integer",
    BAD_IMPORTANCE: "importance weight is not a non-negative number",
    NO_FEATURES_BAR: "expected '|' before the features",
    BAD_NAMESPACE_VALUE: "namespace weight is not a number",
    NO_LABEL: "no label",
    OVERFLOW: "a feature value overflows to infinity (namespace weight, crossing or collision)",
    INDEX_TOO_LARGE: "feature index too large (columns are int32: at most 2147483646)",
    LINE_TOO_LONG: "line longer than the limit",
    ROW_TOO_LARGE: "too many features in one example",
    BAD_BASE: "base (initial prediction, after the importance weight) is not a number",
    EXTRA_TOKEN: "extra token before '|' (expected label [importance [base]] ['tag])",
}


class BadLineError(ValueError):
    """A malformed input line: ``file:line: problem: 'token'``.

    ``source`` names the file, ``line`` the line (from 1), ``code`` the problem (a key of
    ``MESSAGES``), ``token`` the offending text and ``detail`` what the message adds to the
    problem's description; all are kept as attributes.
    """

    def __init__(self, source: str, line: int, code: int, token: str, detail: str = ""):
        self.source = source
        self.line = line
        self.code = code
        self.token = token
        self.detail = detail
        problem = MESSAGES.get(code, f"error {code}")
        if detail:
            problem = f"{problem} {detail}"
        shown = token if len(token) <= 60 else token[:57] + "..."
        super().__init__(f"{source}:{line}: {problem}: {shown!r}")
