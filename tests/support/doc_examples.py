"""Run the command examples of the documentation, so the docs cannot drift from the CLI.

The pages are ``docs/*.md`` in the order of ``nav:`` in ``mkdocs.yml``, then ``README.md``
(``tests/docs/test_doc_examples.py`` runs them; this module parses, matches and runs).

THE CONVENTION

1. A fenced block whose info string is ``console`` is a runnable example. Lines beginning with
   ``$ `` are commands; a command whose line ends with ``\\`` continues on the next line(s). The
   non-command lines after a command, up to the next command, are an EXCERPT of what that command
   prints: every non-blank excerpt line must appear, in order (a subsequence, other lines may come
   between), among the lines of the command's combined stdout+stderr, compared after stripping
   trailing whitespace; ``…`` (U+2026) in an excerpt line, with the spaces beside it, matches
   any run of characters (including none) and leading/trailing whitespace of the excerpt line
   is ignored (an excerpt line is found anywhere within an output line: a substring match, not a
   full-line match). A command with no excerpt only has to exit with status 0. A command must
   exit 0 unless its excerpt's first line is ``[exit N]``, in which case it must exit N.
2. A command ending in `` &`` runs in the background (started with ``bash -c`` in the page's
   sandbox, own process group); the runner waits (timeout 180 s) until every excerpt line of that
   command has appeared in its output so far, then continues; background processes are killed
   (whole process group) when the page ends or the test fails.
3. Fenced ``python`` blocks are runnable too: each is written to a file and run with the venv's
   python (cwd = sandbox, same env), must exit 0. A block may be preceded (on the line right
   before the fence, blank lines allowed) by an HTML comment ``<!-- not-run: REASON -->`` --
   allowed ONLY if REASON names an existing test path that covers it, in the form
   ``covered by tests/…py::test_name`` or ``covered by .ci/run``; the runner checks that the file
   exists and that (for ``::name``) ``def test_name`` occurs in it; otherwise it is an error.
   ``not-run`` may also precede a ``console`` block.
4. A lint test: every fenced block in docs/*.md and README.md, whatever its language (bash, sh,
   shell, text, none…), that contains a line invoking kgbuild as a command (``kgbuild build``,
   ``.venv/bin/kgbuild stats``… at the start of a command), or ``make`` targets, or
   ``python -m``, must be a ``console`` block (run) or carry a valid ``not-run`` comment; the
   lint fails listing file:line of each offender. Also: every ``$ `` command line in a console
   block must not reference paths that escape the sandbox (``..``, ``~``, ``$HOME``, absolute
   paths) except through the substitutions below.

THE SANDBOX

Each page runs in a sandbox folder of its own (a fresh temp folder, the cwd of every command),
so a page passes or fails alone (``pytest -k exports``). A page that builds on what another page
made says so on a line of its own, ``<!-- needs: getting-started.md -->`` (pages named relative
to the page's folder, comma-separated): its sandbox starts as a copy of the named pages' sandboxes
after they ran (:class:`PageRuns` runs each page once per test run, shared by every xdist worker
through a file lock, and hands copies to the pages that need it). Each command runs in its own
``bash -c`` (no ``cd`` or ``export`` carries over to the next command); stdin is ``/dev/null``; a
command's leftover processes are killed when it exits; the per-command timeout is 600 s.

- ``kgbuild`` and ``python`` are the venv's (its bin folder first on PATH); PYTHONPATH is the
  project root, so ``python -m tests.support.replay_llm_server …`` works. HF_HUB_OFFLINE=1,
  DO_NOT_TRACK=1, PREFECT_SERVER_ANALYTICS_ENABLED=false,
  PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS=120, PREFECT_HOME inside the sandbox,
  COLUMNS=200; OPENAI_API_KEY, OPENAI_BASE_URL, NCBI_API_KEY and every KGBUILD_* variable of
  the calling environment are removed.
- A loopback NCBI (``tests/support/eutils_server.py``: E-utilities over the fixture articles of
  ``tests/fixtures/eutils`` and PubTator3 annotations of them) is KGBUILD_EUTILS_URL and
  KGBUILD_PUBTATOR_URL, so ``kgbuild build --source pubmed --query …`` runs offline.
- Before a command (or python block) runs, its text is rewritten: :data:`PATH_SUBSTITUTIONS`
  (the shared data a user has → small fixtures; longest key first), then words starting with
  ``tests/``, ``data/``, ``bench/``, ``docs/examples/`` or ``.venv/bin/`` become absolute
  project paths (``warehouse``, ``out/``, ``report/`` stay in the sandbox), then :data:`PORTS`
  (the documented ports → free ports picked per run). Excerpt lines get the same port
  substitution.

Beyond the letter of 4: the absolute paths of :data:`SYSTEM_PATHS` (``/dev/null``, ``/etc/passwd``…)
are allowed; a page of docs/ missing from the nav is a lint error (its examples would never run),
and so is a ``needs:`` line naming a page that does not exist or that needs the page back;
``python -m tests.support.doc_examples [PAGE…]`` runs pages by hand (default: lint, then all),
each after the pages it needs, in one sandbox.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from tests.support.built_once import built_once

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
#: The venv's bin folder (the python running the tests): ``kgbuild`` and ``python`` resolve here.
BIN = Path(sys.executable).parent

#: What the docs show (the real shared data beside a clone) → what the suite runs on.
PATH_SUBSTITUTIONS: dict[str, str] = {
    # DALK's per-year PubTator corpus → two years (2019, 2020) of it.
    "../shared/data/dalk/by_year": str(FIXTURES / "llm" / "corpus"),
    # DALK's recorded LLM answers → the recorded answers for that small corpus.
    "../shared/data/dalk/extracted": str(FIXTURES / "llm" / "recordings"),
    # DALK's generated KG (head<TAB>relation<TAB>tail) → its format, 30 rows.
    "../shared/data/dalk/dalk_kg_gen.tsv": str(FIXTURES / "docs" / "dalk_kg_gen_head.tsv"),
    # Gold relation / NER sets → small ones in the same formats.
    "../shared/data/biored/Dev.PubTator": str(FIXTURES / "eval" / "biored_small.PubTator"),
    "../shared/data/biored/Dev.BioC.JSON": str(FIXTURES / "eval" / "biored_small.BioC.JSON"),
    "../shared/data/bc5cdr/CDR_DevelopmentSet.PubTator.txt": str(
        FIXTURES / "eval" / "cdr_small.PubTator.txt"
    ),
    # ADQA question sets → toy ones.
    "../shared/data/dalk/adqa/medqa_ner.json": str(FIXTURES / "query" / "adqa" / "medqa_toy.json"),
    "../shared/data/dalk/adqa/medmcqa_ner.json": str(
        FIXTURES / "query" / "adqa" / "medmcqa_toy.json"
    ),
}
#: Words starting with these (after whitespace, a quote, ``=``, ``(``… -- not inside another
#: path) are project paths: they become absolute, so they resolve from the sandbox.
PROJECT_PREFIXES = ("tests/", "data/", "bench/", "docs/examples/", ".venv/bin/")
#: Documented port → its role; each gets a free port per run, wherever it follows
#: ``127.0.0.1:``, ``localhost:``, ``0.0.0.0:``, ``--port `` or ``--port=``.
PORTS: dict[int, str] = {
    8765: "llm (an LLM server the docs start in the background)",
    8000: "serve",
}
#: Removed from the inherited environment (plus every ``KGBUILD_*``).
SCRUBBED_ENV = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "NCBI_API_KEY")

COMMAND_TIMEOUT_S = 600.0
BACKGROUND_TIMEOUT_S = 180.0
OUTPUT_TAIL = 3000

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_NOT_RUN = re.compile(r"^\s*<!--\s*not-run:(?P<reason>.*?)-->\s*$")
_NEEDS = re.compile(r"^\s*<!--\s*needs:(?P<pages>.*?)-->\s*$")
_COVERED = re.compile(r"covered by (?P<target>\.ci/run\b|tests/[\w./-]*?\.py(?:::\w+)*)")
_EXIT = re.compile(r"^\[exit (\d+)\]$")
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")
_PORT = re.compile(
    r"(?P<pre>127\.0\.0\.1:|localhost:|0\.0\.0\.0:|--port[ =])(?P<port>"
    + "|".join(str(p) for p in PORTS)
    + r")(?!\d)"
)
_PROJECT = re.compile(
    r"(?<![\w./~$-])(?P<word>" + "|".join(re.escape(p) for p in PROJECT_PREFIXES) + ")"
)
# Where a command starts on a line: the line's start (after a ``$ `` prompt and VAR=value
# assignments), or after ; & | $( -- optionally behind time/env/nohup/exec.
_CMD_START = (
    r"(?:^\s*(?:\$\s+)?(?:[A-Za-z_]\w*=\S*\s+)*|[;&|]\s*|\$\(\s*)"
    r"(?:(?:time|env|nohup|exec)\s+(?:[A-Za-z_]\w*=\S*\s+)*)*"
)
_INVOKES = re.compile(
    _CMD_START + r"(?:(?:\S*/)?kgbuild\s+[a-z-]+|(?:\S*/)?python3?(?:\.\d+)?\s+-m\s+\S)"
)
_MAKE = re.compile(_CMD_START + r"make\b(?P<args>[^;&|#`)]*)")
#: Absolute paths a command may name: on every machine, never written.
SYSTEM_PATHS = ("/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/etc/passwd")
# Paths leaving the sandbox: a ``..`` component, ``~``, ``$HOME``, an absolute path (a ``/``
# starting a word: after whitespace, ``=`` or a quote; not ``s/a/b/`` or ``host:8000/x``).
_ESCAPES = re.compile(
    r"(?<![\w.])\.\.(?:/\.\.)*(?=/|\s|$|[\"'])"
    r"|(?<![\w./-])~(?=/|\s|$)"
    r"|\$\{?HOME\b"
    r"|(?:^|(?<=[\s='\"]))/(?!(?:"
    + "|".join(re.escape(p[1:]) for p in SYSTEM_PATHS)
    + r")(?![\w./-]))(?=[\w.~-])"
)


# -- parsing --------------------------------------------------------------------------------


@dataclass
class Block:
    """A fenced block: its language (first word of the info string) and body lines."""

    path: Path
    line: int  # the opening fence's line (1-based)
    lang: str
    body: list[str]
    not_run: str | None = None  # the not-run comment's REASON
    not_run_line: int = 0

    @property
    def body_line(self) -> int:
        return self.line + 1

    @property
    def text(self) -> str:
        return "".join(line + "\n" for line in self.body)


@dataclass
class Command:
    """A ``$ `` command of a console block and what it must print."""

    text: str  # without the "$ ", continuation lines joined by newlines, no trailing " &"
    line: int
    excerpt: list[tuple[int, str]] = field(default_factory=list)  # (line, text), non-blank
    exit_code: int = 0
    background: bool = False


@dataclass
class Page:
    path: Path
    blocks: list[Block]
    errors: list[str]


class DocExampleError(AssertionError):
    """A documented example failed (message: page:line, the command, its output's tail)."""


def where(path: Path, line: int) -> str:
    with contextlib.suppress(ValueError):
        path = path.resolve().relative_to(ROOT)
    return f"{path}:{line}"


def parse_page(path: Path, text: str | None = None) -> Page:
    """The fenced blocks of a Markdown page, with their not-run comments, and format errors
    (an unterminated fence, a not-run comment followed by no fence)."""
    lines = (path.read_text(encoding="utf-8") if text is None else text).splitlines()
    blocks: list[Block] = []
    errors: list[str] = []
    pending: tuple[int, str] | None = None  # a not-run comment waiting for its fence
    i = 0
    while i < len(lines):
        line = lines[i]
        comment = _NOT_RUN.match(line)
        fence = _FENCE.match(line)
        if comment:
            if pending:
                errors.append(f"{where(path, pending[0])}: not-run comment not followed by a fence")
            pending = (i + 1, comment.group("reason").strip())
        elif line.lstrip().startswith("<!--") and "not-run" in line:
            errors.append(f"{where(path, i + 1)}: write a not-run comment on one line: "
                          "<!-- not-run: covered by tests/….py::test_name -->")  # fmt: skip
        elif fence and not (fence.group("fence")[0] == "`" and "`" in fence.group("info")):
            indent, mark = len(fence.group("indent")), fence.group("fence")
            info = fence.group("info").strip()
            lang = info.split()[0].strip("{}.").lower() if info else ""
            body: list[str] = []
            start = i
            i += 1
            while i < len(lines):
                close = _FENCE.match(lines[i])
                if (
                    close
                    and close.group("fence")[0] == mark[0]
                    and len(close.group("fence")) >= len(mark)
                    and not close.group("info").strip()
                ):
                    break
                raw = lines[i]
                strip = len(raw) - len(raw.lstrip(" \t"))
                body.append(raw[min(indent, strip) :])
                i += 1
            else:
                errors.append(f"{where(path, start + 1)}: unterminated {mark} fence")
            block = Block(path, start + 1, lang, body)
            if pending:
                block.not_run_line, block.not_run = pending
                pending = None
            blocks.append(block)
        elif line.strip() and pending:
            errors.append(f"{where(path, pending[0])}: not-run comment not followed by a fence")
            pending = None
        i += 1
    if pending:
        errors.append(f"{where(path, pending[0])}: not-run comment not followed by a fence")
    for block in blocks:
        if block.not_run is not None:
            problem = check_not_run(block.not_run)
            if problem:
                errors.append(f"{where(path, block.not_run_line)}: {problem}")
        if block.lang == "console" and block.not_run is None:
            errors += parse_console(block)[1]
    return Page(path, blocks, errors)


def check_not_run(reason: str, root: Path = ROOT) -> str | None:
    """None when REASON names tests that exist (``covered by tests/x.py::test_y`` or
    ``covered by .ci/run``), else what is wrong."""
    targets = [m.group("target") for m in _COVERED.finditer(reason)]
    if not targets:
        return (
            f"not-run reason {reason!r} must say 'covered by tests/….py::test_name' "
            "or 'covered by .ci/run'"
        )
    for target in targets:
        file, _, name = target.partition("::")
        if not (root / file).is_file():
            return f"not-run reason names {file}, which does not exist"
        if name:
            last = name.rsplit("::", 1)[-1]
            source = (root / file).read_text(encoding="utf-8")
            if not re.search(rf"^\s*(?:async\s+)?def {re.escape(last)}\(", source, re.M):
                return f"not-run reason names {target}, but {file} has no 'def {last}'"
    return None


def parse_console(block: Block) -> tuple[list[Command], list[str]]:
    """A console block's commands with their excerpts, and its format errors."""
    commands: list[Command] = []
    errors: list[str] = []
    lines = block.body
    i = 0
    while i < len(lines):
        line, number = lines[i], block.body_line + i
        if line.startswith("$ ") or line.rstrip() == "$":
            parts = [line[2:]]
            while parts[-1].rstrip().endswith("\\") and i + 1 < len(lines):
                i += 1
                parts.append(lines[i])
            text = "\n".join(parts).rstrip()
            background = bool(re.search(r"(?<![&|])\s&$", text))
            if background:
                text = text[:-1].rstrip()
            if not text:
                errors.append(f"{where(block.path, number)}: empty command")
            commands.append(Command(text, number, background=background))
        elif line.strip():
            if not commands:
                errors.append(
                    f"{where(block.path, number)}: console block: output before any '$ ' command"
                )
            else:
                cmd = commands[-1]
                code = _EXIT.match(line.strip())
                if code and not cmd.excerpt and cmd.exit_code == 0:
                    cmd.exit_code = int(code.group(1))
                else:
                    cmd.excerpt.append((number, line.strip()))
        i += 1
    if not commands and not errors:
        errors.append(f"{where(block.path, block.line)}: console block without a '$ ' command")
    return commands, errors


# -- matching --------------------------------------------------------------------------------


def excerpt_regex(line: str) -> re.Pattern[str]:
    """An excerpt line as a regex: the literal parts, ``…`` matching any run of characters; the
    spaces beside ``…`` are optional (``┃ n … ┃`` matches ``┃ n ┃``: rich pads columns)."""
    parts = re.split(r" *… *", line.strip())
    return re.compile(".*?".join(re.escape(part) for part in parts))


def output_lines(output: str) -> list[str]:
    return [line.rstrip() for line in _ANSI.sub("", output).splitlines()]


def match_excerpt(excerpt: list[str], output: str) -> int | None:
    """None when every excerpt line is found, in order, among the output's lines (each within
    one line); else the index of the first excerpt line that is not."""
    lines = output_lines(output)
    at = 0
    for k, want in enumerate(excerpt):
        if not want.strip():
            continue
        pattern = excerpt_regex(want)
        while at < len(lines) and not pattern.search(lines[at]):
            at += 1
        if at == len(lines):
            return k
        at += 1
    return None


# -- lint ------------------------------------------------------------------------------------


@lru_cache(maxsize=4)
def make_targets(root: Path = ROOT) -> frozenset[str]:
    """The targets of the project's Makefile (empty when there is none)."""
    makefile = root / "Makefile"
    if not makefile.is_file():
        return frozenset()
    text = makefile.read_text(encoding="utf-8")
    targets = set(re.findall(r"^([A-Za-z][\w.-]*)\s*:(?!=)", text, re.M))
    for phony in re.findall(r"^\.PHONY\s*:(.*)$", text, re.M):
        targets.update(phony.split())
    return frozenset(targets)


def invokes_commands(line: str, root: Path = ROOT) -> bool:
    """Does the line run kgbuild, ``python -m`` or make (bare, or a target of the Makefile) as a
    command?"""
    if _INVOKES.search(line):
        return True
    targets = make_targets(root)
    for m in _MAKE.finditer(line):
        words = [w for w in m.group("args").split() if not w.startswith("-") and "=" not in w]
        if not words or not targets or words[0] in targets:
            return True
    return False


def escapes_sandbox(command: str) -> list[str]:
    """Paths in a command that leave the sandbox once the substitutions are applied."""
    text = command
    for key in sorted(PATH_SUBSTITUTIONS, key=len, reverse=True):
        text = text.replace(key, "SUBSTITUTED")
    text = _PROJECT.sub("PROJECT/", text)
    found, at = [], 0
    while m := _ESCAPES.search(text, at):
        at = re.compile(r"[^\s'\"]*").match(text, m.end()).end()
        found.append(text[m.start() : at])
    return found


def lint_page(page: Page) -> list[str]:
    """Offenders of the convention on one page, as ``file:line: what``."""
    problems = list(page.errors)
    for block in page.blocks:
        if block.not_run is not None or block.lang == "python":
            continue
        if block.lang == "console":
            for cmd in parse_console(block)[0]:
                for path in escapes_sandbox(cmd.text):
                    problems.append(
                        f"{where(block.path, cmd.line)}: '{path}' leaves the sandbox "
                        "(use a substituted path, see tests/support/doc_examples.py)"
                    )
            continue
        for k, line in enumerate(block.body):
            if invokes_commands(line):
                problems.append(
                    f"{where(block.path, block.body_line + k)}: a command in a "
                    f"'{block.lang or 'plain'}' block: make it a console block (run by the "
                    "tests) or precede it with <!-- not-run: covered by tests/….py::test_x -->"
                )
                break
    return problems


# -- pages -----------------------------------------------------------------------------------


def _load_yaml(text: str) -> Any:
    """yaml.safe_load; unknown tags (``!!python/name:…``, ``!ENV``) read as None."""
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.constructor.ConstructorError:

        class Tolerant(yaml.SafeLoader):
            pass

        Tolerant.add_multi_constructor("", lambda loader, suffix, node: None)
        return yaml.load(text, Loader=Tolerant)


def _nav_files(nav: Any) -> Iterator[str]:
    if isinstance(nav, str):
        if not re.match(r"^[a-z]+://", nav):
            yield nav
    elif isinstance(nav, list):
        for item in nav:
            yield from _nav_files(item)
    elif isinstance(nav, dict):
        for value in nav.values():
            yield from _nav_files(value)


def doc_pages(root: Path = ROOT) -> list[tuple[str, Path | None, str]]:
    """(test id, page, error) per page in run order: the nav pages, then README.md. A page that
    cannot run (no mkdocs.yml, no nav, a nav entry with no file) comes with its error."""
    pages: list[tuple[str, Path | None, str]] = []
    config = root / "mkdocs.yml"
    if not config.is_file():
        pages.append(("mkdocs.yml", None, f"{config} does not exist: no docs to run"))
    else:
        conf = _load_yaml(config.read_text(encoding="utf-8")) or {}
        docs = root / conf.get("docs_dir", "docs")
        files = list(_nav_files(conf.get("nav")))
        if not files:
            pages.append(("mkdocs.yml", None, f"{config} has no nav: the page order is unknown"))
        for name in files:
            path = docs / name
            error = "" if path.is_file() else f"{path} is in the nav of {config} but missing"
            pages.append((name, path, error))
    readme = root / "README.md"
    pages.append(("README.md", readme, "" if readme.is_file() else f"{readme} is missing"))
    return pages


def page_needs(path: Path) -> list[Path]:
    """The pages ``path`` builds on: its ``<!-- needs: a.md, b.md -->`` lines, in order, each
    name relative to the page's folder."""
    needs: list[Path] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        m = _NEEDS.match(line)
        if m:
            for name in m.group("pages").split(","):
                if name.strip():
                    needs.append(path.parent / name.strip())
    return needs


def needs_problems(path: Path) -> list[str]:
    """A ``needs:`` line that names a missing page, or a page that needs this one back (a
    circle would never run)."""
    problems = []
    for need in page_needs(path):
        if not need.is_file():
            problems.append(f"{where(path, 1)}: needs {need.name}, which does not exist")
    try:
        with_needs([path])
    except DocExampleError as exc:
        problems.append(str(exc))
    return problems


def with_needs(pages: list[Path]) -> list[Path]:
    """``pages`` with the pages they need (transitively) before them, each once, in order."""
    ordered: list[Path] = []

    def visit(page: Path, stack: tuple[Path, ...]) -> None:
        page = page.resolve()
        if page in stack:
            chain = " → ".join(p.name for p in (*stack, page))
            raise DocExampleError(f"{where(page, 1)}: pages need each other: {chain}")
        if page in ordered:
            return
        for need in page_needs(page) if page.is_file() else []:
            visit(need, (*stack, page))
        ordered.append(page)

    for page in pages:
        visit(page, ())
    return ordered


def lint_docs(root: Path = ROOT) -> list[str]:
    """Every offender of the convention in docs/**/*.md and README.md, plus pages that are
    missing from the nav (their examples would never run)."""
    problems = [error for _, _, error in doc_pages(root) if error]
    listed = {path.resolve() for _, path, _ in doc_pages(root) if path}
    docs = root / "docs"
    files = sorted(docs.rglob("*.md")) if docs.is_dir() else []
    for path in files:
        if path.resolve() not in listed:
            problems.append(f"{where(path, 1)}: not in the nav of mkdocs.yml, so never run")
    for path in [*files, root / "README.md"]:
        if path.is_file():
            problems += lint_page(parse_page(path)) + needs_problems(path)
    return problems


# -- the loopback NCBI -----------------------------------------------------------------------

#: Terms the loopback PubTator3 annotates in the fixture articles: text → (type, identifier).
PUBTATOR_TERMS: dict[str, tuple[str, str]] = {
    "Curcumin": ("Chemical", "MESH:D003474"),
    "APP": ("Gene", "351"),
    "amyloid beta": ("Gene", "351"),
    "Alzheimer disease": ("Disease", "MESH:D000544"),
    "Alzheimer's disease": ("Disease", "MESH:D000544"),
    "Apolipoprotein E4": ("Gene", "348"),
    "APOE4": ("Gene", "348"),
    "tau": ("Gene", "4137"),
    "TREM2": ("Gene", "54209"),
    "memory loss": ("Disease", "MESH:D008569"),
    "donepezil": ("Chemical", "MESH:D000077265"),
    "mild cognitive impairment": ("Disease", "MESH:D060825"),
    "cognitive decline": ("Disease", "MESH:D003072"),
    "Insulin": ("Gene", "3630"),
    "BACE1": ("Gene", "23621"),
    "Clusterin": ("Gene", "1191"),
    "Memantine": ("Chemical", "MESH:D008559"),
    "glutamate": ("Chemical", "MESH:D018698"),
    "Presenilin 1": ("Gene", "5663"),
    "Acetylcholinesterase": ("Gene", "43"),
}


def pubtator_docs(fake: Any) -> dict[str, dict[str, Any]]:
    """PubTator3 BioC documents (the export API's shape) for the loopback's fixture articles,
    annotating :data:`PUBTATOR_TERMS` as whole words."""
    from kgbuild.sources.pubmed import parse_pubmed_xml

    docs: dict[str, dict[str, Any]] = {}
    for pmid, xml in fake.articles.items():
        (art,) = parse_pubmed_xml(f"<PubmedArticleSet>{xml}</PubmedArticleSet>".encode())
        passages, offset, n = [], 0, 0
        for kind, text in (("title", art.title or ""), ("abstract", art.abstract or "")):
            anns = []
            for term, (typ, ident) in PUBTATOR_TERMS.items():
                for m in re.finditer(rf"(?<!\w){re.escape(term)}(?!\w)", text, re.I):
                    n += 1
                    anns.append(
                        {
                            "id": str(n),
                            "text": m.group(),
                            "infons": {"type": typ, "identifier": ident},
                            "locations": [{"offset": offset + m.start(), "length": len(term)}],
                        }
                    )
            passages.append(
                {"offset": offset, "text": text, "infons": {"type": kind}, "annotations": anns}
            )
            offset += len(text) + 1
        docs[pmid] = {
            "_id": f"{pmid}|None",
            "id": pmid,
            "pmid": int(pmid),
            "passages": passages,
            "relations": [],
        }
    return docs


@contextmanager
def loopback_ncbi() -> Iterator[Any]:
    """The loopback E-utilities + PubTator3 server over tests/fixtures/eutils."""
    from tests.support.eutils_server import FakeNCBI, serve

    fake = FakeNCBI()
    fake.pubtator = pubtator_docs(fake)
    with serve(fake):
        yield fake


# -- running ---------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sandbox_env(folder: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The inherited environment without API keys and KGBUILD_*, set up for the sandbox."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in SCRUBBED_ENV and not k.startswith("KGBUILD_")
    }
    env.update(
        PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        PYTHONPATH=str(ROOT),
        HF_HUB_OFFLINE="1",
        DO_NOT_TRACK="1",
        PREFECT_SERVER_ANALYTICS_ENABLED="false",
        PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="120",
        PREFECT_HOME=str(folder / ".prefect"),
        COLUMNS="200",
    )
    env.update(extra or {})
    return env


