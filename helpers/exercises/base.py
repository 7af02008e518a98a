"""What every stage's exercise checks share: the verdict a student reads, and CI's strict mode.

A check prints "✓ Right: …" or "✗ Not yet: <a hint>" (never the expected value) and returns True or False; a stub
answer is a "not yet", never a traceback. With `KIT_STRICT_CHECKS=1` (as in CI) a "not yet" raises `CheckFailed`.
What it leaves out: grading and points (nbgrader's), and hidden tests.
"""

from __future__ import annotations

import functools
import inspect
import numbers
import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import numpy as np

from helpers.mechanisms import keep

STRICT_ENV = "KIT_STRICT_CHECKS"
STUB_HINT = "the answer is still None: write your code in the exercise cell above, run it, then run this cell again"

F = TypeVar("F", bound=Callable[..., bool])


class CheckFailed(AssertionError):
    """A check said "not yet" while KIT_STRICT_CHECKS is set (CI runs the instructor notebooks this way)."""


class NotYet(Exception):
    """What is off with an answer, raised anywhere in a check to end it with that "not yet" (`self_check` says it)."""


def require(problem: str | None) -> None:
    """End the check with "not yet: `problem`" when there is one (None or "": the answer passed this step)."""
    if problem:
        raise NotYet(problem)


def require_answer(answer: object) -> None:
    """End the check with the stub hint when `answer` is still None."""
    if answer is None:
        raise NotYet(STUB_HINT)


def strict() -> bool:
    """Whether a failed check raises (KIT_STRICT_CHECKS set to anything but empty, 0, false or no)."""
    return os.environ.get(STRICT_ENV, "").strip().lower() not in ("", "0", "false", "no")


def right(message: str) -> bool:
    """Print "✓ Right: message" and return True."""
    print(f"✓ Right: {message}")
    return True


def not_yet(wrong: str) -> bool:
    """Print "✗ Not yet: wrong" and return False; in strict mode it raises instead."""
    print(f"✗ Not yet: {wrong}")
    if strict():
        raise CheckFailed(f"✗ Not yet: {wrong}")
    return False


def verdict(ok: bool, message: str, wrong: str) -> bool:
    """`right(message)` when `ok`, else `not_yet(wrong)`."""
    return right(message) if ok else not_yet(wrong)


def self_check(check: F) -> F:
    """Turn a `NotYet`, or anything a check raises reading the answer, into a "not yet" (CheckFailed passes)."""

    @functools.wraps(check)
    def wrapper(*args: Any, **kwargs: Any) -> bool:
        try:
            return check(*args, **kwargs)
        except CheckFailed:
            raise
        except NotYet as slip:
            return not_yet(str(slip))
        except Exception as error:  # a student's answer can fail in any way
            message = f"your answer could not be checked ({type(error).__name__}: {error})"
            if strict():
                raise CheckFailed(f"✗ Not yet: {message}") from error
            return not_yet(message)

    return wrapper  # type: ignore[return-value]


def keeps(slot: str) -> Callable[[F], F]:
    """A check of a `slot` function that, when it passes, keeps the function in the student's my_rag.py (only one
    written in the notebook or a script: never the kit's own, or a test's)."""

    def decorate(check: F) -> F:
        @functools.wraps(check)
        def wrapper(function: Any, *args: Any, **kwargs: Any) -> bool:
            passed = check(function, *args, **kwargs)
            if passed and inspect.isfunction(function) and function.__module__ == "__main__":
                try:
                    keep(slot, function)
                except Exception as error:  # keeping is a service: a check that passed stays passed
                    print(f"(your function passed but could not be kept: {type(error).__name__}: {error})")
            return passed

        return wrapper  # type: ignore[return-value]

    return decorate


def as_count(answer: object) -> int | None:
    """`answer` as a whole number (int, numpy integer, or a float with no fraction), else None."""
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        return None
    value = float(answer)
    return int(value) if value.is_integer() else None


def answer_problem(
    answer: object, kind: type | tuple[type, ...], what: str, mistaken: Sequence[tuple[type, str]] = ()
) -> str | None:
    """Why `answer` is not yet one to compare (None when it is): still None, one of the `mistaken` types (said by
    its message), or no `kind` ("the answer should be `what`, got a …"; True and False count as no number)."""
    if answer is None:
        return STUB_HINT
    for wrong_type, message in mistaken:
        if isinstance(answer, wrong_type):
            return message
    if isinstance(answer, bool) or not isinstance(answer, kind):
        return f"the answer should be {what}, got a {type(answer).__name__}"
    return None


