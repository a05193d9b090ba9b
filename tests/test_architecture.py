"""The package's shape: no import cycle, light kernels, small files and functions.

The import graph is read from the source (every ``import`` statement, also the
ones inside functions, which hide cycles from a plain ``import``), so a cycle
fails here before it can bite at run time.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "spdgraph"
#: spdgraph and every plugin distribution's package (plugins/*/src/<package>).
PACKAGES = [
    PACKAGE,
    *sorted(p for p in ROOT.glob("plugins/*/src/*") if (p / "__init__.py").exists()),
]
#: Longest file (lines) and function (lines of code, docstring excluded).
MAX_FILE_LINES = 420
MAX_FUNCTION_LINES = 80
#: A function may run longer when a comment in it says why it reads better whole.
WHOLE_MARKER = "reads better whole"


def _module_name(path: Path) -> str:
    package = next(root for root in PACKAGES if path.is_relative_to(root))
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {_module_name(p): p for root in PACKAGES for p in sorted(root.rglob("*.py"))}


def _is_type_checking_block(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _dynamic_import(call: ast.Call) -> str | None:
    """The constant module name of ``importlib.import_module("...")``, ``import_module
    ("...")`` or ``__import__("...")`` (also ``__import__("importlib").import_module``)."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if name not in ("import_module", "__import__") or not call.args:
        return None
    first = call.args[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value
    return None


def _imports(path: Path, *, type_checking: bool = False) -> set[str]:
    """Every spdgraph module ``path`` imports, at any depth (TYPE_CHECKING blocks
    excluded unless ``type_checking``)."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if _is_type_checking_block(node) and not type_checking:
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Call) and (name := _dynamic_import(node)) is not None:
            found.add(name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if candidate in MODULES else base)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {name for name in found if name in MODULES and name != module}


GRAPH = {name: _imports(path) for name, path in MODULES.items()}
#: The same with the imports made for type checkers only: a tie all the same.
FULL_GRAPH = {name: _imports(path, type_checking=True) for name, path in MODULES.items()}


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def dfs(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (cycle := dfs(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := dfs(node)):
            return cycle
    return None


def test_the_import_graph_is_read():
    assert "spdgraph.sampling._engine" in GRAPH["spdgraph.sampling._lazy"]
    assert "spdgraph.sampling._request" in GRAPH["spdgraph.sampling._core"]
    # imports inside functions count
    assert "spdgraph.sampling._lazy" in GRAPH["spdgraph.sampling._core"]


def test_dynamic_imports_with_constant_names_are_read(tmp_path):
    """``importlib.import_module("x")`` and ``__import__("x")`` are arrows like ``import x``."""
    calls = [
        'importlib.import_module("spdgraph.accessor")',
        '__import__("importlib").import_module("spdgraph.io")',
        '__import__("spdgraph.seeds")',
        "import_module(name)",  # not a constant: not read
    ]
    found = {_dynamic_import(ast.parse(c).body[0].value) for c in calls}  # type: ignore[attr-defined]
    assert found == {"spdgraph.accessor", "spdgraph.io", "spdgraph.seeds", None}
    assert "spdgraph.accessor" in GRAPH["spdgraph"]  # the package registers da.spd


def test_cycle_finder_finds_a_cycle():
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycle_in_the_package_and_the_plugins():
    assert any(name.startswith("spdgraph_reproduce") for name in GRAPH)  # plugins are read
    assert _find_cycle(GRAPH) is None
    assert _find_cycle(FULL_GRAPH) is None  # no cycle hidden behind TYPE_CHECKING


def _room(module: str) -> str:
    """The room of a module: a subpackage of spdgraph (``spdgraph.io``), a top-level
    module (``spdgraph.seeds``, ``spdgraph._machine``), the package's ``__init__``
    (``spdgraph``), or a plugin distribution's package (``spdgraph_gwishart``)."""
    parts = module.split(".")
    if parts[0] != "spdgraph":
        return parts[0]
    return ".".join(parts[:2])


def _room_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    rooms: dict[str, set[str]] = {}
    for module, deps in graph.items():
        rooms.setdefault(_room(module), set()).update(
            _room(dep) for dep in deps if _room(dep) != _room(module)
        )
    return rooms


ROOMS = _room_graph(FULL_GRAPH)


def test_the_room_graph_is_read():
    assert _room("spdgraph.io._files") == "spdgraph.io"
    assert _room("spdgraph.plugins._builtin.adapt_path") == "spdgraph.plugins"
    assert _room("spdgraph_gwishart.plugin") == "spdgraph_gwishart"
    assert "spdgraph.plugins" in ROOMS["spdgraph.io"]  # io finds formats in the plugins' table
    assert _find_cycle(_room_graph({"a.x.m": {"b.y.n"}, "b.y.n": {"a.x.k"}, "a.x.k": set()}))


def test_no_cycle_between_rooms():
    """Rooms (subpackages, top-level modules, plugin packages) stand on floors: no room
    reaches itself through others, counting imports inside functions and the ones made
    for type checkers only (a tie is a tie, whatever hides it)."""
    assert _find_cycle(ROOMS) is None


#: The ground floor: modules every room may stand on, importing nothing of spdgraph
#: but these (machine facts, errors).
GROUND = {"spdgraph.errors", "spdgraph._machine", "spdgraph._version"}


@pytest.mark.parametrize("name", sorted(GROUND))
def test_the_ground_floor_imports_only_the_ground_floor(name):
    assert FULL_GRAPH[name] <= GROUND


def test_graph_files_stand_below_the_path_backend_and_io_above_the_plugins():
    assert not any(
        dep.startswith("spdgraph.io") for dep in FULL_GRAPH["spdgraph.plugins._builtin.adapt_path"]
    )
    assert not any(
        _room(dep) in {"spdgraph.io", "spdgraph.sampling"}
        for name in MODULES
        if _room(name) == "spdgraph.plugins"
        for dep in FULL_GRAPH[name]
    )


def _subpackage(module: str) -> str:
    """The room of a module: ``spdgraph.sampling`` for ``spdgraph.sampling._core``."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "spdgraph" and len(parts) > 2 else module


def _is_private(module: str, room: str) -> bool:
    inner = module[len(room) :].lstrip(".").split(".")
    return any(part.startswith("_") for part in inner if part)


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("spdgraph")))
def test_no_private_module_of_another_room_is_imported(name):
    """Rooms (subpackages) talk through their ``__init__``, not through private modules.

    ``spdgraph._kernels`` is private as a whole and is its own interface; top-level
    public modules (``spdgraph.marginals``) may re-export a room's internals. A room's
    ``__init__`` is read too (it is where a private import hides most easily).
    """
    room = _subpackage(name)
    if room.count(".") == 0 or (name.count(".") == 1 and MODULES[name].name != "__init__.py"):
        return  # the top-level package and top-level modules (spdgraph.marginals)
    crossing = sorted(
        dep
        for dep in GRAPH[name]
        if dep.startswith("spdgraph.")
        and _subpackage(dep) != room
        and not _subpackage(dep).startswith("spdgraph._kernels")
        and _is_private(dep, _subpackage(dep))
    )
    assert not crossing, f"{name} imports private modules of other rooms: {crossing}"


def _is_cli(module: str) -> bool:
    return module == "spdgraph.cli" or module.startswith("spdgraph.cli.")


@pytest.mark.parametrize("name", sorted(n for n in MODULES if _is_cli(n)))
def test_the_cli_uses_the_public_api_only(name):
    """The command line is a user of the library: no private module outside ``spdgraph.cli``.

    Neither a room's private module (``spdgraph.io._atomic``) nor a private top-level
    one (``spdgraph._version``, ``spdgraph._kernels``); ``__init__`` files included.
    """
    crossing = sorted(
        dep
        for dep in GRAPH[name]
        if dep.startswith("spdgraph.")
        and not _is_cli(dep)
        and any(part.startswith("_") for part in dep.split(".")[1:])
    )
    assert not crossing, f"{name} imports private modules: {crossing}; expose them publicly"


def test_the_cli_rule_reads_init_files():
    assert "spdgraph.cli" in MODULES and MODULES["spdgraph.cli"].name == "__init__.py"
    assert "spdgraph.io" in GRAPH["spdgraph.cli"]  # the import inside main() is read


def test_the_lazy_path_never_imports_the_core():
    assert "spdgraph.sampling._core" not in GRAPH["spdgraph.sampling._lazy"]
    assert "spdgraph.sampling._core" not in GRAPH["spdgraph.sampling._engine"]


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("spdgraph._kernels")))
def test_kernels_import_neither_xarray_nor_pluggy(name):
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            imported.add(node.module.split(".")[0])
    assert not imported & {"xarray", "pluggy"}
    # and no spdgraph module that does (the core, plugins, accessor, ...)
    allowed = (
        "spdgraph._kernels",
        "spdgraph._kernels.blas",
        "spdgraph.errors",
        "spdgraph.vocabulary",  # ground floor: imports spdgraph.errors only
        "spdgraph._kernels.numerics",
    )
    assert all(dep.startswith(allowed) for dep in GRAPH[name]), GRAPH[name]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_files_stay_small(name):
    lines = MODULES[name].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_FILE_LINES, f"{name} has {lines} lines; split it by job"


def _code_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    if not body:
        return 0
    return (body[-1].end_lineno or body[-1].lineno) - body[0].lineno + 1


@pytest.mark.parametrize("name", sorted(MODULES))
def test_functions_stay_short(name):
    source = MODULES[name].read_text(encoding="utf-8")
    lines = source.splitlines()
    too_long = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = _code_lines(node)
            text = "\n".join(lines[node.lineno - 1 : node.end_lineno])
            if length > MAX_FUNCTION_LINES and WHOLE_MARKER not in text:
                too_long.append(f"{node.name} ({length} lines)")
    assert not too_long, f"{name}: split {', '.join(too_long)}"


def _plugin_modules() -> set[str]:
    """Modules that register hooks: the built-ins under ``spdgraph.plugins._builtin`` and
    the plugin distributions' modules with a ``hookimpl``."""
    return {
        name
        for name, path in MODULES.items()
        for node in ast.parse(path.read_text(encoding="utf-8")).body
        if isinstance(node, ast.FunctionDef)
        and any(ast.unparse(d).endswith("hookimpl") for d in node.decorator_list)
    }


def test_no_plugin_module_imports_another():
    """A plugin is one module (plus kernels): what two plugins share lives in the core."""
    plugins = _plugin_modules()
    assert {"spdgraph.plugins._builtin.gen_po", "spdgraph_gwishart.plugin"} <= plugins
    crossing = {(name, dep) for name in plugins for dep in GRAPH[name] if dep in plugins - {name}}
    assert not crossing, sorted(crossing)


#: Rooms whose modules use no other module's private names (``from m import _x``, ``m._x``).
NO_PRIVATE_NAMES = ("spdgraph.sampling", "spdgraph.seeds", "spdgraph.plugins.types")


def _private_names_used(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules: set[str] = set()  # local names bound to imported modules
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module != "__future__":
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append(f"{node.module}.{alias.name}")
                elif f"{node.module}.{alias.name}" in MODULES:
                    modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            modules.update(alias.asname or alias.name.split(".")[0] for alias in node.names)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            found.append(f"{node.value.id}.{node.attr}")
    return found


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith(NO_PRIVATE_NAMES)))
def test_no_private_names_across_modules(name):
    assert _private_names_used(MODULES[name]) == []


