"""``kgbuild report``: one self-contained HTML page — every chart present and a real non-blank
PNG, every table with rows, data escaped, deterministic — and rendered by Debian's headless
Chromium with every image decoded (`make test` installs it: tests/support/install_chromium.sh)."""

import base64
import io
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser

import pytest
from PIL import Image

from kgbuild.report.page import report_targets, table, write_report
from tests.support.synthetic_kg import build_fixture_kgs, publish_synthetic

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


class Page(HTMLParser):
    """Charts (figure data-chart + img), tables with their body rows, and notes of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.charts: dict[str, str] = {}
        self.tables: list[int] = []
        self.sections = 0
        self.scripts = 0
        self._chart = None
        self._tbody = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "figure":
            self._chart = a.get("data-chart")
        elif tag == "img" and self._chart:
            self.charts[self._chart + f"#{self.sections}"] = a["src"]
        elif tag == "table":
            self.tables.append(0)
        elif tag == "tbody":
            self._tbody = True
        elif tag == "tr" and self._tbody:
            self.tables[-1] += 1
        elif tag == "section":
            self.sections += 1
        elif tag in ("script", "link", "iframe"):
            self.scripts += 1

    def handle_endtag(self, tag):
        if tag == "figure":
            self._chart = None
        elif tag == "tbody":
            self._tbody = False


def parse(path):
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def png_of(src):
    assert src.startswith("data:image/png;base64,")
    im = Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1])))
    im.load()
    return im


@pytest.fixture(scope="module")
def syn(tmp_path_factory):
    from kgbuild.store.snapshots import Warehouse

    root = tmp_path_factory.mktemp("syn") / "wh"
    publish_synthetic(root, 400, 150, years=(2018, 2019, 2020), tricky=True)
    return Warehouse(root)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build_fixture_kgs(tmp_path_factory.mktemp("built"))


ALWAYS = {"size", "added", "relations", "relation-share", "kinds", "documents", "support",
          "confidence", "hubs"}  # fmt: skip


@pytest.mark.slow  # matplotlib charts, a browser, CLI processes
def test_report_has_every_chart_and_table_and_is_deterministic(syn, tmp_path):
    path = write_report(syn, report_targets(syn, []), tmp_path / "o'brien é")
    page = parse(path)
    keys = {k.split("#")[0] for k in page.charts}
    assert keys == ALWAYS | {"extraction", "llm"}  # no problems/rejections in this KG
    for key, src in page.charts.items():
        im = png_of(src)
        assert im.width >= 500 and im.height >= 250, key
        lo, hi = im.convert("L").getextrema()
        assert hi - lo > 100, f"{key} looks blank"
    assert page.tables and all(n > 0 for n in page.tables), page.tables
    assert page.scripts == 0  # no script, no external resource: self-contained
    html = path.read_text(encoding="utf-8")
    assert "http://" not in html and "https://" not in html
    hostile = table(["name", "n"], [['<script>alert("x")</script> & co', 3]])
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co" in hostile
    assert "No input problems" in html and "No rejected claims" in html
    again = write_report(syn, report_targets(syn, []), tmp_path / "again")
    assert again.read_bytes() == path.read_bytes()


@pytest.mark.slow  # matplotlib charts, a browser, CLI processes
def test_report_of_pipeline_builds_shows_problems_and_llm_use(built, tmp_path):
    cooc, gen = built["cooc"], built["gen"]
    p = parse(write_report(cooc, [cooc.resolve("latest")], tmp_path / "c"))
    keys = {k.split("#")[0] for k in p.charts}
    assert "problems" in keys and "extraction" not in keys and "llm" not in keys
    g = parse(write_report(gen, [gen.resolve("latest")], tmp_path / "g"))
    assert {"extraction", "llm", "rejections"} <= {k.split("#")[0] for k in g.charts}
    assert all(n > 0 for n in p.tables + g.tables)


@pytest.mark.slow  # matplotlib charts, a browser, CLI processes
def test_report_of_several_snapshots_and_the_command_line(syn, tmp_path):
    env = {**os.environ, "KGBUILD_WAREHOUSE": str(syn.root)}

    def run(*args):
        return subprocess.run([sys.executable, "-m", "kgbuild.cli", "report", *args],
                              capture_output=True, text=True, env=env, timeout=300)  # fmt: skip

    ok = run("synthetic@2018", "synthetic@2020", "--out", str(tmp_path / "two"))
    assert ok.returncode == 0, ok.stderr
    page = parse(tmp_path / "two" / "report.html")
    assert page.sections == 2
    cases = [([], "give an output folder"),
             (["nope", "--out", str(tmp_path / "x")], "unknown snapshot")]  # fmt: skip
    for args, message in cases:
        bad = run(*args)
        lines = [ln for ln in bad.stderr.splitlines() if ln.strip()]
        assert bad.returncode == 2 and len(lines) == 1 and message in lines[0], bad.stderr


#: Appended to a copy of the page: counts images the browser could not decode.
PROBE = (
    "<script>window.addEventListener('load',()=>{const bad=[...document.images].filter("
    "i=>!i.complete||i.naturalWidth===0).length;document.body.setAttribute('data-images',"
    "document.images.length);document.body.setAttribute('data-broken',bad);});</script>"
)


@pytest.mark.slow  # matplotlib charts, a browser, CLI processes
def test_report_renders_in_headless_chromium(syn, tmp_path):
    # A check CI never runs checks nothing: a missing browser fails (make test installs it).
    assert os.path.exists(CHROMIUM), (
        "Debian's chromium is not installed: `make test` installs it as root "
        "(tests/support/install_chromium.sh), or run `apt-get install -y chromium`"
    )
    path = write_report(syn, report_targets(syn, []), tmp_path / "r")
    n_charts = len(parse(path).charts)
    probe = tmp_path / "probe.html"
    probe.write_text(path.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"))
    flags = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", "--hide-scrollbars",
             "--window-size=1200,2400", "--virtual-time-budget=5000"]  # fmt: skip
    dom = subprocess.run([*flags, "--dump-dom", probe.as_uri()], capture_output=True, text=True,
                         timeout=120)  # fmt: skip
    assert dom.returncode == 0, dom.stderr[-2000:]
    body = re.search(r"<body[^>]*>", dom.stdout).group(0)
    assert f'data-images="{n_charts}"' in body and 'data-broken="0"' in body, body
    shot = tmp_path / "shot.png"
    run = subprocess.run([*flags, f"--screenshot={shot}", path.as_uri()], capture_output=True,
                         text=True, timeout=120)  # fmt: skip
    assert run.returncode == 0 and shot.exists(), run.stderr[-2000:]
    im = Image.open(shot)
    assert im.size == (1200, 2400)
    lo, hi = im.convert("L").getextrema()
    assert hi - lo > 100  # something was drawn


def test_quality_counts_only_model_typed_relations_as_hetionet(built):
    """A co-occurrence KG's relations are labels chosen by kind pair, not extracted —
    its Hetionet relation share is 0, not 100%; a generative KG's typed relations count."""
    from kgbuild.report.quality import snapshot_quality

    cooc, gen = built["cooc"], built["gen"]
    q = snapshot_quality(cooc, cooc.resolve("latest"))
    assert q["triples"] > 0 and q["hetionet_relation_share"] == 0.0
    assert q["model_typed_triples"] == 0 and q["dalk_relation_share"] == 0.0
    g = snapshot_quality(gen, gen.resolve("latest"))
    assert g["model_typed_triples"] > 0 and g["hetionet_relation_share"] > 0.0