def as_choice(answer: object, choices: Sequence[int], one: str, unmeasured: str) -> int:
    """`answer` as one of the measured `choices`; else "not yet": `one` when it is no whole number, `unmeasured`
    (its "{choices}" filled in) when it is not a choice."""
    choice = as_whole_number(answer, f"{one}, got a {type(answer).__name__}")
    if choice not in choices:
        raise NotYet(unmeasured.format(choices=", ".join(map(str, choices))))
    return choice


def as_whole_number(answer: object, wrong: str) -> int:
    """`answer` as a whole number; else "not yet": the stub hint when it is still None, `wrong` otherwise."""
    require_answer(answer)
    count = as_count(answer)
    if count is None:
        raise NotYet(wrong)
    return count


MEASURED_TOLERANCE = 0.0015  # tables round a mean to 3 decimals


def measured_problem(value: object, measured: float, what: str) -> str | None:
    """Why `value` is not `measured`, to 3 decimals (None when it is): a choice can be guessed, its number cannot."""
    if value is None:
        return f"give {what} too: the number behind the choice, read from your table"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return f"{what} should be one number, got a {type(value).__name__}"
    if abs(float(value) - measured) > MEASURED_TOLERANCE:
        return f"{what} is not what your choice measures here: read it from your choice's row of your table"
    return None


def as_pairs(got: object) -> list[tuple[int, float]] | None:
    """`got` as a list of (row, score) pairs (a whole-number row, a real score), or None when it is not one."""
    if not isinstance(got, list | tuple):
        return None
    pairs = []
    for item in got:
        if not isinstance(item, list | tuple) or len(item) != 2:
            return None
        row, score = as_count(item[0]), item[1]
        if row is None or isinstance(score, bool) or not isinstance(score, numbers.Real | np.floating):
            return None
        pairs.append((row, float(score)))
    return pairs


def call_student(function: Callable[..., Any], *args: Any) -> tuple[Any, str | None]:
    """(result, None) of `function(*args)`, or (None, why it failed) when it raised."""
    try:
        return function(*args), None
    except NotImplementedError:
        return None, "your function still raises NotImplementedError: replace the stub with your code"
    except Exception as error:  # a student's code can fail in any way
        return None, f"your function raised {type(error).__name__}: {error}"


def result_of(function: Callable[..., Any], *args: Any, before: str = "", after: str = "") -> Any:
    """`function(*args)`; when it raises, the check ends with "not yet": why, between `before` and `after`."""
    got, error = call_student(function, *args)
    if error:
        raise NotYet(f"{before}{error}{after}")
    return got


def call_for_pairs(function: Callable[..., Any], *args: Any, wanted: str, on: str = "") -> list[tuple[int, float]]:
    """The (row, score) pairs `function(*args)` returns; else "not yet": its error (after "on `on`: " unless it is
    a stub), or `wanted` with "{}" filled in with the type it gave."""
    got, error = call_student(function, *args)
    if error:
        raise NotYet(error if not on or "NotImplementedError" in error else f"on {on}: {error}")
    pairs = as_pairs(got)
    if pairs is None:
        raise NotYet(wanted.format(type(got).__name__))
    return pairs


def call_for_number(function: Callable[..., Any], *args: Any, what: str = "one number") -> float:
    """The float result of `function(*args)`; the check ends with a "not yet" when it raised or gave no number."""
    got = result_of(function, *args)
    if not isinstance(got, numbers.Real) and not (getattr(got, "shape", None) == () and hasattr(got, "item")):
        raise NotYet(f"return {what}, got {type(got).__name__}")
    return float(got)


def number_function_verdict(
    function: object, name: str, cases: Iterable[tuple[Any, ...]], reference: Callable[..., float], what: str,
    tolerance: float, explain: Callable[..., str], message: str,
) -> bool:  # fmt: skip
    """Right when `function(*case)` is within `tolerance` of `reference(*case)` on each case, else `explain(…, got)`."""
    require(function_problem(function, name))
    for case in cases:
        got = call_for_number(function, *case, what=what)  # type: ignore[arg-type]
        if abs(got - reference(*case)) > tolerance:
            return not_yet(explain(*case, got))
    return right(message)


def function_problem(function: object, name: str) -> str | None:
    """Why `function` is not yet a function to check (None when it is callable)."""
    if function is None:
        return f"{name} is still None: define the function in the exercise cell above and run it"
    if not callable(function):
        return f"{name} should be a function, got a {type(function).__name__}"
    return None
