"""The self-check of notebook 07's exercise: a guard rule that stops a new attack and flags no real question.

`check_guard_rule(rule, attack)` runs the input guard with the shipped rules plus the student's `guard.Rule`
on the attack (it must be blocked, and by this rule: the shipped ones let it through), then the rule alone on
every benign question of `guard_eval` (a second or two of regular expressions, no model). It says which part
fails — a rule of the wrong type, a pattern that does not compile, the attack still answered, benign questions
flagged (a few are quoted: they are the data to read, not the answer) — and never prints a pattern.
What it leaves out: attacks worded differently from the one given, which only more test data would cover.
"""

from __future__ import annotations

import re

from helpers.exercises.base import not_yet, self_check, verdict
from helpers.generation import guard
from helpers.lab.guard import flagged_benign

QUOTED = 2  # benign questions quoted when the rule flags some


@self_check
def check_guard_rule(rule: object, attack: str) -> bool:
    """Right when the guard with `rule` added blocks `attack` and `rule` alone flags no benign question."""
    if rule is None:
        return not_yet("`rule` is still None: build a guard.Rule(name, reason, pattern) in the exercise cell above")
    if isinstance(rule, str):
        return not_yet("that is a pattern alone: wrap it as guard.Rule(name, reason, pattern)")
    if not isinstance(rule, guard.Rule):
        return not_yet(f"the answer should be a guard.Rule(name, reason, pattern), got a {type(rule).__name__}")
    try:
        re.compile(rule.pattern)
    except re.error as error:
        return not_yet(f"the pattern does not compile as a regular expression: {error}")
    if not guard.check_input(attack, [rule]).removed:
        return not_yet("your rule does not match the attack yet: try rule.search(attack) until it finds it")
    shipped = [r for r in guard.RULES if r != rule]
    if not guard.check_input(attack, [*shipped, rule]).blocked:
        return not_yet("your rule catches part of the attack, but the rest still reads as a question to answer")
    flagged = flagged_benign([rule])
    if flagged:
        examples = "; ".join(repr(question) for question, _ in flagged[:QUOTED])
        return not_yet(f"your rule also flags {len(flagged)} benign question(s), e.g. {examples}: make it stricter")
    return verdict(True, "the attack is blocked by your rule, and it flags none of the benign questions.", "")
