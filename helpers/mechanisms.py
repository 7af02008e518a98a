"""Your functions in the kit's place: `use("fusion", my_fusion)` and the pipeline runs on your code.

Each stage's core is a *slot*, a function with a fixed signature that stages look up at call time (`chosen`);
`keep` saves a function that passed its check in `my_rag.py`, and `load_mine()` puts it back in a new kernel.
What it leaves out: checking that your function is right (the exercises' checks do that before `keep`).
"""

from __future__ import annotations

import ast
import builtins
import dis
import inspect
import textwrap
import types
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
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

MEASURES = ("exact_match", "f1", "bootstrap")  # the slots that score answers: a shared score runs the kit's
MY_RAG = "my_rag.py"  # the student's own module, kept beside the notebooks (the kernel's working folder)

_chosen: dict[str, Callable[..., Any]] = {}
_calls: Counter[str] = Counter()
_unwritten: set[str] = set()  # slots whose function raised NotImplementedError (said once)
_wrappers: dict[tuple[str, Callable[..., Any], Callable[..., Any]], Callable[..., Any]] = {}
_kit_only: ContextVar[frozenset[str] | set[str]] = ContextVar("kit_only", default=frozenset())  # kits_own's slots
_loaded: set[str] = set()  # the slots the last load_mine filled


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
def kits_own(enabled: bool = True, slots: tuple[str, ...] = tuple(SLOTS)) -> Iterator[None]:
    """Inside the block `slots` (default: all) run the kit's own functions, in this thread only."""
    token = _kit_only.set(_kit_only.get() | set(slots)) if enabled else None
    try:
        yield
    finally:
        if token is not None:
            _kit_only.reset(token)


def yours(slot: str) -> bool:
    """Whether a function of yours runs `slot` (the kit's own runs it otherwise, and once yours fell back)."""
    return slot in _chosen and slot not in _kit_only.get() and slot not in _unwritten


def chosen(slot: str, kit_function: Callable[..., Any]) -> Callable[..., Any]:
    """The function in force for `slot`: the one given to `use`, else the kit's own (also while yours is a stub)."""
    function = _chosen.get(slot)
    if function is None or slot in _kit_only.get():
        return kit_function
    _calls[slot] += 1
    key = (slot, function, kit_function)
    if key not in _wrappers:  # one wrapper per pair, so what is cached by function (BM25 scores) stays cached
        _wrappers[key] = _falling_back(slot, function, kit_function)
    return _wrappers[key]