def _kill_group(proc: subprocess.Popen[bytes], grace_s: float = 5.0) -> None:
    """Stop a process and everything in its process group: SIGTERM, up to ``grace_s`` for the
    group to exit, then SIGKILL."""

    def group_alive() -> bool:
        proc.poll()  # reap the leader: a zombie still counts as a member
        try:
            os.killpg(proc.pid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True

    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while group_alive() and time.monotonic() < deadline:
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


@dataclass
class Background:
    command: Command
    proc: subprocess.Popen[bytes]
    log: Path
    page: Path


class Sandbox:
    """One folder, one environment, free ports: runs pages one after another."""

    def __init__(
        self,
        folder: Path,
        extra_env: dict[str, str] | None = None,
        *,
        timeout_s: float = COMMAND_TIMEOUT_S,
        background_timeout_s: float = BACKGROUND_TIMEOUT_S,
    ) -> None:
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self.scratch = folder / ".doc-examples"  # outputs, python blocks
        self.scratch.mkdir(exist_ok=True)
        self.env = sandbox_env(folder, extra_env)
        self.ports = {port: free_port() for port in PORTS}
        self.timeout_s, self.background_timeout_s = timeout_s, background_timeout_s
        self.background: list[Background] = []
        self.log: list[str] = []  # what ran, for the failure messages
        self._n = 0

    # -- substitutions --

    def substitute_ports(self, text: str) -> str:
        return _PORT.sub(lambda m: m.group("pre") + str(self.ports[int(m.group("port"))]), text)

    def substitute(self, text: str) -> str:
        """A documented command (or python block) as it runs here (see the module docstring)."""
        for key in sorted(PATH_SUBSTITUTIONS, key=len, reverse=True):
            text = text.replace(key, PATH_SUBSTITUTIONS[key])
        text = _PROJECT.sub(
            lambda m: str(BIN) + "/" if m.group("word") == ".venv/bin/" else f"{ROOT}/{m['word']}",
            text,
        )
        return self.substitute_ports(text)

    # -- running --

    def _out(self, name: str) -> Path:
        self._n += 1
        return self.scratch / f"{self._n:03d}-{name}.out"

    def _start(self, argv: list[str], out: Path) -> subprocess.Popen[bytes]:
        with out.open("wb") as sink:
            return subprocess.Popen(
                argv,
                cwd=self.folder,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def _fail(self, page: Path, line: int, what: str, shown: str, ran: str, out: str) -> None:
        tail = out[-OUTPUT_TAIL:]
        cut = "…" if len(out) > OUTPUT_TAIL else ""
        ran_line = f"ran: {ran}\n" if ran != shown else ""
        raise DocExampleError(
            f"{where(page, line)}: {what}\n$ {shown}\n{ran_line}"
            f"--- output ({len(out)} chars, last {OUTPUT_TAIL}) ---\n{cut}{tail}"
            + self._background_report()
        )

    def _background_report(self) -> str:
        """What each background command still running (or not) printed: a failing ``curl``
        says little, the server it called says why (a flake seen only under CI load)."""
        parts = []
        for bg in self.background:
            code = bg.proc.poll()
            state = "running" if code is None else f"exited {code}"
            out = bg.log.read_text(errors="replace") if bg.log.exists() else ""
            cut = "…" if len(out) > OUTPUT_TAIL else ""
            parts.append(
                f"\n--- background {where(bg.page, bg.command.line)} ({state}): "
                f"{bg.command.text}\n{cut}{out[-OUTPUT_TAIL:]}"
            )
        return "".join(parts)

    def run_command(self, page: Path, cmd: Command) -> None:
        ran = self.substitute(cmd.text)
        escapes = escapes_sandbox(cmd.text)
        if escapes:
            raise DocExampleError(
                f"{where(page, cmd.line)}: {', '.join(map(repr, escapes))} leaves the sandbox\n"
                f"$ {cmd.text}"
            )
        excerpt = [self.substitute_ports(text) for _, text in cmd.excerpt]
        out_path = self._out("bg" if cmd.background else "cmd")
        started = time.monotonic()
        proc = self._start(["bash", "-c", ran], out_path)
        if cmd.background:
            self.background.append(Background(cmd, proc, out_path, page))
            self._wait_background(page, cmd, ran, proc, out_path, excerpt)
            self.log.append(f"{where(page, cmd.line)} started in the background")
            return
        try:
            code = proc.wait(timeout=self.timeout_s)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            out = out_path.read_text(errors="replace")
            self._fail(
                page, cmd.line, f"timed out after {self.timeout_s:.0f} s", cmd.text, ran, out
            )
        _kill_group(proc, grace_s=1.0)  # whatever the command left running
        took = time.monotonic() - started
        out = out_path.read_text(errors="replace")
        self.log.append(f"{where(page, cmd.line)} exit {code} in {took:.1f} s")
        if code != cmd.exit_code:
            self._fail(
                page, cmd.line, f"exit status {code}, expected {cmd.exit_code}", cmd.text, ran, out
            )
        missing = match_excerpt(excerpt, out)
        if missing is not None:
            line, text = cmd.excerpt[missing]
            self._fail(
                page,
                cmd.line,
                f"excerpt line {where(page, line)} not found (in order) in the output: {text!r}",
                cmd.text,
                ran,
                out,
            )

    def _wait_background(
        self,
        page: Path,
        cmd: Command,
        ran: str,
        proc: subprocess.Popen[bytes],
        out_path: Path,
        excerpt: list[str],
    ) -> None:
        deadline = time.monotonic() + self.background_timeout_s
        while True:
            out = out_path.read_text(errors="replace")
            if match_excerpt(excerpt, out) is None:
                return
            if proc.poll() is not None:
                out = out_path.read_text(errors="replace")
                if match_excerpt(excerpt, out) is None:
                    return
                self._fail(
                    page,
                    cmd.line,
                    f"background command exited ({proc.returncode}) before printing its excerpt",
                    cmd.text,
                    ran,
                    out,
                )
            if time.monotonic() > deadline:
                missing = match_excerpt(excerpt, out)
                text = cmd.excerpt[missing or 0][1]
                self._fail(
                    page,
                    cmd.line,
                    f"background command did not print {text!r} within "
                    f"{self.background_timeout_s:.0f} s",
                    cmd.text,
                    ran,
                    out,
                )
            time.sleep(0.2)

    def run_python(self, page: Path, block: Block) -> None:
        script = self.scratch / f"{page.stem}_{block.line}.py"
        script.write_text(self.substitute(block.text), encoding="utf-8")
        out_path = self._out("py")
        proc = self._start([sys.executable, str(script)], out_path)
        shown = f"python {script.name}  # the python block at line {block.line}"
        try:
            code = proc.wait(timeout=self.timeout_s)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            out = out_path.read_text(errors="replace")
            self._fail(page, block.line, "python block timed out", shown, shown, out)
        _kill_group(proc, grace_s=1.0)
        out = out_path.read_text(errors="replace")
        self.log.append(f"{where(page, block.line)} python block exit {code}")
        if code != 0:
            self._fail(page, block.line, f"python block exit status {code}", shown, shown, out)

    def stop_background(self) -> None:
        while self.background:
            _kill_group(self.background.pop().proc)

    def run_page(self, path: Path) -> list[str]:
        """Run a page's examples in order; raise DocExampleError at the first failure (format
        errors first, all of them). Background processes are stopped at the end. Returns the
        log of what ran."""
        page = parse_page(path)
        if page.errors:
            raise DocExampleError("\n".join(page.errors))
        start = len(self.log)
        try:
            for block in page.blocks:
                if block.not_run is not None:
                    continue
                if block.lang == "console":
                    for cmd in parse_console(block)[0]:
                        self.run_command(path, cmd)
                elif block.lang == "python":
                    self.run_python(path, block)
        finally:
            self.stop_background()
        return self.log[start:]

    def close(self) -> None:
        self.stop_background()


@contextmanager
def sandbox(folder: Path) -> Iterator[Sandbox]:
    """A sandbox in ``folder`` with the loopback NCBI running; stops everything on exit."""
    with loopback_ncbi() as fake:
        box = Sandbox(
            folder,
            {"KGBUILD_EUTILS_URL": fake.eutils_url, "KGBUILD_PUBTATOR_URL": fake.pubtator_url},
        )
        try:
            yield box
        finally:
            box.close()


@dataclass
class PageRun:
    """A page run once in a sandbox of its own: the folder (what pages that need it copy) and
    what failed ("" when it passed)."""

    page: Path
    folder: Path
    error: str
    log: list[str]


class PageRuns:
    """Each page run once per test run, in its own sandbox, after copying in the sandboxes of
    the pages it needs (their state after they ran). ``root`` may be shared by several
    processes (pytest-xdist workers): :func:`~tests.support.built_once.built_once` makes one of
    them run a page and the others read its result, so a page that many pages need is still run
    once."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def run(self, page: Path) -> PageRun:
        page = page.resolve()
        name = re.sub(r"[^\w.-]", "_", page.name)
        slot = built_once(self.root, name, [str(page), page], lambda s: self._run(page, s))
        done = json.loads((slot / "result.json").read_text(encoding="utf-8"))
        return PageRun(page, slot / "sandbox", done["error"], done["log"])

    def _run(self, page: Path, slot: Path) -> None:
        """Run ``page`` in ``slot/sandbox``; its outcome (failed or not) goes to result.json."""
        folder = slot / "sandbox"
        folder.mkdir(parents=True)
        error, log = "", []
        for need in page_needs(page):
            before = self.run(need)
            if before.error:
                error = f"{where(page, 1)}: needs {need.name}, which failed:\n{before.error}"
                break
            shutil.copytree(
                before.folder,
                folder,
                dirs_exist_ok=True,
                symlinks=True,
                ignore=shutil.ignore_patterns(".doc-examples"),
            )
        if not error:
            with sandbox(folder) as box:
                try:
                    log = box.run_page(page)
                except DocExampleError as exc:
                    error, log = str(exc), box.log
        (slot / "result.json").write_text(json.dumps({"error": error, "log": log}), "utf-8")


def main(argv: list[str] | None = None) -> int:
    """``python -m tests.support.doc_examples [PAGE…]``: lint, then run the pages (default: the
    docs in nav order and README.md; a page after the pages it needs) in one sandbox, printing
    what ran and what failed."""
    args = list(sys.argv[1:] if argv is None else argv)
    problems = lint_docs() if not args else []
    for problem in problems:
        print(f"LINT {problem}")
    pages = with_needs([Path(a) for a in args] or [p for _, p, e in doc_pages() if p and not e])
    failed = 0
    with tempfile.TemporaryDirectory(prefix="doc-sandbox-") as tmp, sandbox(Path(tmp)) as box:
        for page in pages:
            started = time.monotonic()
            try:
                for entry in box.run_page(page):
                    print(f"  {entry}")
                print(f"PASS {page} ({time.monotonic() - started:.1f} s)")
            except DocExampleError as exc:
                failed += 1
                print(f"FAIL {page} ({time.monotonic() - started:.1f} s)\n{exc}")
    print(f"{len(pages)} pages, {failed} failed, {len(problems)} lint problems")
    return 1 if failed or problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
