"""Every command example of the documentation runs (tests/support/doc_examples.py has the
convention): docs/*.md of mkdocs.yml's nav and README.md, each page in a sandbox of its own that
starts from the sandboxes of the pages it says it needs; and the lint that keeps every command of
the docs in a run (or covered) block."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from tests.conftest import shared_tmp
from tests.support import doc_examples as dx

SAMPLE = dx.FIXTURES / "docs" / "sample.md"
PAGES = dx.doc_pages()


def test_docs_follow_the_convention():
    problems = dx.lint_docs()
    assert not problems, "documentation examples break the convention:\n" + "\n".join(problems)


@pytest.fixture(scope="session")
def page_runs(tmp_path_factory: pytest.TempPathFactory) -> dx.PageRuns:
    """One run per page for the whole test run: under xdist the workers share the folder beside
    their own temp folders, so a page that others need runs once, not once per worker."""
    return dx.PageRuns(shared_tmp(tmp_path_factory) / "doc-pages")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("page", "error"), [(p, e) for _, p, e in PAGES], ids=[i for i, _, _ in PAGES]
)
def test_page(page_runs: dx.PageRuns, page: Path | None, error: str):
    if error:
        pytest.fail(error)
    run = page_runs.run(page)
    if run.error:
        pytest.fail(run.error, pytrace=False)


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
