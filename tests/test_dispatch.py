"""The tables of the seams and the switches generated from them: every loop reaches a rule, a
task and a representation by the codes of one table."""

import importlib
import inspect
import math

import numpy as np
import pytest

from olearn import _generate, engine
from olearn.kernels import loop as kernel_loop
from olearn.representations import REPRESENTATIONS
from olearn.rules import KERNEL_RULES, RULES, SEQUENCE_RULES, rule_function
from olearn.rules._switch import (
    gradient_step,
    is_gradient,
    kernel_step,
    margin_step,
    rule_dual,
    sequence_step,
)
from olearn.structured import train as structured_train
from olearn.tasks import TASKS
from olearn.tasks._switch import plain_task_step, task_step


@pytest.mark.parametrize("relative", sorted(_generate.GENERATED))
def test_generated_switches_are_current(relative):
    path = _generate.PACKAGE / relative
    assert path.read_text() == _generate.GENERATED[relative](), (
        f"{relative} is stale: regenerate it with python -m olearn._generate"
    )


@pytest.mark.parametrize("table", [RULES, TASKS, REPRESENTATIONS], ids=["rules", "tasks", "reps"])
def test_codes_are_unique(table):
    codes = [row.code for row in table.values()]
    assert len(set(codes)) == len(codes)


HP = np.array([0.7, 0.3, 0.1, 1.0, 1.0])  # enough entries for every rule's hyper-parameters


@pytest.mark.parametrize("name", sorted(RULES))
def test_every_rule_is_reached_by_its_code(name):
    rule = RULES[name]
    function = rule_function(name)
    parameters = inspect.signature(function.py_func).parameters
    assert tuple(parameters)[1] == ("v" if rule.kind == "margin" else "t")
    # every rule takes the importance weight h, 1 by default (its weighted form)
    assert tuple(parameters)[3] == "h" and parameters["h"].default == 1.0
    for m in (-1.0, 0.0, 0.5, 2.0):
        second = 1.5 if rule.kind == "margin" else 3.0
        switch = margin_step if rule.kind == "margin" else gradient_step
        for h in (1.0, 2.5):
            expected = function(m, second, HP, h)
            assert switch(rule.code, m, second, HP, h) == expected, (name, m, h)
        assert switch(rule.code, m, second, HP, 1.0) == function(m, second, HP), (name, m)
    assert is_gradient(rule.code) == (rule.kind == "gradient")


@pytest.mark.parametrize("name", sorted(RULES))
def test_the_loops_switches_over_subsets_reach_exactly_their_rules(name):
    """``kernel_step`` and ``sequence_step`` give the full switches' steps for the rules of
    their loops and refuse every other code (a loop compiles only the rules it runs)."""
    rule = RULES[name]
    for m, h in ((-1.0, 1.0), (0.5, 2.5)):
        if name in KERNEL_RULES:
            if rule.kind == "gradient":
                expected = gradient_step(rule.code, m, 3.0, HP, h)
            else:
                expected = (margin_step(rule.code, m, 1.5, HP, h)[0], 0.0)
            assert kernel_step(rule.code, m, 1.5, 3.0, HP, h) == expected, name
        else:
            with pytest.raises(ValueError, match="not a kernel rule"):
                kernel_step(rule.code, m, 1.5, 3.0, HP, h)
        if name in SEQUENCE_RULES:
            assert sequence_step(rule.code, m, 1.5, HP, h) == margin_step(rule.code, m, 1.5, HP, h)
        else:
            with pytest.raises(ValueError, match="not a sequence rule"):
                sequence_step(rule.code, m, 1.5, HP, h)
    # the kernel models carry no covariance: only first-order margin rules and gradient rules
    assert all(RULES[n].first_order or RULES[n].kind == "gradient" for n in KERNEL_RULES)


def test_duals_give_the_rules_own_step_for_one_constraint():
    """With one constraint the dual's solution, clip(ℓ / (‖Δ‖² + ridge), 0, box), is the
    rule's closed form."""
    for name, rule in RULES.items():
        if rule.dual is None:
            with pytest.raises(ValueError, match="no dual"):
                rule_dual(rule.code, HP)
            continue
        box, ridge = rule_dual(rule.code, HP)
        assert (box, ridge) == rule_function(name, "dual")(HP)
        for m, v in ((0.5, 2.0), (-3.0, 0.5)):
            loss = 1.0 - m
            step = min(max(loss / (v + ridge), 0.0), box)
            assert math.isclose(step, margin_step(rule.code, m, v, HP, 1.0)[0]), name


def test_unknown_codes_fail_loudly():
    with pytest.raises(ValueError, match="unknown margin rule"):
        margin_step(99, 0.0, 1.0, HP, 1.0)
    with pytest.raises(ValueError, match="unknown gradient rule"):
        gradient_step(99, 0.0, 1.0, HP, 1.0)
    with pytest.raises(ValueError, match="unknown task"):
        task_step(99, 1.0, np.empty(0), np.zeros(2), engine.options())


def test_an_unknown_representation_fails_loudly():
    from olearn import PassiveAggressiveClassifier

    model = PassiveAggressiveClassifier().fit(np.eye(3), [0, 1, 2])
    state, (cfg, hp, opts) = model._engine_state()
    cfg = cfg.copy()
    cfg[engine.CFG_REPRESENTATION] = 99
    with pytest.raises(ValueError, match="unknown representation"):
        engine.run_one(np.array([0]), np.array([1.0]), 0.0, 1.0, state, (cfg, hp, opts))


@pytest.mark.parametrize("name", sorted(TASKS))
def test_every_task_is_reached_by_its_code(name):
    task = TASKS[name]
    module, _, function = task.function.partition(".")
    function = getattr(importlib.import_module(f"olearn.tasks.{module}"), function)
    scores = np.array([0.2, -0.4, 0.9])
    aux_row = np.array([1.0, 0.0, 1.0]) if name == "multilabel" else np.array([0.0, 0.5, 2.0])
    opts = engine.options(epsilon=0.1)
    assert task_step(task.code, 0.0, aux_row, scores, opts) == function(0.0, aux_row, scores, opts)
    if task.auxiliary:
        with pytest.raises(ValueError, match="needs an auxiliary label row"):
            plain_task_step(task.code, 0.0, None, scores, opts)
    else:
        assert plain_task_step(task.code, 0.0, None, scores, opts) == function(
            0.0, aux_row, scores, opts
        )


def test_the_other_loops_take_their_codes_from_the_tables():
    """No loop keeps a copy of the rule or task codes."""
    for module in (kernel_loop, structured_train, engine):
        source = inspect.getsource(module)
        assert "RULE_CODES" not in source and "_PERCEPTRON, _PA" not in source
    assert set(structured_train.SEQUENCE_RULES) <= set(RULES)
    assert not importlib.util.find_spec("olearn.kernels.tasks")
