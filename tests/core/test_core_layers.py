"""The layering of the code, read from its imports with ``ast`` (docs/architecture.md).

Each part (a package or a top-level module of ``firmware_py``, the solver, the
tools) may import only the parts ``MAY_IMPORT`` names for it. Every import
counts, also those inside functions: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ROOTS = ("c4game", "firmware_py", "cython_solver", "tools")

FOUNDATIONS = {"c4game", "succession", "config", "frames", "parts",
               "ratelog", "backoff", "json_types"}  # every part may use these
MAY_IMPORT: dict[str, set[str]] = {
    "c4game": set(),  # the game and the exception tree: nothing else of c4pi
    "succession": {"c4game"},
    "config": {"c4game", "json_types"},
    "frames": {"c4game"},
    "parts": set(),
    "ratelog": set(),
    "backoff": set(),
    "json_types": set(),
    "board_text": {"c4game"},
    "notify": set(),
    "failure": set(),
    "leds": {"c4game", "config"},
    "cython_solver": {"c4game"},  # nothing of the appliance (#57)
    "worker": FOUNDATIONS | {"cython_solver"},
    "vision": FOUNDATIONS,
    "simtable": FOUNDATIONS | {"vision"},
    "sources": FOUNDATIONS | {"simtable"},
    "speech": FOUNDATIONS,
    "play": FOUNDATIONS | {"board_text", "speech", "worker", "cython_solver"},
    "pipeline": FOUNDATIONS | {"vision", "worker", "cython_solver"},
    "serial_link": FOUNDATIONS | {"worker", "play", "cython_solver"},
    "hud": FOUNDATIONS | {"vision", "play"},
    "appliance": FOUNDATIONS | {"board_text", "notify", "leds", "worker", "cython_solver",
                                "vision", "sources", "speech", "play", "pipeline",
                                "serial_link", "hud"},
    "selftest": FOUNDATIONS | {"leds", "cython_solver", "vision", "simtable", "sources",
                               "speech", "pipeline", "appliance"},
    "commands": set(),  # filled below: a command may use every part
    "cli": {"config", "c4game", "parts", "__init__", "failure"},
    "__init__": set(),
    "__main__": {"cli"},
    "tools": set(),  # the tools may use every part but the commands
}
EVERY_PART = set(MAY_IMPORT) - {"commands", "cli", "__main__", "tools"}
MAY_IMPORT["commands"] = EVERY_PART | {"commands"}
MAY_IMPORT["tools"] = EVERY_PART | {"tools"}


def project_modules() -> dict[str, Path]:
    """Every project module by dotted name (``firmware_py.vision.reader``)."""
    modules = {}
    for root in ROOTS:
        for path in sorted((REPO / root).rglob("*.py")):
            parts = path.relative_to(REPO).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    return modules


def imported_names(path: Path, module: str, modules: set[str]) -> Iterator[str]:
    """The project modules a module imports, relative imports resolved.

    ``from pkg import submodule`` names the submodule alone; ``from pkg import name``
    names the package.
    """
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module.split(".")
                package = package if is_package else package[:-1]
                package = package[:len(package) - node.level + 1]
                base = ".".join(package + ([node.module] if node.module else []))
            submodules = [f"{base}.{alias.name}" for alias in node.names]
            yield from (name for name in submodules if name in modules)
            if not all(name in modules for name in submodules):
                yield base


def import_graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports."""
    modules = project_modules()
    return {module: {name for name in imported_names(path, module, set(modules))
                     if name in modules and name != module}
            for module, path in modules.items()}


def part_of(module: str) -> str:
    """``firmware_py.vision.reader`` -> ``vision``; ``cython_solver.book`` -> ``cython_solver``."""
    parts = module.split(".")
    if parts[0] != "firmware_py":
        return parts[0]
    return parts[1] if len(parts) > 1 else "__init__"


GRAPH = import_graph()


def test_every_part_is_listed() -> None:
    assert {part_of(module) for module in GRAPH} <= set(MAY_IMPORT)


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_a_module_imports_only_what_its_part_may(module: str) -> None:
    part = part_of(module)
    foreign = {name for name in GRAPH[module] if part_of(name) != part
               and part_of(name) not in MAY_IMPORT[part]}
    assert not foreign, f"{module} ({part}) may not import {sorted(foreign)}"


def test_the_reader_never_imports_the_simulated_table_the_screen_speech_or_commands() -> None:
    forbidden = {"simtable", "hud", "speech", "commands", "sources", "pipeline", "appliance"}
    offenders = {module: sorted(name for name in names if part_of(name) in forbidden)
                 for module, names in GRAPH.items() if part_of(module) == "vision"}
    assert not {module: names for module, names in offenders.items() if names}


