"""The dependency rule of `helpers/` (written at the top of `helpers/__init__.py`), checked on the source.

Every `import` of a helpers module inside `helpers/**/*.py` is an arrow, found with `ast` anywhere in the
file: at the top, inside functions (lazy imports are how upward arrows hide) and under `TYPE_CHECKING`.
An arrow may point to the same layer or down, never up, and the arrows must not close a circle.
Importing a package's child (`helpers.retrieval.bm25`) counts as an arrow to that child, not to the package
`__init__` that Python runs on the way.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

HELPERS = Path(__file__).resolve().parents[1] / "helpers"

STAGES = ("parsing", "chunking", "embedding", "store", "retrieval", "rerank", "query", "generation")
FOUNDATION = ("config", "types", "mechanisms", "models", "llm", "corpus", "metrics")
# (layer, top-level units of helpers/: a folder or a single module), bottom first. A module belongs to the layer
# of its unit; a unit is a folder, so a new file is in the layer of the folder it is put in.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("foundation", FOUNDATION),
    *[(stage, (stage,)) for stage in STAGES],
    ("lab", ("lab",)),  # the experiments notebooks run to compare a stage's choices; above every stage
    ("pipeline", ("core", "pipeline")),  # core: the visible loop of notebook 00; pipeline: its upgrade
    ("applications", ("evaluation", "sources", "testset")),
    ("byod", ("byod",)),
    ("exercises", ("exercises",)),  # the exercises' self-checks: they may use any measurement below
    ("interfaces", ("app", "classroom", "__main__", "")),  # "": the package itself (helpers/__init__.py)
]
RANK = {name: rank for rank, (name, _) in enumerate(LAYERS)}
UNIT_LAYER = {unit: name for name, units in LAYERS for unit in units}

def module_name(path: Path) -> str:
    parts = list(path.relative_to(HELPERS.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(HELPERS.rglob("*.py"))}


def unit_of(module: str) -> str:
    """The top-level folder or module of helpers/ that holds `module` ("" for the package itself)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def layer_of(module: str) -> str:
    unit = unit_of(module)
    if unit not in UNIT_LAYER:
        raise AssertionError(f"{unit!r} ({module}) is in no layer: add it to LAYERS in tests/test_architecture.py")
    return UNIT_LAYER[unit]


def known(name: str) -> str | None:
    """The helpers module an import names (a name imported from a module resolves to that module)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str) -> set[str]:
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            children = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in MODULES]
            names = children or [base]
        else:
            continue
        for name in names:
            if name.startswith("helpers") and (target := known(name)) and target != module:
                found.add(target)
    return found


GRAPH = {module: imports_of(module) for module in MODULES}


def upward_arrows() -> set[tuple[str, str]]:
    return {(a, b) for a, targets in GRAPH.items() for b in targets if RANK[layer_of(b)] > RANK[layer_of(a)]}


def cycles() -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), each a circle of imports."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in GRAPH[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while (top := stack.pop()) != node:
                group.append(top)
            group.append(node)
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(GRAPH):
        if node not in index:
            visit(node)
    return groups


def test_every_module_has_a_layer() -> None:
    for module in MODULES:
        layer_of(module)


def test_no_import_cycles() -> None:
    assert cycles() == []


def test_no_upward_imports() -> None:
    upward = upward_arrows()
    found = sorted(f"{a} ({layer_of(a)}) -> {b} ({layer_of(b)})" for a, b in upward)
    assert not found, "upward imports:\n" + "\n".join(found)


def folder_arrows() -> set[tuple[str, str]]:
    """(importing unit, imported unit) for every arrow that leaves its folder."""
    return {(unit_of(a), unit_of(b)) for a, targets in GRAPH.items() for b in targets if unit_of(a) != unit_of(b)}


def test_no_two_folders_import_each_other() -> None:
    arrows = folder_arrows()
    both_ways = sorted({tuple(sorted(pair)) for pair in arrows if pair[::-1] in arrows})
    assert not both_ways, f"folders that import each other: {both_ways}"


def test_stages_import_only_foundation_and_earlier_stages() -> None:
    allowed = {stage: {*FOUNDATION, *STAGES[:i]} for i, stage in enumerate(STAGES)}
    wrong = sorted(f"{a} -> {b}" for a, b in folder_arrows() if a in allowed and b not in allowed[a])
    assert not wrong, "a stage imports a later stage or a layer above the stages:\n" + "\n".join(wrong)


LEAVES = ("lab", "exercises")  # experiments and self-checks: what the product needs from them lives below them


def test_experiments_and_exercises_are_leaves() -> None:
    """Nothing in helpers/ outside lab/ and exercises/ imports them (the interfaces included)."""
    wrong = sorted(f"{a} -> {b}" for a, b in folder_arrows() if b in LEAVES and a not in LEAVES)
    assert not wrong, "lab/ and exercises/ are leaves; move what these need to a stage or evaluation:\n" + "\n".join(
        wrong
    )


STAGE_WORDS = ("compare", "report", "check", "measure", "sweep", "benchmark")


@pytest.mark.parametrize("stage", STAGES)
def test_stage_folders_hold_only_their_stage(stage: str) -> None:
    """Experiments go to lab/, self-checks to exercises/: no file of a stage folder is named for either."""
    names = [p.stem for p in (HELPERS / stage).glob("*.py")]
    assert not [n for n in names if any(word in n for word in STAGE_WORDS)], f"helpers/{stage}: {names}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_opens_with_what_it_does_and_leaves_out(module: str) -> None:
    doc = ast.get_docstring(ast.parse(MODULES[module].read_text(encoding="utf-8"))) or ""
    assert doc, f"{module} has no module docstring"
    assert "leave" in doc.lower() or "left out" in doc.lower(), f"{module}: say what it leaves out"


def test_the_rule_is_written_in_the_package() -> None:
    doc = ast.get_docstring(ast.parse((HELPERS / "__init__.py").read_text(encoding="utf-8"))) or ""
    for name, _ in LAYERS:
        assert name in doc, f"layer {name!r} is not described in helpers/__init__.py"


def path_strings(module: str) -> list[str]:
    """The string constants of a module that are not docstrings (the ones code can build a path from)."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def reads_bench_results(strings: list[str]) -> bool:
    return any(s == "bench" or "bench/results" in s for s in strings)


