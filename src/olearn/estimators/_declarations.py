"""What each linear model declares to the engine: its paper's rule, the rule's
hyper-parameters, the covariance representation and prior, averaging.

One mixin per estimator family, read from the estimator's parameters (instance attributes).
The estimators inherit them; so does the command line's scikit-learn-free training path
(``olearn.estimators._headless``). Nothing here imports scikit-learn.
"""

from __future__ import annotations

from statistics import NormalDist

from olearn.rules import sgd

PA_VARIANTS = {"PA": "pa", "PA-I": "pa1", "PA-II": "pa2"}
CW_METHODS = {"exact": "cw_exact", "variance": "cw_variance"}
SCW_VARIANTS = {"I": "scw1", "II": "scw2"}


def confidence_phi(eta: float) -> float:
    """φ = Φ⁻¹(η): the number of standard deviations the margin must clear."""
    return NormalDist().inv_cdf(float(eta))


class PerceptronDeclarations:
    def _rule_name(self) -> str:
        return "perceptron"

    def _averaged(self) -> bool:
        return bool(self.average)


class _PARule:
    """PA, PA-I, PA-II (Crammer et al. 2006, eq. 7, 9, 11)."""

    def _rule_name(self) -> str:
        return PA_VARIANTS[self.variant]

    def _rule_hyperparameters(self) -> list[float]:
        return [] if self.variant == "PA" else [float(self.C)]


class PADeclarations(_PARule):
    def _averaged(self) -> bool:
        return bool(self.average)


class PARegressionDeclarations(_PARule):
    def _task_options(self) -> tuple[float, float]:
        return float(self.epsilon), 0.0  # the ε of the ε-insensitive loss (§4)


class _CovarianceDeclarations:
    def _covariance_kind(self) -> str:
        return self.covariance

    def _prior_variance(self) -> float:
        return float(self.a)


class SOPDeclarations(_CovarianceDeclarations):
    def _rule_name(self) -> str:
        return "sop"

    def _prior_variance(self) -> float:
        return 1.0 / float(self.a)  # a is the regulariser of A = aI + Σ xxᵀ


class CWDeclarations(_CovarianceDeclarations):
    def _rule_name(self) -> str:
        return CW_METHODS[self.method]

    def _rule_hyperparameters(self) -> list[float]:
        return [confidence_phi(self.eta)]


class AROWDeclarations(_CovarianceDeclarations):
    def _rule_name(self) -> str:
        return "arow"

    def _rule_hyperparameters(self) -> list[float]:
        return [float(self.r)]


class RLSDeclarations(AROWDeclarations):
    """AROW for regression: recursive least squares."""

    def _rule_name(self) -> str:
        return "rls"


class SCWDeclarations(_CovarianceDeclarations):
    def _rule_name(self) -> str:
        return SCW_VARIANTS[self.variant]

    def _rule_hyperparameters(self) -> list[float]:
        return [confidence_phi(self.eta), float(self.C)]


class SGDDeclarations:
    def _rule_name(self) -> str:
        return f"sgd_{self.loss}"  # one rule per loss (``rules/sgd.py``)

    def _rule_hyperparameters(self) -> list[float]:
        schedule = float(sgd.SCHEDULES[self.schedule])
        return [float(self.eta0), float(self.alpha), float(self.epsilon), float(self.delta),
                schedule]  # fmt: skip

    def _check_parameter_combination(self) -> None:
        if self.schedule == "inverse" and self.alpha <= 0:
            raise ValueError("schedule='inverse' (η_t = 1/(λt)) needs alpha > 0.")