# The vision modules a frame's stages live in (OpenCV, the model): the pipeline below
# them gets a Reading and never reaches into how it was made (#53).
READER_STAGES = {"firmware_py.vision.reader", "firmware_py.vision.fit", "firmware_py.vision.cells",
                 "firmware_py.vision.markers", "firmware_py.vision.classifier",
                 "firmware_py.vision.colour_reader", "firmware_py.vision.colour",
                 "firmware_py.vision.look_evidence", "firmware_py.vision.expectation",
                 "firmware_py.vision.decide"}  # the reader decides a frame once (#53)


def test_the_pipeline_imports_no_stage_of_the_frame_reader() -> None:
    offenders = {module: sorted(GRAPH[module] & READER_STAGES) for module in GRAPH
                 if part_of(module) == "pipeline" and module != "firmware_py.pipeline.assemble"}
    assert not {module: names for module, names in offenders.items() if names}


def test_the_pipeline_never_calls_back_into_the_reader() -> None:
    """The reader is stateless given the learnt model: no ``reader.learn_*`` callback,
    no ``hasattr`` probe for one, in the pipeline's modules."""
    folder = REPO / "firmware_py" / "pipeline"
    for path in folder.glob("*.py"):
        text = path.read_text()
        assert "reader.learn" not in text and "hasattr(reader" not in text, path.name


def test_no_module_imports_a_private_name_of_another_module() -> None:
    """``from firmware_py.x import _helper`` reaches into another module's insides (#57):
    a private name is used only where it is defined."""
    offenders = []
    for root in ROOTS:
        for path in (REPO / root).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if (isinstance(node, ast.ImportFrom) and node.module
                        and node.module.split(".")[0] in ROOTS):
                    offenders += [f"{path.relative_to(REPO)}: {node.module}.{alias.name}"
                                  for alias in node.names
                                  if alias.name.startswith("_") and not alias.name.endswith("__")]
    assert not offenders


# a Cython import or cimport: (the module, the names of a from-import, the module alone)
CYTHON_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+([\w.]+)[ \t]+c?import[ \t]+(\([^)]*\)|[^\n]+)"
                           r"|c?import[ \t]+([\w.]+))", re.MULTILINE)


def cython_imports(text: str) -> list[tuple[str, list[str]]]:
    """(module, names imported from it) of each import and cimport of Cython source."""
    found = []
    for match in CYTHON_IMPORT.finditer(text):
        module = match[1] or match[3]
        names = [name.split(" as ")[0].strip() for name in
                 (match[2] or "").strip("()").replace("\n", ",").split(",")]
        found.append((module, [name for name in names if name and not name.startswith("#")]))
    return found


def test_the_cython_sources_import_only_the_game_and_their_own_public_names() -> None:
    """``.pyx`` and ``.pxd`` files are not Python: the same two rules, read by a pattern
    (nothing of the appliance; no private name of another module)."""
    offenders = []
    for path in sorted((REPO / "cython_solver").rglob("*.p[xy][dx]")):
        for module, names in cython_imports(path.read_text()):
            root = module.split(".")[0]
            if root in ROOTS and root not in MAY_IMPORT["cython_solver"] | {"cython_solver"}:
                offenders.append(f"{path.name}: {module}")
            if root in ROOTS and module != f"cython_solver.{path.stem}":
                offenders += [f"{path.name}: {module}.{name}" for name in names
                              if name.startswith("_") and not name.endswith("__")]
    assert not offenders


def test_the_cython_import_pattern_reads_both_forms() -> None:
    text = ("from libc.stdint cimport uint64_t\nfrom firmware_py.config import (\n"
            "    Config,\n    _hidden as h,\n)\ncimport cython_solver.bitboard\n")
    assert cython_imports(text) == [("libc.stdint", ["uint64_t"]),
                                    ("firmware_py.config", ["Config", "_hidden"]),
                                    ("cython_solver.bitboard", [])]


def test_nothing_outside_the_commands_imports_them() -> None:
    offenders = {module for module, names in GRAPH.items() if part_of(module) != "commands"
                 and any(part_of(name) == "commands" for name in names)}
    assert not offenders


def test_no_circles_among_the_project_modules() -> None:
    assert strongly_connected(GRAPH) == []


def test_the_circle_finder_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert strongly_connected(graph) == [["a", "b", "c"]]


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components of more than one module (each a circle of imports)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return circles
