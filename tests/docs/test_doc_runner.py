"""The doc-example runner itself (tests/support/doc_examples.py): parsing console blocks, the
excerpt matcher, not-run reasons, the lint, substitutions, and running small shell pages."""

from __future__ import annotations

import os
import textwrap
import time
from pathlib import Path

import pytest

from tests.support import doc_examples as dx

LINT_SAMPLE = dx.FIXTURES / "docs" / "lint_sample.md"


def page(text: str, name: str = "page.md") -> dx.Page:
    return dx.parse_page(Path(name), textwrap.dedent(text))


def commands(text: str) -> list[dx.Command]:
    parsed = page(text)
    assert not parsed.errors, parsed.errors
    (block,) = [b for b in parsed.blocks if b.lang == "console"]
    cmds, errors = dx.parse_console(block)
    assert not errors
    return cmds


# -- parsing --------------------------------------------------------------------------------


def test_commands_continuation_lines_and_excerpts():
    cmds = commands(
        """\
        # Title

        ```console
        $ kgbuild build --source ../shared/data/dalk/by_year \\
            --kg alzheimers \\
            --embed-model none
        2019: published …

        2020: published …
        $ kgbuild stats
        ```
        """
    )
    assert [c.line for c in cmds] == [4, 10]
    assert cmds[0].text == (
        "kgbuild build --source ../shared/data/dalk/by_year \\\n    --kg alzheimers \\\n"
        "    --embed-model none"
    )
    assert cmds[0].excerpt == [(7, "2019: published …"), (9, "2020: published …")]
    assert cmds[1].excerpt == [] and cmds[1].exit_code == 0
    assert not any(c.background for c in cmds)


def test_exit_status_and_background_commands():
    cmds = commands(
        """\
        ```console
        $ kgbuild stats nosuch@2019
        [exit 2]
        error: no snapshot …
        $ python -m tests.support.replay_llm_server --recordings DIR --port 8765 &
        READY http://127.0.0.1:8765/v1
        $ true && echo done
        ```
        """
    )
    assert cmds[0].exit_code == 2 and cmds[0].excerpt == [(4, "error: no snapshot …")]
    assert cmds[1].background and cmds[1].text.endswith("--port 8765")
    assert not cmds[2].background and cmds[2].text == "true && echo done"


def test_fences_languages_and_indented_blocks():
    parsed = page(
        """\
        ````markdown
        ```console
        $ not a command of this page
        ```
        ````

        1. In a list:

           ```console
           $ kgbuild --help
           Usage: kgbuild …
           ```

        ~~~
        plain
        ~~~
        """
    )
    assert [(b.lang, b.line) for b in parsed.blocks] == [("markdown", 1), ("console", 9), ("", 14)]
    assert parsed.blocks[1].body == ["$ kgbuild --help", "Usage: kgbuild …"]
    assert not parsed.errors


def test_format_errors():
    parsed = page(
        """\
        ```console
        Usage: kgbuild …
        ```

        <!-- not-run: covered by .ci/run -->
        Some prose, not a fence.

        ```console
        $ kgbuild --help
        """
    )
    assert any("page.md:2: console block: output before any" in e for e in parsed.errors)
    assert any("page.md:5: not-run comment not followed by a fence" in e for e in parsed.errors)
    assert any("page.md:8: unterminated" in e for e in parsed.errors)


# -- matching -------------------------------------------------------------------------------

OUTPUT = """\
build 20261126T172656Z-9ff964: 2 snapshots, head aa6af33cd5 (alzheimers@2020)   \n\
LLM: 3 calls sent, 0 answered from cache
2019: published cac53c396ee60054e327  docs=2 triples=5
2020: published aa6af33cd557c8211086  docs=3 triples=7
\x1b[1mbold\x1b[0m line
"""


