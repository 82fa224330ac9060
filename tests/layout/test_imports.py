"""The layout holds: no import cycles, small modules, small folders, no twin names.

Read from the source, not from what Python happened to import: every `import` and
`from ... import` counts, also inside functions; only `if TYPE_CHECKING:` blocks are
left out (they never run). A cycle is named with its modules, so the message says
which import to move.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "agent_lsp"
MAX_LINES = 400
MAX_MODULES = 15


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent)
        if "builtin" in rel.parts:  # the eval suite's task files are data, not the product
            continue
        name = ".".join(rel.with_suffix("").parts)
        out[name.removesuffix(".__init__")] = path
    return out


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and (
        (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
        or (isinstance(node.test, ast.Attribute) and node.test.attr == "TYPE_CHECKING"))


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()

    def target(module: str) -> str | None:
        while module and module not in known:
            module = module.rsplit(".", 1)[0] if "." in module else ""
        return module or None

    def visit(node: ast.AST) -> None:
        if _is_type_checking(node):
            for child in getattr(node, "orelse", []):
                visit(child)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                if (t := target(alias.name)) is not None:
                    found.add(t)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                t = sub if sub in known else target(module)
                if t is not None:
                    found.add(t)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    found.discard(name)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    # (a package's __init__ that imports its own modules is no cycle: Python runs the
    # __init__ first whatever the order, so only the imports written down are edges)
    return {name: _imports(name, path, known) for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycles():
    graph = _graph()
    cycles = _cycles(graph)
    described = []
    for comp in cycles:
        members = set(comp)
        edges = [f"{a} -> {b}" for a in comp for b in sorted(graph[a] & members)]
        described.append(", ".join(comp) + "\n    " + "\n    ".join(edges))
    assert not cycles, "import cycles:\n" + "\n".join(described)


def test_the_engine_never_imports_a_face():
    faces = ("agent_lsp.server", "agent_lsp.acp", "agent_lsp.terminal", "agent_lsp.cli", "agent_lsp.evals")
    bad = [f"{m} -> {t}" for m, ts in _graph().items() if m.startswith("agent_lsp.agent")
           for t in ts if t.startswith(faces)]
    assert not bad, "the engine imports a face: " + "; ".join(bad)


def test_no_module_over_400_lines():
    long = {n: len(p.read_text(encoding="utf-8").splitlines()) for n, p in _modules().items()}
    assert not {n: c for n, c in long.items() if c > MAX_LINES}


def test_no_folder_with_more_than_15_modules():
    per_folder: dict[Path, int] = defaultdict(int)
    for path in _modules().values():
        per_folder[path.parent] += 1
    assert not {str(f): c for f, c in per_folder.items() if c > MAX_MODULES}


def test_no_twin_module_names_in_neighbouring_folders():
    """A folder's modules and subpackages, its parent's and its siblings': each name once."""
    names: dict[Path, set[str]] = defaultdict(set)
    for path in _modules().values():
        folder = path.parent
        names[folder].add(path.stem if path.name != "__init__.py" else "")
        if path.name == "__init__.py":
            names[folder.parent].add(folder.name)
    twins = []
    folders = sorted(names)
    for a in folders:
        for b in folders:
            if a < b and (a.parent == b.parent or b.parent == a):
                same = (names[a] & names[b]) - {"", "__main__"}
                twins += [f"{a.name}/{n} ~ {b.name}/{n}" for n in sorted(same)]
    assert not twins, twins
