"""The package's layers point inward only, for every import, inside functions too.

Each layer is one top-level folder of the repository, installed into the one namespace:

    mancala_envs/   env         (mancala_envs: core, games, env, registry, gym, vector, records, render)
      <- agents/      agents      (mancala_envs.agents: move pickers, agents/learned/)
        <- evaluation/  evaluation  (mancala_envs.evaluation: matches, suites, ratings, analysis)
          <- training/    training    (mancala_envs.training)
            <- cli/         cli         (mancala_envs.cli: the command line, the only code that imports every layer)

The test reads the source of every module (its AST, nothing is imported) and checks:

* a module's layer by name is its folder's layer (``mancala_envs.cli`` lives in ``cli/`` and
  nothing of another layer hides inside ``mancala_envs/``), so a path-based tool sees the layers;
* no module imports a module of a higher layer, and the folders' import graph has no cycle;
* nothing imports the generic top-level names ``agents``, ``evaluation``, ``training`` or ``cli``;
* an import inside a function names only an optional heavy dependency (torch, SB3, pygame,
  matplotlib, yaml, ray, ...), the standard library, or a module of ours that imports such a
  dependency at its top (``render.draw`` needs pygame): any other lazy import of our own
  code hides a cycle or a layer violation;
* the imports between our modules form no cycle.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# The repository's folders and the import package each installs as (pyproject's package-dir).
SOURCE_FOLDERS = {
    "mancala_envs": "mancala_envs",
    "agents": "mancala_envs.agents",
    "evaluation": "mancala_envs.evaluation",
    "training": "mancala_envs.training",
    "cli": "mancala_envs.cli",
}

LAYERS = ("env", "agents", "evaluation", "training", "cli")

# The layer folders' own names, which must never be importable at the top level.
GENERIC_NAMES = ("agents", "evaluation", "training", "cli")

# The layer each top-level folder holds, in import order.
FOLDER_LAYER = {"mancala_envs": "env", "agents": "agents", "evaluation": "evaluation", "training": "training",
                "cli": "cli"}

# Optional heavy dependencies: the only third-party imports allowed inside functions.
LAZY_ALLOWED = {
    "torch", "stable_baselines3", "sb3_contrib", "pygame", "matplotlib", "yaml", "ray", "PIL", "rich",
    "tensorboard", "open_spiel", "pyspiel",
}


def module_name(path: Path) -> str:
    relative = path.relative_to(ROOT)
    parts = list(relative.with_suffix("").parts)
    parts[0] = SOURCE_FOLDERS[parts[0]]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_modules() -> dict[str, Path]:
    modules = {}
    for folder in SOURCE_FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            modules[module_name(path)] = path
    return modules


MODULES = source_modules()


def layer_of(module: str) -> str:
    """The layer a module's name puts it in."""
    for layer in ("cli", "training", "evaluation", "agents"):
        if module == f"mancala_envs.{layer}" or module.startswith(f"mancala_envs.{layer}."):
            return layer
    if module == "mancala_envs.__main__":
        return "cli"
    return "env"


def folder_of(module: str) -> str:
    """The top-level folder of the repository that holds a module's source."""
    return MODULES[module].relative_to(ROOT).parts[0]


def resolve(module: str, path: Path, node: ast.ImportFrom) -> str:
    """The absolute module name of a ``from ... import`` (relative imports resolved)."""
    if node.level == 0:
        return node.module or ""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def imports_of(module: str, path: Path) -> list[tuple[str, int, bool]]:
    """``(imported module, line, inside a function)`` for every import of ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[str, int, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            nested = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                found.extend((alias.name, child.lineno, in_function) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = resolve(module, path, child)
                for alias in child.names:
                    # "from package import submodule" imports the submodule
                    target = f"{base}.{alias.name}"
                    found.append((target if target in MODULES else base, child.lineno, in_function))
            visit(child, nested)

    visit(tree, False)
    return found


def ours(name: str) -> str | None:
    """The module of this package that ``name`` refers to (its nearest known prefix), or None."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def edges() -> list[tuple[str, str, int, bool]]:
    out = []
    for module, path in MODULES.items():
        for target, line, lazy in imports_of(module, path):
            out.append((module, target, line, lazy))
    return out


EDGES = edges()


def where(module: str, line: int) -> str:
    return f"{MODULES[module].relative_to(ROOT)}:{line}"


