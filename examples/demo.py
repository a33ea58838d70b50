"""End-to-end demo: olearn's six linear classifiers (Perceptron, PA, SOP, CW, AROW, SCW and
their variants) on binary data sets shipped with scikit-learn, at 0 %, 10 % and 30 % label
noise — the shape of the AROW paper's comparison. It compiles every loop first
(``olearn.warmup()``: a minute or two on the first run, seconds later).

For each data set the rows are split 70/30 (seeded), the features standardised on the training
part, and the labels of the training part flipped at the given rate. Each model makes one
online pass (averaged over 5 random orders) and reports its online mistake rate (progressive
validation: every prediction is made before the label is seen) and its accuracy on the
untouched held-out part.
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

import olearn
from olearn import (
    AROWClassifier,
    CWClassifier,
    PassiveAggressiveClassifier,
    PerceptronClassifier,
    SCWClassifier,
    SecondOrderPerceptronClassifier,
)

MODELS = {
    "Perceptron": lambda: PerceptronClassifier(),
    "Averaged Perceptron": lambda: PerceptronClassifier(average=True),
    "PA": lambda: PassiveAggressiveClassifier(variant="PA"),
    "PA-I": lambda: PassiveAggressiveClassifier(variant="PA-I", C=0.1),
    "PA-II": lambda: PassiveAggressiveClassifier(variant="PA-II", C=0.1),
    "SOP (full)": lambda: SecondOrderPerceptronClassifier(),
    "CW exact (diag)": lambda: CWClassifier(eta=0.9),
    "CW variance (diag)": lambda: CWClassifier(eta=0.9, method="variance"),
    "AROW (diag)": lambda: AROWClassifier(r=1.0),
    "AROW (full)": lambda: AROWClassifier(r=1.0, covariance="full"),
    "SCW-I (diag)": lambda: SCWClassifier(variant="I", eta=0.9, C=0.1),
    "SCW-II (diag)": lambda: SCWClassifier(variant="II", eta=0.9, C=0.1),
}
NOISE_LEVELS = (0.0, 0.1, 0.3)
ORDERS = 5


def datasets():
    digits = load_digits()
    three_five = np.isin(digits.target, [3, 5])
    yield "digits 3 vs 5", digits.data[three_five], digits.target[three_five]
    cancer = load_breast_cancer()
    yield "breast cancer", cancer.data, cancer.target


def flip_labels(y, rate, rng):
    classes = np.unique(y)
    flipped = rng.random(len(y)) < rate
    return np.where(flipped, np.where(y == classes[0], classes[1], classes[0]), y)


def evaluate(make_model, X_train, y_train, X_test, y_test, rng):
    mistakes, accuracy = [], []
    for _ in range(ORDERS):
        order = rng.permutation(len(y_train))
        model = make_model().fit(X_train[order], y_train[order])
        mistakes.append(model.n_mistakes_ / model.n_rounds_)
        accuracy.append(model.score(X_test, y_test))
    return np.mean(mistakes), np.mean(accuracy)


def main() -> None:
    start = time.perf_counter()
    olearn.warmup()
    print(
        f"olearn {olearn.__version__}: compiled loops ready in {time.perf_counter() - start:.1f} s"
    )
    for name, X, y in datasets():
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
        scaler = StandardScaler().fit(X_train)
        X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
        print(f"\n{name}: {len(y_train)} training rows, {len(y_test)} held out")
        header = "".join(f" | noise {p:4.0%}: mistakes  held-out" for p in NOISE_LEVELS)
        print(f"{'algorithm':<20}{header}")
        for label, make_model in MODELS.items():
            cells = []
            for rate in NOISE_LEVELS:
                rng = np.random.default_rng(1)
                noisy = flip_labels(y_train, rate, rng)
                mistake_rate, accuracy = evaluate(make_model, X_train, noisy, X_test, y_test, rng)
                cells.append(f" |       {mistake_rate:8.1%}  {accuracy:8.1%}")
            print(f"{label:<20}{''.join(cells)}")
    print(f"\ndone in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
