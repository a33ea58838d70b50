"""The one registry of estimators and algorithm names, and what derives from it: exports,
the command line's names and options, the evaluation's configurations and grids."""

import importlib
import inspect
import itertools

import pytest
from sklearn.base import is_classifier, is_regressor
from sklearn.utils._param_validation import InvalidParameterError, validate_parameter_constraints

import olearn
import olearn.estimators
from olearn.cli import algorithms as cli_algorithms
from olearn.cli import main
from olearn.evaluation import libol_grid, make_estimator
from olearn.registry import ALGORITHMS, ESTIMATORS, GRID_VALUES, dotted, lookup, matching


def _class(name):
    return getattr(importlib.import_module(ESTIMATORS[name]), name)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_every_estimator_is_exported_where_it_lives(name):
    assert name in olearn.__all__ and getattr(olearn, name) is _class(name)
    if ESTIMATORS[name].startswith("olearn.estimators."):
        assert name in olearn.estimators.__all__
        assert getattr(olearn.estimators, name) is _class(name)


def test_exports_are_exactly_the_registry_and_the_functions():
    functions = {"ranking_loss", "one_error", "make_arow_synthetic", "plot_decision_boundary"}
    assert set(olearn.__all__) == {*ESTIMATORS, *functions, "save", "load", "warmup",
                                   "__version__"}  # fmt: skip
    for name in olearn.__all__:
        assert getattr(olearn, name) is not None


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_every_algorithm_row_resolves(name):
    algorithm = ALGORITHMS[name]
    assert algorithm.classes, name
    for task, class_name in algorithm.classes.items():
        cls = _class(class_name)
        if task == "regression":
            assert is_regressor(cls()), (name, task)
        else:
            assert is_classifier(cls()), (name, task)
        params = inspect.signature(cls.__init__).parameters
        for key, value in algorithm.fixed.items():
            assert key in params, (name, class_name, key)
            cls(**{key: value})._validate_params()  # a valid value
        for key in algorithm.grid:
            assert key in params and key in GRID_VALUES, (name, key)


def test_names_are_case_insensitive_and_unknown_names_list_the_choices():
    assert lookup("AROW-Full") is ALGORITHMS["arow-full"]
    with pytest.raises(ValueError, match="choose from perceptron, averaged-perceptron"):
        lookup("nope")


# The named configurations of the experiments before the registry: unchanged.
CONFIGURATIONS = {
    "perceptron": ("PerceptronClassifier", {}),
    "averaged-perceptron": ("PerceptronClassifier", {"average": True}),
    "pa": ("PassiveAggressiveClassifier", {"variant": "PA"}),
    "pa1": ("PassiveAggressiveClassifier", {"variant": "PA-I"}),
    "pa2": ("PassiveAggressiveClassifier", {"variant": "PA-II"}),
    "sop": ("SecondOrderPerceptronClassifier", {"covariance": "full"}),
    "sop-diag": ("SecondOrderPerceptronClassifier", {"covariance": "diagonal"}),
    "cw": ("CWClassifier", {"covariance": "diagonal"}),
    "cw-full": ("CWClassifier", {"covariance": "full"}),
    "arow": ("AROWClassifier", {"covariance": "diagonal"}),
    "arow-full": ("AROWClassifier", {"covariance": "full"}),
    "scw1": ("SCWClassifier", {"variant": "I", "covariance": "diagonal"}),
    "scw1-full": ("SCWClassifier", {"variant": "I", "covariance": "full"}),
    "scw2": ("SCWClassifier", {"variant": "II", "covariance": "diagonal"}),
    "scw2-full": ("SCWClassifier", {"variant": "II", "covariance": "full"}),
}


@pytest.mark.parametrize("name", sorted(CONFIGURATIONS))
def test_make_estimator_builds_the_named_configuration(name):
    class_name, fixed = CONFIGURATIONS[name]
    estimator = make_estimator(name)
    assert type(estimator).__name__ == class_name
    assert estimator.get_params() == _class(class_name)(**fixed).get_params()


def test_libol_grids_follow_the_registry():
    powers = [2.0**k for k in range(-4, 5)]
    etas = [0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95]
    assert libol_grid(make_estimator("pa")) == {}
    assert libol_grid(make_estimator("perceptron")) == {}
    assert libol_grid(make_estimator("pa2")) == {"C": powers}
    assert libol_grid(make_estimator("scw2-full")) == {"C": powers, "eta": etas}
    assert libol_grid(make_estimator("sop-diag")) == {"a": powers}
    assert libol_grid(make_estimator("arow")) == {"r": powers}
    assert libol_grid(olearn.CWClassifier(method="variance")) == {"eta": etas}
    assert libol_grid(olearn.UniclassPA()) == {}  # no algorithm of the registry
    assert [a.name for a in matching("AROWClassifier", {"covariance": "full"})] == ["arow-full"]