def test_the_private_name_finder_finds_them(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from spdgraph.sampling._compile import _NOTED\nimport numba\nnumba._x\n")
    assert _private_names_used(bad) == ["spdgraph.sampling._compile._NOTED", "numba._x"]


#: The one module that renames files into place (``spdgraph.io._atomic``, under the
#: door ``spdgraph.io._writer``): every other write of an output goes through the door.
ATOMIC = "spdgraph.io._atomic"
#: The door: ``save_figure`` saves a figure to the temporary it is given.
DOOR = "spdgraph.io._writer"
RENAMES = {("os", "replace"), ("os", "rename"), ("shutil", "move"), ("shutil", "copyfile")}


def _own_writers(path: Path) -> list[str]:
    """Renames into place made by hand (``os.replace``, ``os.rename``, ``shutil.move``):
    the mark of an atomic writer of one's own. (Scratch files in a temporary
    folder, ``tempfile``, are no output: they are allowed.)"""
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lambdas = [node for node in ast.walk(tree) if isinstance(node, ast.Lambda)]
    in_lambdas = {id(inner) for lam in lambdas for inner in ast.walk(lam)}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and (node.value.id, node.attr) in RENAMES
        ):
            found.append(f"line {node.lineno}: {node.value.id}.{node.attr}")
        elif (  # a figure saved straight to its destination, not by write(tmp) at the door
            isinstance(node, ast.Attribute)
            and node.attr == "savefig"
            and id(node) not in in_lambdas
            and not (path.is_relative_to(ROOT) and _module_name(path) == DOOR)
        ):
            found.append(f"line {node.lineno}: savefig")
    return found


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n != ATOMIC))
def test_every_write_goes_through_the_one_door(name):
    """No module renames a temporary of its own: spdgraph.io.write_atomically,
    save_dataset and save do (the same checks, protocol and messages for all)."""
    assert _own_writers(MODULES[name]) == [], f"{name}: use spdgraph.io.write_atomically"


def test_the_door_finder_finds_a_hand_made_writer(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import os, shutil\nos.replace('a', 'b')\nshutil.move('a', 'b')\nfig.savefig(path)\n"
        "door(path, lambda tmp: fig.savefig(tmp))\n"
    )
    assert _own_writers(bad) == ["line 2: os.replace", "line 3: shutil.move", "line 4: savefig"]
    assert _own_writers(MODULES[ATOMIC])  # the one module that does
