"""Curations: a curator's reading of one evidence sentence, kept in the warehouse and applied to
every snapshot that holds that sentence.

A curator marks a served sentence ``states`` (it states the fact), ``does_not_state`` or
``wrong_concept`` (a marked mention is not the concept its ID names), as the judging guideline
(``docs/judging.md``) asks of a judge, from the explorer. Each curation is one line of an
append-only JSON Lines log, ``<warehouse>/curations/log.jsonl``: lines are only ever appended
(``O_APPEND`` under an exclusive ``flock``, then ``fsync``), never rewritten, so the log is the
history of who said what, when, reading which snapshot. A later curation of the same sentence
supersedes an earlier one for serving (a curator may change their mind); both stay in the log.

The sentence is named by what survives a rebuild, never by a row number: its PMID, the triple
(``triple_id`` is a hash of head ID, relation and tail ID: :func:`kgbuild.triples.triple_key`)
and the MD5 of the sentence text (offsets are kept for the export, not matched on: a re-split
abstract moves them). A rebuilt or refreshed snapshot that holds the same sentence for the same
triple gets the same curation: the log is read at query time, not copied into snapshots, which
stay immutable.

Serving: ``evidence_status_at`` (:mod:`kgbuild.store.retractions`) reads a row whose latest
curation is :data:`DEMOTING` as :data:`CURATED_OUT`, so it stops counting wherever "served" is
decided from that status — ``kg_edges``, the confidence model, belief, the export and the query
index (whose cache folder names the log's digest, so a new curation rebuilds it).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from kgbuild.errors import InputError, StoreError

#: What a curator can say about a sentence (the explorer's three buttons).
LABELS = ("states", "does_not_state", "wrong_concept")
#: Curations that take the row out of what is served.
DEMOTING = frozenset({"does_not_state", "wrong_concept"})
#: The status a demoted row reads as in ``evidence_status_at``.
CURATED_OUT = "curated_out"
#: The guideline a curation is made under (recorded on each line and on exported judgments).
GUIDELINE = "explorer-curation/1"
LOG = Path("curations") / "log.jsonl"
MAX_NOTE = 500
MAX_CURATOR = 64
#: A curator's name: letters, digits and a few separators (it lands in TSV files and logs).
CURATOR_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._@-]{0,63}$")
#: Largest log read back (a curator writes a few thousand lines, not gigabytes).
MAX_LOG_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Curation:
    """One line of the log: who said what about which sentence, when, reading which snapshot.
    ``a_*``/``b_*``: the two mentions as offsets into ``sentence`` (A first), for the export."""

    curation_id: str
    created_at: str
    curator: str
    label: str
    note: str
    guideline: str
    snapshot_id: str
    kg: str
    pmid: str
    triple_id: str
    head_id: str
    relation: str
    tail_id: str
    sentence_md5: str
    sentence: str
    sent_start: int
    head_start: int
    head_end: int
    tail_start: int
    tail_end: int


COLUMNS = tuple(f.name for f in fields(Curation))
_INTS = {"sent_start", "head_start", "head_end", "tail_start", "tail_end"}


def sql_literal(value: object) -> str:
    return str(duckdb.ConstantExpression(value))


def sentence_md5(sentence: str) -> str:
    """The sentence's identity across rebuilds: DuckDB's ``md5()`` of the same text."""
    return hashlib.md5(sentence.encode("utf-8")).hexdigest()


def log_path(root: Path) -> Path:
    return Path(root) / LOG


def check_fields(curator: str, label: str, note: str) -> None:
    """A curation's free fields, bounded: an :class:`InputError` naming the one that is not."""
    if label not in LABELS:
        raise InputError(f"label must be one of {', '.join(LABELS)}", field="label")
    if not CURATOR_RE.match(curator or ""):
        raise InputError(
            f"curator: 1-{MAX_CURATOR} letters, digits, spaces or ._@- (starting with a letter "
            "or digit)",
            field="curator",
        )
    if len(note) > MAX_NOTE or any(ord(c) < 32 and c not in "\t" for c in note):
        raise InputError(f"note: at most {MAX_NOTE} characters, one line", field="note")


def make(
    *, curator: str, label: str, note: str, snapshot_id: str, kg: str, row: dict[str, object]
) -> Curation:
    """A curation of evidence ``row`` (a row of ``evidence_status_at`` joined to its triple:
    pmid, triple_id, head_id, relation, tail_id, sentence, sent_start, head/tail offsets)."""
    check_fields(curator, label, note)
    now = datetime.now(UTC).isoformat(timespec="microseconds")
    sentence = str(row["sentence"])
    key = f"{now}|{curator}|{row['pmid']}|{row['triple_id']}|{label}"
    return Curation(
        curation_id=hashlib.sha256(key.encode()).hexdigest()[:24],
        created_at=now,
        curator=curator,
        label=label,
        note=note,
        guideline=GUIDELINE,
        snapshot_id=snapshot_id,
        kg=kg,
        pmid=str(row["pmid"]),
        triple_id=str(row["triple_id"]),
        head_id=str(row["head_id"]),
        relation=str(row["relation"]),
        tail_id=str(row["tail_id"]),
        sentence_md5=sentence_md5(sentence),
        sentence=sentence,
        **{k: int(row[k]) for k in sorted(_INTS)},  # type: ignore[call-overload]
    )


