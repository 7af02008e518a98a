"""Your functions in the kit's place: `use("fusion", my_fusion)` and the pipeline runs on your code.

Each stage's core is a short function with a fixed signature, a *slot*. The kit ships its own
implementation of every slot (the reference, and the default); a notebook asks you to write the same
function, and `use` puts yours in its place for this Python process, so the notebook's later cells, the
pipeline and the app all run on it, and a bug in it shows up in the numbers the notebook measures.

    >>> use("fusion", my_fusion)      # from now on every hybrid retriever fuses with my_fusion
    >>> in_use()                      # {'fusion': 'my_fusion'}
    >>> reset("fusion")               # back to the kit's own

Your RAG carries from notebook to notebook: a function whose check passes is kept (`keep`) in `my_rag.py`
beside the notebooks, a file you can open and read as your system; `load_mine()` at the top of every later
notebook, and the app, puts each function of that file back in its slot, in a new kernel too.

A stage looks its slot up at call time with `chosen(slot, kit_function)`, so a change takes effect at once, and
`calls()` counts how often the kit ran each slot on a function of yours.
What it leaves out: checking that your function is right (the exercises' checks do that before `keep`).
"""

from __future__ import annotations

import ast
import builtins
import dis
import importlib.util
import inspect
import textwrap
import types
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

# slot → the signature a student's function must have (the kit's reference has the same)
SLOTS: dict[str, str] = {
    "split": "split(text: str, size: int, overlap: int) -> list[str]  (recursive character splitting, notebook 02)",
    "top_k": "top_k(matrix: ndarray, query: ndarray, k: int) -> list[tuple[int, float]]  (cosine top-k, notebook 03)",
    "bm25": "bm25(query: list[str], documents: list[list[str]], k1: float, b: float) -> ndarray  (notebook 05)",
    "fusion": "fusion(dense: dict[str, float], sparse: dict[str, float], alpha: float) -> dict[str, float]  (05)",
    "rrf": "rrf(rankings: list[list[str]], k: int) -> dict[str, float]  (reciprocal rank fusion, notebook 05)",
    "prompt": "prompt(question: str, passages: list[str]) -> str  (the numbered context and question, notebook 07)",
    "budget": "budget(passages: list[str], room: int, count: Callable[[str], int]) -> list[str]  (notebook 07)",
    "f1": "f1(prediction: str, reference: str) -> float  (SQuAD token F1, notebook 08)",
    "exact_match": "exact_match(prediction: str, reference: str) -> float  (SQuAD EM, notebook 08)",
    "bootstrap": "bootstrap(a: ndarray, b: ndarray, resamples: int, seed: int) -> ndarray  (the resampled mean"
    " differences b - a, notebook 08)",
}

MY_RAG = "my_rag.py"  # the student's own module, kept beside the notebooks (the kernel's working folder)

_chosen: dict[str, Callable[..., Any]] = {}
_calls: Counter[str] = Counter()
_unwritten: set[str] = set()  # slots whose function raised NotImplementedError (said once)


class SlotError(ValueError):
    """An unknown slot, or something that is not a function."""


def use(slot: str, function: Callable[..., Any], quiet: bool = False) -> None:
    """Run the kit on `function` wherever it needs `slot`, for the rest of this process."""
    if slot not in SLOTS:
        raise SlotError(f"no slot {slot!r}; the slots are: {', '.join(SLOTS)}")
    if not callable(function):
        raise SlotError(f"use({slot!r}, …) needs a function with the signature {SLOTS[slot]}")
    _chosen[slot] = function
    _unwritten.discard(slot)
    if not quiet:
        print(f"'{slot}' now runs on your {getattr(function, '__name__', 'function')}: {SLOTS[slot]}")


@contextmanager
def kits_own(enabled: bool = True) -> Iterator[None]:
    """Inside the block every slot runs the kit's own function (yours come back after it): mine against the kit's."""
    if not enabled:
        yield
        return
    saved = dict(_chosen)
    _chosen.clear()
    try:
        yield
    finally:
        _chosen.update(saved)


