"""No import cycle anywhere in kgbuild and flows, counting every import a module makes.

``make lint``'s layers contract only checks imports *between* the stage folders; a cycle inside
one stage (``pipeline.build`` → ``pipeline.runner`` → ``pipeline.build``) passes it. This test
builds the graph of module-level edges with grimp — imports at the top of a module, inside
functions, and under ``if TYPE_CHECKING:`` alike — and asserts that no group of modules imports
itself back round (a strongly connected component of more than one module, or a self-import).
A type that two modules need lives in a module below both (e.g. ``kgbuild/pipeline/options.py``).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import grimp

PACKAGES = ("kgbuild", "flows")


def import_graph(*packages: str) -> grimp.ImportGraph:
    # cache_dir=None: nothing written to the working tree. TYPE_CHECKING imports are kept
    # (exclude_type_checking_imports defaults to False), and grimp reports imports made
    # inside functions as edges of their module (checked below).
    return grimp.build_graph(*packages, include_external_packages=False, cache_dir=None)


def edges(graph: grimp.ImportGraph) -> dict[str, set[str]]:
    return {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}


def strongly_connected(succ: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components (iterative), each sorted, of size > 1 or with
    a self-edge: exactly the module groups that import themselves back."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(succ):
        if root in index:
            continue
        work = [(root, iter(sorted(succ.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(succ.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    members.append(m)
                    if m == node:
                        break
                if len(members) > 1 or node in succ.get(node, ()):
                    found.append(sorted(members))
    return sorted(found)


def describe(graph: grimp.ImportGraph, cycle: list[str]) -> str:
    """The members of one cycle and the import lines that tie them together."""
    inside = set(cycle)
    lines = [" <-> ".join(cycle)]
    for a in cycle:
        for b in sorted(graph.find_modules_directly_imported_by(a) & inside):
            for d in graph.get_import_details(importer=a, imported=b):
                lines.append(f"    {a} -> {b} (line {d['line_number']}: {d['line_contents']})")
    return "\n".join(lines)


def test_no_import_cycles():
    graph = import_graph(*PACKAGES)
    assert len(graph.modules) > 100  # the whole of both packages was found
    cycles = strongly_connected(edges(graph))
    report = "\n".join(describe(graph, c) for c in cycles)
    if cycles:
        print(f"{len(cycles)} import cycle(s):\n{report}")
    assert not cycles, f"{len(cycles)} import cycle(s):\n{report}"


def test_the_graph_counts_function_and_type_checking_imports(tmp_path, monkeypatch):
    """The check above would miss the cycles that matter if grimp dropped either kind."""
    pkg = tmp_path / "cyclepkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text(
        textwrap.dedent("""\
            def f():
                from cyclepkg.b import g
                return g
            """)
    )
    (pkg / "b.py").write_text(
        textwrap.dedent("""\
            from typing import TYPE_CHECKING
            if TYPE_CHECKING:
                from cyclepkg.a import f
            def g():
                return 1
            """)
    )
    (pkg / "c.py").write_text("import cyclepkg.c\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = import_graph("cyclepkg")
    assert strongly_connected(edges(graph)) == [["cyclepkg.a", "cyclepkg.b"], ["cyclepkg.c"]]
    assert "cyclepkg.a -> cyclepkg.b (line 2" in describe(graph, ["cyclepkg.a", "cyclepkg.b"])


def test_strongly_connected_finds_every_cycle():
    succ = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"e"}, "e": {"d"}, "f": {"a"}}
    assert strongly_connected(succ) == [["a", "b", "c"], ["d", "e"]]
    assert strongly_connected({"x": {"y"}, "y": set()}) == []


#: The stages in layer order (pyproject's import-linter contract), for the drawing.
STAGES = ("cli", "flows", "evaluate", "serve", "query", "export", "report", "forecast",
          "question", "link", "corpus", "search",
          "audit", "pipeline", "reader", "store", "belief",
          "resolve", "extract", "verifier", "llm", "annotate", "sources", "spine")  # fmt: skip
DRAWING = ("<!-- import-drawing:start -->", "<!-- import-drawing:end -->")


def stage_of(module: str) -> str:
    parts = module.split(".")
    if parts[0] == "flows":
        return "flows"
    if len(parts) > 1 and parts[1] in STAGES:
        return parts[1]
    return "spine"  # records, schema, settings, names… (kgbuild/*.py)


def stage_drawing(graph: grimp.ImportGraph) -> str:
    """Which stages each stage imports (every import counted, as above), drawn top-down in layer
    order: each arrow points down the list, so the drawing has no circle."""
    uses: dict[str, set[str]] = {s: set() for s in STAGES}
    for a, imported in edges(graph).items():
        for b in imported:
            if stage_of(a) != stage_of(b):
                uses[stage_of(a)].add(stage_of(b))
    width = max(map(len, STAGES))
    rows = [f"{s:<{width}} ──► {', '.join(t for t in STAGES if t in uses[s]) or '(nothing)'}"
            for s in STAGES]  # fmt: skip
    return "\n".join(rows)


def test_the_documented_import_drawing_is_the_code_and_has_no_circle():
    """docs/development.md draws the stages' imports; it is regenerated from the code here, so it
    cannot drift, and every arrow must point to a stage further down (no circle)."""
    graph = import_graph(*PACKAGES)
    drawing = stage_drawing(graph)
    for row in drawing.splitlines():
        stage, _, targets = row.partition(" ──► ")
        below = STAGES[STAGES.index(stage.strip()) + 1 :]
        assert all(t in below for t in targets.split(", ") if t != "(nothing)"), row
    page = (Path(__file__).resolve().parents[2] / "docs" / "development.md").read_text("utf-8")
    start, end = (page.index(m) for m in DRAWING)
    shown = page[start + len(DRAWING[0]) : end].strip().removeprefix("```text").removesuffix("```")
    assert shown.strip() == drawing, f"update docs/development.md's drawing to:\n{drawing}"
