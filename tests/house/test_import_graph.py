"""The architecture as the import graph shows it: no circles, and no import running back up.

Layers from the bottom: checkpoints (where weights come from), specialists (models, engine,
typed outputs), then adapters' core (questions, tasks, solver, registry, settings, scoring),
markers, datasets, rules, run, report, and at the top train and the CLI. A module may import its
own layer and those below. Imports under `if TYPE_CHECKING:` are annotations, not dependencies.
"""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("checkpoints", "specialists", "adapters", "train")
# (layer, module prefixes), bottom first
LAYERS = [
    ("checkpoints", ("checkpoints",)),
    ("specialists", ("specialists",)),
    ("core", ("adapters.core", "adapters")),  # "adapters" itself: the package's __init__
    ("markers", ("adapters.markers",)),
    ("datasets", ("adapters.datasets",)),
    ("rules", ("adapters.rules",)),
    ("run", ("adapters.run",)),
    ("report", ("adapters.report",)),
    ("train", ("train",)),
    ("cli", ("adapters.cli",)),
]
# the entry point `python -m specialists` hands over to the CLI: a shim, not part of the layer
ENTRY_POINTS = {"specialists.__main__"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for package in PACKAGES for p in (REPO / package).rglob("*.py")}


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    annotation_only = {id(sub) for node in ast.walk(tree)
                       if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
                       for sub in ast.walk(node)}
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in annotation_only:
            continue
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolved against this module's package
                package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _layer(module: str) -> int:
    best, index = -1, -1
    for i, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, index = len(prefix), i
    assert index >= 0, f"{module} belongs to no layer: add it to LAYERS"
    return index


def test_no_module_imports_a_layer_above_its_own():
    upward = [f"{a} ({LAYERS[_layer(a)][0]}) -> {b} ({LAYERS[_layer(b)][0]})"
              for a, targets in _graph().items() if a not in ENTRY_POINTS
              for b in sorted(targets) if _layer(b) > _layer(a)]
    assert not upward, "imports running back up:\n" + "\n".join(sorted(upward))


def test_the_import_graph_has_no_circle():
    try:
        graphlib.TopologicalSorter(_graph()).prepare()
    except graphlib.CycleError as error:
        raise AssertionError(f"modules importing each other: {' -> '.join(error.args[1])}") from None


def test_imports_are_absolute():
    relative = [f"{name}: from {'.' * node.level}{node.module or ''} import ..."
                for name, path in _modules().items()
                for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                if isinstance(node, ast.ImportFrom) and node.level]
    assert not relative, "write these imports absolute:\n" + "\n".join(relative)


def test_no_module_is_over_600_lines():
    long = {name: n for name, path in _modules().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > 600}
    assert not long, f"split these by concept: {long}"


def test_the_layer_check_sees_an_upward_import(tmp_path):
    """The walk above would pass vacuously if it found no imports; it finds the CLI's."""
    graph = _graph()
    assert "adapters.run.runner" in graph["adapters.cli.run"] or any(
        b.startswith("adapters.run") for b in graph["adapters.cli.run"])
    assert _layer("adapters.cli.run") > _layer("adapters.run.runner") > _layer("adapters.core.solver")