@pytest.mark.parametrize(
    "excerpt",
    [
        [],
        ["2019: published"],  # a substring of the line
        ["  2019: published … docs=2  "],  # ends stripped, … spans characters
        ["build …: 2 snapshots", "2019: …", "2020: … triples=7"],  # in order, lines between
        ["head aa6af33cd5 (alzheimers@2020)"],  # regex characters are literal
        ["2019:…published"],  # … also matches nothing
        ["bold line"],  # ANSI escapes are gone
        ["", "LLM: 3 calls", "   "],  # blank excerpt lines are skipped
    ],
)
def test_excerpt_matches(excerpt):
    assert dx.match_excerpt(excerpt, OUTPUT) is None


@pytest.mark.parametrize(
    ("excerpt", "missing"),
    [
        (["2020: published", "2019: published"], 1),  # out of order
        (["2019: published … docs=3"], 0),  # … stays within one line
        (["LLM: 3 calls", "LLM: 3 calls"], 1),  # one output line matches one excerpt line
        (["alzheimers@2020)   "], None),  # trailing whitespace ignored both sides
        (["(alzheimers.2020)"], 0),  # "." is not a wildcard
    ],
)
def test_excerpt_mismatches(excerpt, missing):
    assert dx.match_excerpt(excerpt, OUTPUT) == missing


# -- not-run --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reason",
    [
        "covered by .ci/run",
        "covered by tests/docs/test_doc_runner.py::test_not_run_reasons",
        "needs a GPU; covered by tests/docs/test_doc_runner.py",
        "covered by tests/docs/test_doc_examples.py::test_sample_page.",
    ],
)
def test_not_run_good_reasons(reason):
    assert dx.check_not_run(reason) is None


@pytest.mark.parametrize(
    ("reason", "why"),
    [
        ("too slow", "must say 'covered by"),
        ("covered by the CI", "must say 'covered by"),
        ("covered by tests/docs/nope.py::test_x", "does not exist"),
        ("covered by tests/docs/test_doc_runner.py::test_nothing_by_this_name", "has no 'def"),
        ("covered by tests/docs/test_doc_runner.py::test_not_run", "has no 'def test_not_run'"),
    ],
)
def test_not_run_reasons(reason, why):
    assert why in dx.check_not_run(reason)


def test_not_run_in_prose_is_not_a_comment():
    parsed = page("A block that is not run says so (`<!-- not-run: covered by tests/… -->`).\n")
    assert not parsed.errors and not parsed.blocks


def test_bad_not_run_is_a_page_error():
    parsed = page(
        """\
        <!-- not-run: covered by tests/docs/test_doc_runner.py::test_gone -->

        ```python
        print("hi")
        ```
        """
    )
    assert parsed.blocks[0].not_run is not None
    assert parsed.errors and "page.md:1:" in parsed.errors[0]


# -- lint -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "kgbuild stats",
        ".venv/bin/kgbuild build --source x",
        "$ kgbuild --help",
        "KGBUILD_WAREHOUSE=wh kgbuild sql 'SELECT 1'",
        "cd x && kgbuild diff a b",
        "time .venv/bin/python -m tests.support.replay_llm_server --recordings DIR",
        "make build SOURCE=pubmed",
        "make",
        "make -j2 test-fast   # the unit tier",
    ],
)
def test_lines_invoking_commands(line):
    assert dx.invokes_commands(line)


@pytest.mark.parametrize(
    "line",
    [
        "The warehouse holds what kgbuild built.",
        "kgbuild/cli.py        the command line",
        "# kgbuild stats prints Table 1",
        "make sure the server runs",
        'print("kgbuild stats")',
        "python script.py",
        "kgbuild/report/    quality.py (`kgbuild quality`), vocabulary.py",
        "(kgbuild stats prints Table 1)",
    ],
)
def test_lines_not_invoking_commands(line):
    assert not dx.invokes_commands(line)


def test_lint_flags_the_sample_page():
    problems = dx.lint_page(dx.parse_page(LINT_SAMPLE))
    lines = sorted(int(p.split(":")[1]) for p in problems)
    assert lines == [6, 19, 23, 35, 43], problems
    bash = next(p for p in problems if ":6:" in p)
    assert "tests/fixtures/docs/lint_sample.md:6: a command in a 'bash' block" in bash
    assert "leaves the sandbox" in next(p for p in problems if ":43:" in p)
    assert "must say 'covered by" in next(p for p in problems if ":35:" in p)