def yours(slot: str) -> bool:
    """Whether a function of yours runs `slot` (the kit's own runs it otherwise)."""
    return slot in _chosen


def chosen(slot: str, kit_function: Callable[..., Any]) -> Callable[..., Any]:
    """The function in force for `slot`: the one given to `use`, else the kit's own.

    Yours still a stub (it raises NotImplementedError) falls back to the kit's own, said once in one line, so a
    notebook runs to its end before you have written every function.
    """
    function = _chosen.get(slot)
    if function is None:
        return kit_function
    _calls[slot] += 1

    def yours_or_the_kits(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except NotImplementedError:
            if slot not in _unwritten:
                _unwritten.add(slot)
                print(f"'{slot}': your {getattr(function, '__name__', 'function')} is not written yet; the kit's runs")
            return kit_function(*args, **kwargs)

    return yours_or_the_kits


def reset(slot: str | None = None) -> None:
    """Back to the kit's own function for `slot` (every slot when None)."""
    if slot is None:
        _chosen.clear()
        _calls.clear()
    else:
        _chosen.pop(slot, None)
        _calls.pop(slot, None)


def in_use() -> dict[str, str]:
    """The slots that run on a function of yours, with its name."""
    return {slot: getattr(function, "__name__", repr(function)) for slot, function in _chosen.items()}


def calls() -> dict[str, int]:
    """How often the kit has looked up each slot that runs on a function of yours (since `use`)."""
    return dict(_calls)


# --- your RAG in a file of your own ----------------------------------------------------------------------------

HEADER = '''"""My RAG: the functions I wrote in the course's notebooks, each kept here when its check passed.

The kit writes this file (`helpers.mechanisms.keep`); `load_mine()` at the top of a notebook, and the app, put
each function below back in its slot. Edit it if you like: the next `load_mine()` runs your edit. Delete it to
start over with the kit's own functions.
"""

from __future__ import annotations
'''
SLOT_MARK = "# --- slot: "
TABLE_MARK = "# the slot each function fills"


def _names_in(function: Callable[..., Any]) -> set[str]:
    """Every global name `function`'s body (and any function nested in it) reads: not attributes, not locals."""
    names: set[str] = set()
    codes = [function.__code__]  # type: ignore[attr-defined]
    while codes:
        code = codes.pop()
        names |= {op.argval for op in dis.get_instructions(code) if op.opname in ("LOAD_GLOBAL", "LOAD_NAME")}
        codes += [const for const in code.co_consts if isinstance(const, types.CodeType)]
    return names


def _literal(value: object) -> bool:
    """Whether `value` is a short constant its repr writes back (a number, text, or a small container of them)."""
    try:
        return len(repr(value)) < 300 and ast.literal_eval(repr(value)) == value
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False


def _needs(function: Callable[..., Any]) -> tuple[list[str], list[Callable[..., Any]]]:
    """What `function` names from its module: (import lines then constants, your other functions it calls)."""
    imports: set[str] = set()
    constants: set[str] = set()
    helpers: list[Callable[..., Any]] = []
    todo, seen = [function], {function}
    while todo:
        current = todo.pop()
        scope = current.__globals__  # type: ignore[attr-defined]
        for name in sorted(_names_in(current)):
            if name not in scope or hasattr(builtins, name):
                continue
            value = scope[name]
            if isinstance(value, types.ModuleType):
                imports.add(f"import {value.__name__}" + ("" if value.__name__ == name else f" as {name}"))
            elif _literal(value):
                constants.add(f"{name} = {value!r}")
            elif inspect.isfunction(value) and value.__module__ == function.__module__:
                if value not in seen:
                    seen.add(value)
                    helpers.insert(0, value)
                    todo.append(value)
            elif getattr(value, "__module__", None) and getattr(value, "__qualname__", "") == name:
                imports.add(f"from {value.__module__} import {name}")
    return [*sorted(imports), *sorted(constants)], helpers


def _block(slot: str, function: Callable[..., Any]) -> str:
    """The slot's part of my_rag.py: what it imports, the functions it calls, then the function itself."""
    lines, helpers = _needs(function)
    sources = [textwrap.dedent(inspect.getsource(f)).strip() for f in (*helpers, function)]
    body = "\n".join(lines) + ("\n\n\n" if lines else "") + "\n\n\n".join(sources)
    return f"{SLOT_MARK}{slot} ({SLOTS[slot].split('  (')[-1].rstrip(')')}) ---\n{body}\n"


def _blocks(path: Path) -> dict[str, str]:
    """The slot blocks of an existing my_rag.py, by slot."""
    if not path.is_file():
        return {}
    found: dict[str, str] = {}
    for part in path.read_text(encoding="utf-8").split(SLOT_MARK)[1:]:
        slot = part.split(" ", 1)[0]
        body = part.split(TABLE_MARK, 1)[0].rstrip() + "\n"
        found[slot] = SLOT_MARK + body
    return found


def keep(slot: str, function: Callable[..., Any], folder: Path | None = None) -> Path | None:
    """Keep `function` as your `slot` in my_rag.py (in `folder`, default the working folder); None if it cannot be.

    A function typed at a prompt has no source to keep; one that is the kit's own is not written either.
    """
    if slot not in SLOTS:
        raise SlotError(f"no slot {slot!r}; the slots are: {', '.join(SLOTS)}")
    if getattr(function, "__module__", "").startswith("helpers."):
        return None
    try:
        block = _block(slot, function)
    except (OSError, TypeError):
        return None
    path = Path(folder or Path.cwd()) / MY_RAG
    blocks = _blocks(path) | {slot: block}
    ordered = [blocks[name] for name in SLOTS if name in blocks]
    names = {name: _defined_name(blocks[name]) for name in SLOTS if name in blocks}
    table = "\n".join(f"    {name!r}: {function_name}," for name, function_name in names.items())
    text = HEADER + "\n\n" + "\n\n".join(ordered) + f"\n\n{TABLE_MARK}\nSLOTS = {{\n{table}\n}}\n"
    path.write_text(text, encoding="utf-8")
    print(f"kept in {path.name}: your {names[slot]} as '{slot}'")
    return path


def _defined_name(block: str) -> str:
    """The last function a block defines (the slot's own; the ones before are what it calls)."""
    return [line[4:].split("(", 1)[0] for line in block.splitlines() if line.startswith("def ")][-1]


def load_mine(folder: Path | None = None, quiet: bool = False) -> dict[str, str]:
    """Put every function of your my_rag.py in its slot (and say which); {} when you have none yet."""
    path = Path(folder or Path.cwd()) / MY_RAG
    if not path.is_file():
        if not quiet:
            print(f"no {MY_RAG} yet: the kit's own functions run every slot (a passed exercise keeps yours)")
        return {}
    spec = importlib.util.spec_from_file_location("my_rag", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    try:
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    except Exception as error:  # the student's file: any error is theirs to see, in one line
        print(f"{path} could not be loaded ({type(error).__name__}: {error}); the kit's own functions run instead")
        return {}
    loaded = {}
    for slot, function in getattr(module, "SLOTS", {}).items():
        if slot not in SLOTS or not callable(function):
            continue
        missing = sorted(n for n in _names_in(function) if n not in vars(module) and not hasattr(builtins, n))
        if missing:
            print(f"{slot}: your {function.__name__} uses {', '.join(missing)}, which {MY_RAG} does not define; "
                  "the kit's own runs (define it in the file, or pass the exercise again)")
            continue
        use(slot, function, quiet=True)
        loaded[slot] = function.__name__
    if not quiet:
        kit = [slot for slot in SLOTS if slot not in loaded]
        mine = ", ".join(f"{slot} → {name}" for slot, name in loaded.items()) or "none yet"
        print(f"your RAG ({path.name}): {mine}" + (f"; the kit's own: {', '.join(kit)}" if kit else ""))
    return loaded