def test_the_library_never_reads_what_the_benchmarks_wrote() -> None:
    """bench/ sits above the package: a notebook or a benchmark passes a results path in, helpers never builds one."""
    assert reads_bench_results(['REPO_ROOT / "bench"', "bench"])  # the check itself can fail
    found = [module for module in MODULES if reads_bench_results(path_strings(module))]
    assert not found, f"modules that build a path into bench/: {found}"


SETTINGS_READERS = ("get_settings", "load_settings")  # what reads the process's configuration


def settings_reads(source: str) -> list[int]:
    """Lines that call get_settings() or load_settings(), outside an `if __name__ == "__main__":` block."""
    tree = ast.parse(source)
    entry = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test)
        for inner in ast.walk(node)
    }
    return sorted(
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and id(node) not in entry
        and (getattr(node.func, "id", None) or getattr(node.func, "attr", None)) in SETTINGS_READERS
    )


def test_no_stage_or_foundation_module_reads_the_settings_itself() -> None:
    """A stage (and the foundation below it) is handed its settings, or its section of them, by its caller."""
    assert settings_reads("s = x or get_settings()\nt = config.load_settings()") == [1, 2]  # the check can fail
    assert settings_reads('if __name__ == "__main__":\n    main(load_settings())') == []  # a command line may
    units = {*STAGES, *FOUNDATION} - {"config"}  # config defines get_settings (and show() falls back to it)
    found = {
        module: lines
        for module, path in MODULES.items()
        if unit_of(module) in units and (lines := settings_reads(path.read_text(encoding="utf-8")))
    }
    assert not found, f"modules that read the settings instead of being given them (module: lines): {found}"


def borrowed_names() -> dict[str, dict[str, str]]:
    """For each package, the names its `__init__` imports from a module outside the package, and that module."""
    found: dict[str, dict[str, str]] = {}
    for module, path in MODULES.items():
        if path.name != "__init__.py":
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            outside = isinstance(node, ast.ImportFrom) and (node.module or "").startswith("helpers")
            if outside and node.module != module and not node.module.startswith(module + "."):
                for alias in node.names:
                    found.setdefault(module, {})[alias.asname or alias.name] = node.module
    return found


def test_no_name_is_imported_through_a_second_package() -> None:
    """One name, one home: code, tests, benchmarks and notebooks import a name from the package that defines it."""
    borrowed = borrowed_names()
    sources = [*HELPERS.parent.glob("tests/**/*.py"), *HELPERS.parent.glob("bench/*.py"), *MODULES.values()]
    texts = {path: path.read_text(encoding="utf-8") for path in sources}
    for notebook in [*HELPERS.parent.glob("notebooks/*.ipynb"), *HELPERS.parent.glob("notebooks/appendix/*.ipynb")]:
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        texts[notebook] = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    wrong = []
    for path, text in texts.items():
        try:
            tree = ast.parse(text)
        except SyntaxError:  # a notebook's shell escape
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in borrowed:
                for alias in node.names:
                    if alias.name in borrowed[node.module]:
                        home = borrowed[node.module][alias.name]
                        wrong.append(f"{path.name}: {alias.name} from {node.module} (its home: {home})")
    assert not wrong, "\n".join(sorted(wrong))


def graph_figures() -> dict[str, int]:
    """The size of helpers/: modules, import arrows between them, and lines of code."""
    lines = sum(len(path.read_text(encoding="utf-8").splitlines()) for path in MODULES.values())
    return {"modules": len(MODULES), "import_edges": sum(map(len, GRAPH.values())), "lines": lines}


if __name__ == "__main__":  # .venv/bin/python tests/test_architecture.py
    print(json.dumps(graph_figures()))