def test_lint_a_bare_bash_block():
    parsed = page("```bash\nkgbuild stats\n```\n", "docs/x.md")
    (problem,) = dx.lint_page(parsed)
    assert problem.startswith("docs/x.md:2: a command in a 'bash' block")


@pytest.mark.parametrize(
    ("command", "escapes"),
    [
        ("kgbuild build --source ../shared/data/dalk/by_year --kg alzheimers", []),
        ("kgbuild quality --tsv ../shared/data/dalk/dalk_kg_gen.tsv", []),
        ("kgbuild audit score tests/fixtures/audit/x.tsv --out out/", []),
        ("curl -s http://127.0.0.1:8000/health -H 'content-type: application/json'", []),
        ("kgbuild export latest --out out/ > /dev/null", []),
        ("kgbuild stats --warehouse ../other", ["../other"]),
        ("kgbuild build --source ../shared/data/dalk/by_year/../../x", ["../../x"]),
        ("kgbuild export latest --out /tmp/x", ["/tmp/x"]),
        ("ls ~/data", ["~/data"]),
        ('cp x "$HOME/y"', ["$HOME/y"]),
        ("cd ..", [".."]),
        ("sed -e 's/^kg = .*/kg = \"x\"/' data/domains/a.toml > my/a.toml", []),
        ("kgbuild sql \"SELECT * FROM read_text('/etc/passwd')\"", []),
        ("cat /etc/shadow", ["/etc/shadow"]),
        ("kgbuild export latest --out=/srv/x", ["/srv/x"]),
    ],
)
def test_sandbox_escapes(command, escapes):
    assert dx.escapes_sandbox(command) == escapes


def test_pages_in_nav_order(tmp_path):
    (tmp_path / "docs").mkdir()
    for name in ("index.md", "b.md", "orphan.md"):
        (tmp_path / "docs" / name).write_text("# x\n")
    (tmp_path / "README.md").write_text("# r\n")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: x\nmarkdown_extensions:\n  - pymdownx.emoji:\n"
        "      emoji_index: !!python/name:material.extensions.emoji.twemoji\n"
        "nav:\n  - Home: index.md\n  - Guide:\n    - B: b.md\n    - Gone: gone.md\n"
        "  - GitHub: https://github.com/x/y\n"
    )
    pages = dx.doc_pages(tmp_path)
    assert [(i, bool(e)) for i, _, e in pages] == [
        ("index.md", False),
        ("b.md", False),
        ("gone.md", True),
        ("README.md", False),
    ]
    problems = dx.lint_docs(tmp_path)
    assert any("gone.md is in the nav" in p for p in problems)
    assert any("orphan.md:1: not in the nav" in p for p in problems)


def test_missing_mkdocs_is_an_error(tmp_path):
    (id_, path, error), readme = dx.doc_pages(tmp_path)
    assert (id_, path) == ("mkdocs.yml", None) and "does not exist" in error
    assert readme[0] == "README.md" and "missing" in readme[2]


# -- substitutions and the sandbox ----------------------------------------------------------