def _falling_back(slot: str, function: Callable[..., Any], kit_function: Callable[..., Any]) -> Callable[..., Any]:
    """`function`, or the kit's when `function` itself still raises NotImplementedError (a stub: said once)."""

    def yours_or_the_kits(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except NotImplementedError as error:
            if not _raised_by(function, error):
                raise  # something your function called raised it: that is an error to see, not a stub
            if slot not in _unwritten:
                _unwritten.add(slot)
                print(f"'{slot}': your {getattr(function, '__name__', 'function')} is not written yet; the kit's runs")
            return kit_function(*args, **kwargs)

    return yours_or_the_kits


def _raised_by(function: Callable[..., Any], error: BaseException) -> bool:
    """Whether `error` was raised in `function`'s own body (its stub), not deeper down."""
    frame = error.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    return frame is not None and frame.tb_frame.f_code is getattr(function, "__code__", None)


def reset(slot: str | None = None) -> None:
    """Back to the kit's own function for `slot` (every slot when None)."""
    if slot is None:
        _chosen.clear()
        _calls.clear()
        _wrappers.clear()
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
each function below back in its slot. Edit a slot's block if you like (the kit rewrites the rest): the next
`load_mine()` runs your edit. Delete the file to start over with the kit's own functions.
"""

from __future__ import annotations
'''
SLOT_MARK = "# --- slot: "
TABLE_MARK = "# the slot each function fills"


def _names_in(function: Callable[..., Any]) -> set[str]:
    """Every global name `function` reads, in its body, nested functions, defaults and decorators."""
    names = _names_in_header(function)
    codes = [function.__code__]  # type: ignore[attr-defined]
    while codes:
        code = codes.pop()
        names |= {op.argval for op in dis.get_instructions(code) if op.opname in ("LOAD_GLOBAL", "LOAD_NAME")}
        codes += [const for const in code.co_consts if isinstance(const, types.CodeType)]
    return names


def _names_in_header(function: Callable[..., Any]) -> set[str]:
    """The names `function`'s default values and decorators use (its `def` line runs them)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError):
        return set()
    definition = tree.body[0]
    if not isinstance(definition, ast.FunctionDef):
        return set()
    header = [*definition.args.defaults, *filter(None, definition.args.kw_defaults), *definition.decorator_list]
    return {node.id for part in header for node in ast.walk(part) if isinstance(node, ast.Name)}


def _literal(value: object) -> bool:
    """Whether `value` is a short constant its repr writes back (a number, text, or a small container of them)."""
    try:
        return len(repr(value)) < 300 and ast.literal_eval(repr(value)) == value
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False


class CannotKeep(ValueError):
    """A function whose file would not run on its own (a lambda, a closure, a notebook object it uses)."""


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
            elif getattr(value, "__qualname__", "") == name and getattr(value, "__module__", "__main__") != "__main__":
                imports.add(f"from {value.__module__} import {name}")
            else:
                raise CannotKeep(f"it uses {name}, which only this notebook holds: make it a constant or a function")
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
    parts = path.read_text(encoding="utf-8").split(SLOT_MARK)[1:]
    return {part.split(" ", 1)[0]: SLOT_MARK + part.split(TABLE_MARK, 1)[0].rstrip() + "\n" for part in parts}


def keep(slot: str, function: Callable[..., Any], folder: Path | None = None) -> Path | None:
    """Keep `function` as your `slot` in my_rag.py (in `folder`, default the working folder); None if it cannot be."""
    if slot not in SLOTS:
        raise SlotError(f"no slot {slot!r}; the slots are: {', '.join(SLOTS)}")
    if getattr(function, "__module__", "").startswith("helpers."):
        return None
    try:
        if getattr(function, "__name__", "<lambda>") == "<lambda>" or getattr(function, "__closure__", None):
            raise CannotKeep("a lambda or a function defined inside another has no file of its own: write it with def")
        block = _block(slot, function)
    except (OSError, TypeError, CannotKeep) as why:
        print(f"not kept in {MY_RAG}: your {getattr(function, '__name__', 'function')} ({why})")
        return None
    path = Path(folder or Path.cwd()) / MY_RAG
    others = _blocks(path)
    if clash := _clash(block, {name: text for name, text in others.items() if name != slot}):
        print(f"not kept in {MY_RAG}: {clash}; rename one of the two")
        return None
    blocks = others | {slot: block}
    ordered = [blocks[name] for name in SLOTS if name in blocks]
    names = {name: _defined_name(blocks[name]) for name in SLOTS if name in blocks}
    table = "\n".join(f"    {name!r}: {function_name}," for name, function_name in names.items())
    text = HEADER + "\n\n" + "\n\n".join(ordered) + f"\n\n{TABLE_MARK}\nSLOTS = {{\n{table}\n}}\n"
    path.write_text(text, encoding="utf-8")
    print(f"kept in {path.name}: your {names[slot]} as '{slot}'")
    return path


def _definitions(block: str) -> dict[str, str]:
    """The top-level names a block defines (functions and constants), each with its source."""
    found = {}
    for node in ast.parse(block).body:
        if isinstance(node, ast.FunctionDef):
            names = [node.name]
        else:
            names = [target.id for target in getattr(node, "targets", []) if isinstance(target, ast.Name)]
        found |= dict.fromkeys(names, ast.get_source_segment(block, node) or "")
    return found


def _clash(block: str, others: dict[str, str]) -> str:
    """The first name `block` defines that another slot's block defines differently ("" when none)."""
    mine = _definitions(block)
    for slot, text in others.items():
        for name, source in _definitions(text).items():
            if name in mine and mine[name] != source:
                return f"{name} is defined differently by your '{slot}'"
    return ""


def _defined_name(block: str) -> str:
    """The last function a block defines (the slot's own; the ones before are what it calls)."""
    return [line[4:].split("(", 1)[0] for line in block.splitlines() if line.startswith("def ")][-1]


def load_mine(folder: Path | None = None, quiet: bool = False) -> dict[str, str]:
    """Put every function of your my_rag.py in its slot (block by block if the file fails as a whole); {} if none."""
    for slot in _loaded:  # what the last load filled: this file decides again
        _chosen.pop(slot, None)
    _loaded.clear()
    path = Path(folder or Path.cwd()) / MY_RAG
    if not path.is_file():
        if not quiet:
            print(f"no {MY_RAG} yet: the kit's own functions run every slot (a passed exercise keeps yours)")
        return {}
    text = path.read_text(encoding="utf-8")
    try:
        scopes = {"": _run(text, path)}
    except Exception as error:  # the student's file: any error is theirs to see, in one line each
        print(f"{path} does not run as a whole ({type(error).__name__}: {error}); reading it slot by slot")
        scopes = {}
        for slot, block in _blocks(path).items():
            try:
                scopes[slot] = _run(HEADER + block + f"\nSLOTS = {{{slot!r}: {_defined_name(block)}}}\n", path)
            except Exception as why:
                print(f"{slot}: its block does not run ({type(why).__name__}: {why}); the kit's own runs")
    loaded = {}
    for scope in scopes.values():
        for slot, function in scope.get("SLOTS", {}).items():
            if slot not in SLOTS or not callable(function):
                continue
            missing = sorted(n for n in _names_in(function) if n not in scope and not hasattr(builtins, n))
            if missing:
                print(
                    f"{slot}: your {function.__name__} uses {', '.join(missing)}, which {MY_RAG} does not define; "
                    "the kit's own runs (define it in the file, or pass the exercise again)"
                )
                continue
            use(slot, function, quiet=True)
            loaded[slot] = function.__name__
    _loaded.update(loaded)
    if not quiet:
        kit = [slot for slot in SLOTS if slot not in loaded]
        mine = ", ".join(f"{slot} → {name}" for slot, name in loaded.items()) or "none yet"
        print(f"your RAG ({path.name}): {mine}" + (f"; the kit's own: {', '.join(kit)}" if kit else ""))
    return loaded


def _run(text: str, path: Path) -> dict[str, Any]:
    """The names `text` defines when run as the module my_rag (so its functions have source for `keep`)."""
    scope: dict[str, Any] = {"__name__": "my_rag", "__file__": str(path)}
    exec(compile(text, str(path), "exec"), scope)
    return scope
