"""Every command example of the documentation runs (tests/support/doc_examples.py has the
convention): docs/*.md in mkdocs.yml's nav order, then README.md, in one shared sandbox; and the
lint that keeps every command of the docs in a run (or covered) block."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import doc_examples as dx

SAMPLE = dx.FIXTURES / "docs" / "sample.md"
PAGES = dx.doc_pages()


def test_docs_follow_the_convention():
    problems = dx.lint_docs()
    assert not problems, "documentation examples break the convention:\n" + "\n".join(problems)


@pytest.fixture(scope="module")
def doc_sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dx.Sandbox]:
    with dx.sandbox(tmp_path_factory.mktemp("docs-sandbox")) as box:
        yield box


@pytest.mark.slow
@pytest.mark.parametrize(
    ("page", "error"), [(p, e) for _, p, e in PAGES], ids=[i for i, _, _ in PAGES]
)
def test_page(doc_sandbox: dx.Sandbox, page: Path | None, error: str):
    if error:
        pytest.fail(error)
    try:
        doc_sandbox.run_page(page)
    except dx.DocExampleError as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.mark.slow
def test_sample_page(tmp_path):
    started = time.monotonic()
    with dx.sandbox(tmp_path / "sandbox") as box:
        try:
            ran = box.run_page(SAMPLE)
        except dx.DocExampleError as exc:
            pytest.fail(str(exc), pytrace=False)
        assert not box.background  # the replay server was stopped with the page
    assert len(ran) == 10  # 9 commands (one in the background) and the python block
    assert any("started in the background" in entry for entry in ran)
    assert (tmp_path / "sandbox" / "warehouse").is_dir()
    print(f"sample page: {time.monotonic() - started:.1f} s")


def test_readme_links_resolve():
    """README.md is not part of the mkdocs site (whose --strict build checks the pages' links),
    so its relative links are checked here: a moved or renamed page fails."""
    readme = dx.ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    links = [m for m in re.findall(r"\]\(([^)\s]+)\)", text) if "://" not in m]
    assert links, "README.md links to no documentation page"
    missing = [m for m in links if not (readme.parent / m.split("#")[0]).exists()]
    assert not missing, f"README.md links to missing files: {missing}"
    assert len(text.splitlines()) <= 200, "README.md is meant to fit on one page (≤ 200 lines)"