def test_substitutions(tmp_path):
    box = dx.Sandbox(tmp_path)
    llm, serve = box.ports[8765], box.ports[8000]
    assert llm != serve
    got = box.substitute(
        "kgbuild build --source ../shared/data/dalk/by_year --llm-base-url "
        "http://127.0.0.1:8765/v1 && kgbuild serve --port 8000 && curl localhost:8000/health "
        "&& kgbuild audit score tests/fixtures/audit/x.tsv --out out/ --domain data/domains/a.toml"
        " && .venv/bin/kgbuild stats && cat warehouse/tests/x"
    )
    root = dx.ROOT
    assert got == (
        f"kgbuild build --source {root}/tests/fixtures/llm/corpus --llm-base-url "
        f"http://127.0.0.1:{llm}/v1 && kgbuild serve --port {serve} && curl localhost:{serve}"
        f"/health && kgbuild audit score {root}/tests/fixtures/audit/x.tsv --out out/ --domain "
        f"{root}/data/domains/a.toml && {dx.BIN}/kgbuild stats && cat warehouse/tests/x"
    )
    # the longest key first: DALK's KG file is not read as a prefix of another key
    assert box.substitute("../shared/data/dalk/dalk_kg_gen.tsv").endswith("dalk_kg_gen_head.tsv")
    assert box.substitute("--port 87650") == "--port 87650"
    for target in dx.PATH_SUBSTITUTIONS.values():
        assert Path(target).exists(), target
    # the example inputs the docs ship are read from the project, as a reader's clone has them
    assert box.substitute("kgbuild build --source docs/examples/my-abstracts-2021.pubtator") == (
        f"kgbuild build --source {root}/docs/examples/my-abstracts-2021.pubtator"
    )


def test_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    monkeypatch.setenv("KGBUILD_WAREHOUSE", "/elsewhere")
    monkeypatch.setenv("NCBI_API_KEY", "x")
    env = dx.sandbox_env(tmp_path, {"KGBUILD_EUTILS_URL": "http://127.0.0.1:1/"})
    assert "OPENAI_API_KEY" not in env and "NCBI_API_KEY" not in env
    assert [k for k in env if k.startswith("KGBUILD_")] == ["KGBUILD_EUTILS_URL"]
    assert env["PATH"].split(os.pathsep)[0] == str(dx.BIN)
    assert env["PYTHONPATH"] == str(dx.ROOT) and env["COLUMNS"] == "200"
    assert env["PREFECT_HOME"].startswith(str(tmp_path))


def run(tmp_path, text, **kw):
    doc = tmp_path / "page.md"
    doc.write_text(textwrap.dedent(text))
    box = dx.Sandbox(tmp_path / "box", **kw)
    try:
        return box.run_page(doc)
    finally:
        box.close()


def test_shell_page_runs(tmp_path):
    ran = run(
        tmp_path,
        """\
        ```console
        $ printf 'a\\nb  \\nc\\n' && echo port 127.0.0.1:8765
        a
        c
        port 127.0.0.1:8765
        $ echo made > made.txt; exit 3
        [exit 3]
        ```

        ```python
        from pathlib import Path

        assert Path("made.txt").read_text() == "made\\n"
        print(Path("tests/fixtures/docs/sample.md").is_file() or exit(1))
        ```
        """,
    )
    assert len(ran) == 3 and "exit 3" in ran[1] and "python block exit 0" in ran[2]


def test_a_wrong_exit_status_fails_with_the_output(tmp_path):
    with pytest.raises(dx.DocExampleError) as exc:
        run(tmp_path, "text\n\n```console\n$ echo first\n$ seq 1 2000; false\n```\n")
    msg = str(exc.value)
    assert msg.startswith(f"{tmp_path}/page.md:5: exit status 1, expected 0\n$ seq 1 2000; false")
    assert msg.rstrip().endswith("2000") and "\n1\n" not in msg  # the output's last 3,000 chars


def test_a_missing_excerpt_line_fails(tmp_path):
    with pytest.raises(dx.DocExampleError, match=r"page.md:2: excerpt line .*page.md:4 not found"):
        run(tmp_path, "```console\n$ echo one; echo two\ntwo\none\n```\n")


def test_a_failing_python_block_fails(tmp_path):
    with pytest.raises(dx.DocExampleError, match=r"page.md:1: python block exit status 1"):
        run(tmp_path, "```python\nraise SystemExit('boom')\n```\n")


def test_a_timeout_fails(tmp_path):
    started = time.monotonic()
    with pytest.raises(dx.DocExampleError, match="timed out after 1 s"):
        run(tmp_path, "```console\n$ sleep 30\n```\n", timeout_s=1)
    assert time.monotonic() - started < 15


