"""The explorer's curation write endpoint against a real ``kgbuild serve`` on 127.0.0.1: only a
same-origin request of this server's page, with its token, a JSON body within bounds and a
known label, is stored (kgbuild/serve/explorer/curate.py); every other gets a clear 4xx and
leaves the warehouse's curation log as it was. A stored "does not state it" takes the sentence
out of what the server serves, without a restart."""

import time

import httpx
import pytest

from kgbuild.serve.explorer.curate import MAX_CURATION_BYTES, RATE_PER_MINUTE
from kgbuild.store import curations as C
from tests.support.hostile_kg import build_hostile_kg
from tests.support.serve_process import HTTP, start_serve, stop_server

pytestmark = pytest.mark.slow  # kgbuild serve processes

APOE = "NCBIGene:348"
TRIPLE = "t:NCBIGene:348|associates|MESH:D000544"
BODY = {"triple_id": TRIPLE, "pmid": "1002",
        "sentence": "The APOE e4 allele raises the risk of Alzheimer disease.",
        "label": "does_not_state", "note": "a risk factor", "curator": "ann"}  # fmt: skip


@pytest.fixture(scope="module")
def server(hostile):
    wh = hostile
    proc, url = start_serve(wh, "--no-embed", timeout_s=60)
    try:
        yield wh, url
    finally:
        stop_server(proc)


def _token(url: str) -> str:
    r = HTTP.get(f"{url}/api/curate/token", headers={"Sec-Fetch-Site": "same-origin"})
    assert r.status_code == 200 and r.headers.get("access-control-allow-origin") is None
    return r.json()["token"]


def _post(url: str, body=None, *, token: str | None, origin: str | None = "self",
          kind: str = "application/json", raw: bytes | None = None, **headers: str):  # fmt: skip
    h = {"Content-Type": kind, **headers}
    if origin is not None:
        h["Origin"] = url if origin == "self" else origin
    if token is not None:
        h["X-Curation-Token"] = token
    data = raw if raw is not None else httpx.Request("POST", url, json=body or BODY).content
    return HTTP.post(f"{url}/api/curations", content=data, headers=h, timeout=10)


def _lines(wh) -> int:
    return C.log_path(wh).read_bytes().count(b"\n")


def _support(url: str, as_of: int | None = None) -> int:
    params = {"as_of": str(as_of)} if as_of else {}
    page = HTTP.get(f"{url}/api/entity/{APOE}", params=params, timeout=10).json()
    return next(f["support"] for g in page["relations"] for f in g["facts"] if f["edge"] == TRIPLE)


@pytest.mark.parametrize(
    ("case", "status", "words"),
    [
        ("no token", 403, "token"),
        ("wrong token", 403, "token"),
        ("no Origin", 403, "Origin"),
        ("another origin", 403, "Origin"),
        ("another port of 127.0.0.1", 403, "Origin"),
        ("cross-site fetch metadata", 403, "Sec-Fetch-Site"),
        ("a form's content type", 415, "application/json"),
        ("a rebound host name", 421, "loopback"),
        ("oversize body", 413, "bytes"),
        ("bad label", 422, "label"),
        ("long note", 422, "note"),
        ("unknown field", 422, "extra"),
        ("not JSON", 422, "invalid"),
        ("a sentence the snapshot does not hold", 404, "no such sentence"),
    ],
)
def test_refused_writes_get_a_clear_4xx_and_store_nothing(server, case, status, words):
    wh, url = server
    token = _token(url)
    port = url.rsplit(":", 1)[1]
    before = _lines(wh)
    kw: dict = {"token": token}
    if case == "no token":
        kw["token"] = None
    elif case == "wrong token":
        kw["token"] = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    elif case == "no Origin":
        kw["origin"] = None
    elif case == "another origin":
        kw["origin"] = "http://evil.example"
    elif case == "another port of 127.0.0.1":
        kw["origin"] = f"http://127.0.0.1:{int(port) + 1}"
    elif case == "cross-site fetch metadata":
        kw["Sec-Fetch-Site"] = "same-site"
    elif case == "a form's content type":
        kw["kind"] = "application/x-www-form-urlencoded"
    elif case == "a rebound host name":
        kw["Host"] = f"evil.example:{port}"
        kw["origin"] = f"http://evil.example:{port}"
    elif case == "oversize body":
        kw["raw"] = b'{"note": "' + b"x" * MAX_CURATION_BYTES + b'"}'
    elif case == "bad label":
        kw["body"] = {**BODY, "label": "maybe"}
    elif case == "long note":
        kw["body"] = {**BODY, "note": "x" * (C.MAX_NOTE + 1)}
    elif case == "unknown field":
        kw["body"] = {**BODY, "snapshot_id": "other"}
    elif case == "not JSON":
        kw["raw"] = b"label=does_not_state"
    elif case == "a sentence the snapshot does not hold":
        kw["body"] = {**BODY, "sentence": "APOE was never studied."}
    r = _post(url, **kw)
    assert r.status_code == status, r.text
    assert words.lower() in r.text.lower()
    assert r.headers.get("access-control-allow-origin") is None
    assert _lines(wh) == before


