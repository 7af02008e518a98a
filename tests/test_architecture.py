"""The dependency rule of `helpers/` (written at the top of `helpers/__init__.py`), checked on the source.

Every `import` of a helpers module inside `helpers/**/*.py` is an arrow, found with `ast` anywhere in the
file: at the top, inside functions (lazy imports are how upward arrows hide) and under `TYPE_CHECKING`.
An arrow may point to the same layer or down, never up, and the arrows must not close a circle.
Importing a package's child (`helpers.retrieval.bm25`) counts as an arrow to that child, not to the package
`__init__` that Python runs on the way.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

HELPERS = Path(__file__).resolve().parents[1] / "helpers"

STAGES = ("parsing", "chunking", "embedding", "store", "retrieval", "rerank", "query", "generation")
# A stage's notebook experiments and exercise checks live beside it (same names in every stage) but sit
# above all the stages: they measure a stage with the ones around it, and never import the pipeline.
EXPERIMENTS = ("compare", "report", "checks", "views", "measure", "table_retrieval", "guard_eval", "enrich_compare")

FOUNDATION = ("helpers.config", "helpers.types", "helpers.models", "helpers.llm", "helpers.corpus", "helpers.metrics")
# (layer, module prefixes), bottom first; a module belongs to the layer of its longest matching prefix.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("foundation", FOUNDATION),
    *[(stage, (f"helpers.{stage}",)) for stage in STAGES],
    ("experiments", tuple(f"helpers.{stage}.{name}" for stage in STAGES for name in EXPERIMENTS)),
    ("pipeline", ("helpers.pipeline",)),
    ("applications", ("helpers.evaluation", "helpers.sources", "helpers.testset")),
    ("byod", ("helpers.byod",)),
    ("interfaces", ("helpers.app", "helpers.classroom", "helpers.__main__", "helpers")),
]
RANK = {name: rank for rank, (name, _) in enumerate(LAYERS)}

# Upward arrows still to remove (importer, imported). It may only shrink: an arrow listed here that no
# longer exists fails the test as well, so the list is always the exact debt.
ALLOWED_UPWARD: set[tuple[str, str]] = set()


def module_name(path: Path) -> str:
    parts = list(path.relative_to(HELPERS.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(HELPERS.rglob("*.py"))}


def layer_of(module: str) -> str:
    best, length = "", -1
    for name, prefixes in LAYERS:
        for prefix in prefixes:
            if prefix == "helpers" and module != "helpers":  # the package itself, not everything in it
                continue
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > length:
                best, length = name, len(prefix)
    if not best:
        raise AssertionError(f"{module} is in no layer: add it to LAYERS in tests/test_architecture.py")
    return best


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
    new = sorted(f"{a} ({layer_of(a)}) -> {b} ({layer_of(b)})" for a, b in upward - ALLOWED_UPWARD)
    assert not new, "upward imports:\n" + "\n".join(new)
    assert not ALLOWED_UPWARD - upward, f"gone, remove from ALLOWED_UPWARD: {sorted(ALLOWED_UPWARD - upward)}"


def test_experiments_never_import_the_pipeline() -> None:
    experiments = [a for a in GRAPH if layer_of(a) == "experiments"]
    assert not [a for a in experiments if "helpers.pipeline" in GRAPH[a]]


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_opens_with_what_it_does_and_leaves_out(module: str) -> None:
    doc = ast.get_docstring(ast.parse(MODULES[module].read_text(encoding="utf-8"))) or ""
    assert doc, f"{module} has no module docstring"
    assert "leave" in doc.lower() or "left out" in doc.lower(), f"{module}: say what it leaves out"


def test_the_rule_is_written_in_the_package() -> None:
    doc = ast.get_docstring(ast.parse((HELPERS / "__init__.py").read_text(encoding="utf-8"))) or ""
    for name, _ in LAYERS:
        assert name in doc, f"layer {name!r} is not described in helpers/__init__.py"