def ensure_log(root: Path) -> Path:
    """The log file, created empty when missing (the catalog's views read it)."""
    path = log_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8"):
        pass
    return path


def append(root: Path, curation: Curation) -> None:
    """Append one line to the log: an exclusive lock, one ``write`` of the whole line in append
    mode, ``fsync``. Nothing is ever rewritten; a crash leaves at most a torn last line, which
    :func:`read_all` reports."""
    path = ensure_log(root)
    line = (json.dumps(asdict(curation), ensure_ascii=False, sort_keys=True) + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)  # closing releases the lock


def read_all(root: Path) -> list[Curation]:
    """Every curation in the log, oldest first; a damaged line is a :class:`StoreError` naming
    it (nothing is trained on, or served from, a log read half)."""
    path = log_path(root)
    if not path.is_file():
        return []
    if path.stat().st_size > MAX_LOG_BYTES:
        raise StoreError(f"curation log larger than {MAX_LOG_BYTES} bytes", path=path)
    out = []
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            try:
                rec = json.loads(line)
                out.append(Curation(**{c: rec[c] for c in COLUMNS}))
            except (ValueError, KeyError, TypeError) as exc:
                raise StoreError(f"curation log line {n} is damaged: {exc}", path=path) from None
    return out


def latest(curations: list[Curation]) -> dict[tuple[str, str, str], Curation]:
    """The latest curation per sentence identity (pmid, triple_id, sentence_md5)."""
    out: dict[tuple[str, str, str], Curation] = {}
    for c in curations:
        out[(c.pmid, c.triple_id, c.sentence_md5)] = c
    return out


def digest(root: Path) -> str:
    """What names the log's content in the query index's cache folder: "" when there is no
    curation (so every cache of an uncurated warehouse keeps its name), else 8 hex digits of
    its size and modification time (an append changes both)."""
    try:
        st = log_path(root).stat()
    except OSError:
        return ""
    if not st.st_size:
        return ""
    return hashlib.sha256(f"{st.st_size}:{st.st_mtime_ns}".encode()).hexdigest()[:8]


# ---- the catalog's SQL ---------------------------------------------------------------------

_SQL_COLUMNS = {c: ("INTEGER" if c in _INTS else "VARCHAR") for c in COLUMNS}
_EMPTY = (
    "SELECT " + ", ".join(f"NULL::{t} AS {c}" for c, t in _SQL_COLUMNS.items()) + " WHERE false"
)


def log_sql(root: Path | None = None) -> str:
    """The body of ``curation_log()``: the log's lines, read under ``root`` when given (an
    absolute path), else where the reading connection's ``file_search_path`` (the warehouse
    folder) says — never the working folder."""
    if root is not None:
        path = sql_literal(str(log_path(root)))
    else:
        base = "current_setting('file_search_path')"
        rel = LOG.as_posix()
        path = f"CASE WHEN {base} = '' THEN '{rel}' ELSE {base} || '/{rel}' END"
    cols = "{" + ", ".join(f"'{c}': '{t}'" for c, t in _SQL_COLUMNS.items()) + "}"
    return f"SELECT * FROM read_json({path}, format = 'newline_delimited', columns = {cols})"


def demoted_sql() -> str:
    """Per (pmid, triple_id), the MD5s of its sentences whose latest curation is
    :data:`DEMOTING` (an SQL query). Grouped so the evidence joins on two plain keys and hashes
    a sentence only when its paper and triple were curated at all."""
    demoting = ", ".join(f"'{d}'" for d in sorted(DEMOTING))
    return f"""
        SELECT pmid AS _c_pmid, triple_id AS _c_triple, list(sentence_md5) AS _c_md5s FROM (
            SELECT * FROM curation_log()
            QUALIFY row_number() OVER (PARTITION BY pmid, triple_id, sentence_md5
                                       ORDER BY created_at DESC, curation_id DESC) = 1)
        WHERE label IN ({demoting})
        GROUP BY pmid, triple_id"""


def define_log(con: duckdb.DuckDBPyConnection, create: str, root: Path | None) -> None:
    """``curation_log()`` (:func:`log_sql`); with ``root``, a warehouse without a log file (an
    older one, read through a copy of its registry) reads an empty log instead."""
    if root is not None and not log_path(root).is_file():
        con.execute(f"{create} MACRO curation_log() AS TABLE {_EMPTY}")
        return
    con.execute(f"{create} MACRO curation_log() AS TABLE {log_sql(root)}")


def prepare_connection(con: duckdb.DuckDBPyConnection, root: Path, read_only: bool) -> None:
    """A writer creates the log (empty) so the catalog's macros always find it; a read-only
    connection to a warehouse without one (older than curations) gets its own empty
    ``curation_log()``, shadowing the catalog's, which would fail on the missing file."""
    if not read_only:
        ensure_log(root)
    elif not log_path(root).is_file():
        con.execute(f"CREATE OR REPLACE TEMP MACRO curation_log() AS TABLE {_EMPTY}")