def test_the_token_is_not_given_to_another_site_or_a_rebound_name(server):
    _, url = server
    port = url.rsplit(":", 1)[1]
    r = HTTP.get(f"{url}/api/curate/token", headers={"Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 403 and "token" not in r.json()
    r = HTTP.get(f"{url}/api/curate/token", headers={"Host": f"evil.example:{port}"})
    assert r.status_code == 403 and "token" not in r.json()


def test_a_same_origin_curation_is_stored_and_takes_the_sentence_out_of_what_is_served(server):
    wh, url = server
    assert _support(url) == 3
    assert _support(url, 2019) == 3  # that year's snapshot opened before the curation
    before = _lines(wh)
    r = _post(url, token=_token(url), **{"Sec-Fetch-Site": "same-origin"})
    assert r.status_code == 201, r.text
    got = r.json()
    assert (got["label"], got["curator"], got["demoted"]) == ("does_not_state", "ann", True)
    assert _lines(wh) == before + 1
    stored = C.read_all(wh)[-1]
    assert (stored.pmid, stored.triple_id, stored.head_id, stored.tail_id) == (
        "1002", TRIPLE, APOE, "MESH:D000544")  # fmt: skip
    listed = HTTP.get(f"{url}/api/curations", params={"edge": TRIPLE}).json()[TRIPLE]
    assert [c["label"] for c in listed] == ["does_not_state"]
    deadline = time.monotonic() + 30  # the server reloads its index in the background
    while _support(url) != 2 or _support(url, 2019) != 2:
        assert time.monotonic() < deadline, "the curated sentence is still served"
        time.sleep(0.2)
    statuses = next(f["statuses"] for g in HTTP.get(f"{url}/api/entity/{APOE}").json()[
        "relations"] for f in g["facts"] if f["edge"] == TRIPLE)  # fmt: skip
    assert statuses == {"asserted": 2, C.CURATED_OUT: 1}


def test_writes_are_rate_limited(tmp_path):
    wh = tmp_path / "wh"
    build_hostile_kg(wh)
    proc, url = start_serve(wh, "--no-embed", timeout_s=60)
    try:
        token = _token(url)
        codes = [_post(url, {**BODY, "label": "states"}, token=token).status_code
                 for _ in range(RATE_PER_MINUTE + 1)]  # fmt: skip
        assert codes[:-1] == [201] * RATE_PER_MINUTE and codes[-1] == 429
        assert _lines(wh) == RATE_PER_MINUTE
    finally:
        stop_server(proc)


def test_every_worker_of_a_server_takes_the_token_its_page_was_given(tmp_path):
    wh = tmp_path / "wh"
    build_hostile_kg(wh)
    proc, url = start_serve(wh, "--no-embed", "--workers", "2", timeout_s=90)
    try:
        tokens = {_token(url) for _ in range(12)}  # a new connection each: either worker
        assert len(tokens) == 1
        token = tokens.pop()
        codes = [_post(url, {**BODY, "label": "states"}, token=token).status_code
                 for _ in range(6)]  # fmt: skip
        assert codes == [201] * 6 and _lines(wh) == 6
    finally:
        stop_server(proc)