def test_background_commands_are_waited_for_and_stopped(tmp_path):
    pidfile = tmp_path / "box" / "pid"
    ran = run(
        tmp_path,
        """\
        ```console
        $ (sleep 0.5; echo READY http://127.0.0.1:8765/v1; exec sleep 300) & echo $! > pid; wait &
        READY http://127.0.0.1:8765/v1
        $ cat pid
        ```
        """,
    )
    assert "started in the background" in ran[0]
    pid = int(pidfile.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # the page ended: its background group was killed


def test_a_background_command_that_never_prints_its_excerpt_fails(tmp_path):
    with pytest.raises(dx.DocExampleError, match="did not print 'READY' within 1 s"):
        run(tmp_path, "```console\n$ sleep 60 &\nREADY\n```\n", background_timeout_s=1)
    with pytest.raises(dx.DocExampleError, match=r"exited \(0\) before printing its excerpt"):
        run(tmp_path, "```console\n$ echo nope &\nREADY\n```\n")


def test_commands_leaving_the_sandbox_do_not_run(tmp_path):
    with pytest.raises(dx.DocExampleError, match=r"'\.\./x' leaves the sandbox"):
        run(tmp_path, "```console\n$ touch ../x\n```\n")
    assert not (tmp_path / "x").exists()


def test_not_run_blocks_are_skipped(tmp_path):
    ran = run(
        tmp_path,
        """\
        <!-- not-run: covered by tests/docs/test_doc_runner.py::test_not_run_blocks_are_skipped -->

        ```console
        $ false
        ```
        """,
    )
    assert ran == []


def _pages(tmp_path: Path, **texts: str) -> dict[str, Path]:
    paths = {}
    tmp_path.mkdir(parents=True, exist_ok=True)
    for name, text in texts.items():
        paths[name] = tmp_path / f"{name}.md"
        paths[name].write_text(textwrap.dedent(text), encoding="utf-8")
    return paths


def test_needs_lines_put_pages_after_what_they_need_and_a_circle_or_a_missing_page_is_an_error(
    tmp_path,
):
    p = _pages(
        tmp_path,
        base="# Base\n",
        mid="# Mid\n<!-- needs: base.md -->\n",
        top="# Top\n<!-- needs: mid.md, base.md -->\n",
        loop_a="<!-- needs: loop_b.md -->\n",
        loop_b="<!-- needs: loop_a.md -->\n",
        lost="<!-- needs: nowhere.md -->\n",
    )
    assert dx.page_needs(p["top"]) == [p["mid"], p["base"]]
    names = [q.name for q in dx.with_needs([p["top"], p["base"]])]
    assert names == ["base.md", "mid.md", "top.md"]
    assert dx.needs_problems(p["top"]) == []
    assert any("pages need each other" in e for e in dx.needs_problems(p["loop_a"]))
    assert any("nowhere.md, which does not exist" in e for e in dx.needs_problems(p["lost"]))


def test_a_page_starts_from_a_copy_of_what_the_page_it_needs_made_and_each_page_runs_once(
    tmp_path,
):
    p = _pages(
        tmp_path / "docs",
        base="```console\n$ mkdir -p made && echo run >> made/runs\n```\n",
        reader="<!-- needs: base.md -->\n```console\n$ cat made/runs\nrun\n$ touch mine\n```\n",
        other="<!-- needs: base.md -->\n```console\n$ test ! -e mine\n```\n",
        broken="```console\n$ false\n```\n",
        after_broken="<!-- needs: broken.md -->\n```console\n$ true\n```\n",
    )
    runs = dx.PageRuns(tmp_path / "runs")
    first = runs.run(p["reader"])
    assert first.error == "" and (first.folder / "mine").is_file()
    assert runs.run(p["other"]).error == ""  # a copy of base's sandbox, not reader's
    base = runs.run(p["base"])
    assert (base.folder / "made" / "runs").read_text() == "run\n"  # base ran once for all
    assert not (base.folder / "mine").exists()
    failed = runs.run(p["after_broken"])
    assert "needs broken.md, which failed" in failed.error and "exit status 1" in failed.error
    again = dx.PageRuns(tmp_path / "runs").run(p["reader"])  # another process: the same result
    assert again == first