# -- the command line's mirror of scikit-learn's parameter validation -------------------------

# NaN is in no interval, and an open side without a bound excludes infinity (--C nan and
# --C inf were accepted, and the model written, which olearn.load then refused)
PROBES = [None, True, False, 0, 1, 2, 3, -1, 0.0, 0.5, 0.95, 1.0, 1.5, 1e9, -0.5, "scale",
          "auto", "full", "diagonal", "PA-II", "II", "merge", "rbf", "bogus", "",
          float("nan"), float("inf"), float("-inf")]  # fmt: skip


def _catalogued():
    for path in sorted(cli_algorithms.catalogue()):
        for p in cli_algorithms.cataloged_parameters(path):
            yield path, p


@pytest.mark.parametrize(
    "path, parameter", list(_catalogued()), ids=lambda x: getattr(x, "name", x)
)
def test_command_line_accepts_exactly_what_scikit_learn_accepts(path, parameter):
    cls = cli_algorithms.load_class(path)
    constraints = {parameter.name: cls._parameter_constraints[parameter.name]}
    for value in [parameter.default, *PROBES]:
        try:
            validate_parameter_constraints(constraints, {parameter.name: value}, cls.__name__)
            expected = True
        except InvalidParameterError:
            expected = False
        assert parameter.accepts(value) == expected, (path, parameter.name, value)
        if expected and value is not None and not isinstance(value, bool):
            assert parameter.parse(str(value)) == value, (path, parameter.name, value)


def test_invalid_values_are_worded_by_scikit_learn():
    path = dotted("KernelPAClassifier")
    with pytest.raises(InvalidParameterError) as error:
        cli_algorithms.check_parameters(path, {"gamma": -1.0})
    assert "'gamma' parameter of KernelPAClassifier must be" in str(error.value)
    cli_algorithms.check_parameters(path, {"gamma": "scale", "C": 0.5})  # valid: silent


# -- every algorithm through every command ----------------------------------------------------


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_every_algorithm_trains_predicts_evaluates_and_shows_info(tmp_path, capsys, name):
    from pathlib import Path

    golden = Path(__file__).parent / "golden"
    data = golden / ("small.svm" if "binary" in ALGORITHMS[name].classes else "regression.svm")
    model = tmp_path / "m.olm"
    assert main(["list", name]) == 0
    assert main(["train", name, str(data), "-o", str(model), "--quiet"]) == 0, capsys.readouterr()
    assert main(["predict", str(model), str(data)]) == 0
    assert main(["info", str(model)]) == 0
    out = capsys.readouterr().out
    assert f"{name} (" in out  # info names the algorithm it was trained as
    code = main(["evaluate", name, str(data), "--permutations", "2", "--checkpoints", "2"])
    assert code == 0
    assert f"## {name}" in capsys.readouterr().out


def test_kernel_options_take_strings_and_numbers(tmp_path, capsys):
    data = str(__import__("pathlib").Path(__file__).parent / "golden" / "small.svm")
    for gamma in ("scale", "auto", "0.5"):
        model = tmp_path / f"{gamma}.olm"
        code = main(["train", "kernel-pa", data, "--gamma", gamma, "-o", str(model), "--quiet"])
        assert code == 0, capsys.readouterr().err
        assert olearn.load(model).gamma == (float(gamma) if gamma[0].isdigit() else gamma)
    code = main(["train", "kernel-pa", data, "--gamma", "-1", "-o", str(tmp_path / "x.olm")])
    assert code == 2 and "'gamma' parameter of KernelPAClassifier" in capsys.readouterr().err


def test_every_name_of_evaluate_is_a_name_of_train():
    assert set(itertools.chain(CONFIGURATIONS)) <= set(ALGORITHMS)


def test_the_warnings_olearn_gives_are_in_olearn_exceptions():
    # the docs name them for warnings.filterwarnings; they were only in private modules
    import warnings

    import numpy as np

    from olearn import exceptions

    assert set(exceptions.__all__) == {
        "OrderedStreamWarning", "NotLearnedWarning", "LargeExpansionWarning"
    }  # fmt: skip
    assert all(issubclass(getattr(exceptions, name), Warning) for name in exceptions.__all__)
    X, y = np.random.default_rng(0).normal(size=(60, 3)), np.repeat([0, 1, 2], 20)
    with pytest.warns(exceptions.OrderedStreamWarning):
        olearn.AROWClassifier().fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=exceptions.OrderedStreamWarning)
        olearn.AROWClassifier().fit(X, y)  # filtered by its class