def test_the_source_tree_is_read():
    # the walk sees every layer and the modules the rest of this file reasons about
    assert {layer_of(m) for m in MODULES} == set(LAYERS)
    assert {"mancala_envs.core.game", "mancala_envs.agents.search", "mancala_envs.agents.learned.learned_eval",
            "mancala_envs.evaluation.arena", "mancala_envs.training.train", "mancala_envs.cli"} <= set(MODULES)
    assert any(lazy for _, _, _, lazy in EDGES), "imports inside functions must be seen"


def test_each_folder_holds_one_layer():
    """A module's layer by name is the layer of the folder it lives in."""
    bad = [f"{MODULES[m].relative_to(ROOT)}: module {m} ({layer_of(m)}) sits in the {FOLDER_LAYER[folder_of(m)]} "
           f"folder {folder_of(m)}/" for m in MODULES if layer_of(m) != FOLDER_LAYER[folder_of(m)]]
    assert not bad, "\n".join(bad)
    # no top-level folder of Python source is left out of the layer map
    stray = sorted(p.parent.relative_to(ROOT).parts[0] for p in ROOT.glob("*/__init__.py")
                   if p.parent.name not in SOURCE_FOLDERS and p.parent.name not in ("tests", "configs"))
    assert not stray, f"package folders outside the layers: {stray}"


def folder_edges() -> set[tuple[str, str]]:
    """(importing folder, imported folder) for every import between two top-level folders."""
    out = set()
    for module, target, _, _ in EDGES:
        target_module = ours(target)
        if target_module and folder_of(target_module) != folder_of(module):
            out.add((folder_of(module), folder_of(target_module)))
    return out


def test_folders_import_inward_only():
    """By physical folder: no folder imports a folder of a higher layer, so the folder graph has no cycle
    (mancala_envs/ imports none of agents/, evaluation/, training/, cli/; agents/ none above it)."""
    order = list(FOLDER_LAYER)
    bad = sorted(f"{a}/ imports {b}/" for a, b in folder_edges() if order.index(b) > order.index(a))
    assert not bad, "folders that import outward:\n" + "\n".join(bad)
    # the check above is not empty: the layers do use the ones below them
    assert {("agents", "mancala_envs"), ("evaluation", "agents"), ("training", "evaluation"),
            ("cli", "training")} <= folder_edges()


def test_no_import_of_a_higher_layer():
    bad = []
    for module, target, line, _ in EDGES:
        target_module = ours(target)
        if target_module and LAYERS.index(layer_of(target_module)) > LAYERS.index(layer_of(module)):
            bad.append(f"{where(module, line)}: {layer_of(module)} module {module} imports {target_module} "
                       f"({layer_of(target_module)})")
    assert not bad, "imports that point outward:\n" + "\n".join(bad)


def test_no_generic_top_level_names():
    bad = [f"{where(m, line)}: imports {t}" for m, t, line, _ in EDGES if t.split(".")[0] in GENERIC_NAMES]
    assert not bad, "\n".join(bad)


def needs_heavy_dependency(module: str) -> bool:
    """True for a module of ours that needs an optional heavy dependency as it is imported:
    it imports one at its top, or calls a ``require_*`` loader there (``pygame = require_pygame()``)."""
    if any(not lazy and target.split(".")[0] in LAZY_ALLOWED for m, target, _, lazy in EDGES if m == module):
        return True
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    return any(isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
               and getattr(node.value.func, "id", "").startswith("require_") for node in tree.body)


def test_lazy_imports_are_only_for_heavy_optional_dependencies():
    stdlib = set(sys.stdlib_module_names)
    bad = []
    for module, target, line, lazy in EDGES:
        top = target.split(".")[0]
        heavy = top in LAZY_ALLOWED or (ours(target) is not None and needs_heavy_dependency(ours(target)))
        if lazy and not heavy and top not in stdlib:
            bad.append(f"{where(module, line)}: {module} imports {target} inside a function")
    assert not bad, "imports inside functions (only optional heavy dependencies may be imported lazily):\n" + "\n".join(bad)


def test_no_import_cycles():
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for module, target, _, _ in EDGES:
        target_module = ours(target)
        # importing a.b.c runs the __init__ of a and a.b too; those implicit edges are not cycles of ours
        if target_module and target_module != module and not module.startswith(target_module + "."):
            graph[module].add(target_module)
    cycles = []
    state: dict[str, int] = {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join(stack[stack.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


@pytest.mark.parametrize("name", GENERIC_NAMES)
def test_generic_names_are_not_installed(name, tmp_path):
    """Outside the repository root, only mancala_envs is importable."""
    import subprocess

    code = (f"import importlib.util, mancala_envs.agents, mancala_envs.evaluation, mancala_envs.training, mancala_envs.cli\n"
            f"print(importlib.util.find_spec({name!r}) is None)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"
