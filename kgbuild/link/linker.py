"""Question → KG nodes: a dictionary linker, an embedding fallback, and LLM-named entities.

1. **Dictionary** (no model, ~0.1 ms): leftmost-longest match of the question's normalized
   tokens against the snapshot's alias dictionary (:mod:`kgbuild.search.aliases`), never across
   punctuation; one-token keys of ≤ 4 characters must match the question's own spelling.
2. **Embedding fallback**: text the dictionary left unlinked — a whole choice, a phrase of the
   question, an entity an LLM named — is embedded (all-MiniLM-L6-v2, the resolution stage's
   cached :class:`~kgbuild.resolve.embed.Embedder`) and linked to the nearest node name when
   the cosine reaches :data:`LINK_THRESHOLD`. DALK links its LLM's entities to the nearest node
   with no threshold at all; HyKGE links at ≥ 0.7. Ours was measured on ADQA (README "Querying
   a snapshot", ``tests/fixtures/query/link_audit.tsv``).
3. **LLM entities** (optional, :mod:`kgbuild.query.llm`): ≤ 5 names (WTS), linked whole by the
   dictionary, then by spelling (:meth:`Linker.spelled`: "alzhiemer", "memantin" — the search's
   fuzzy match, :mod:`kgbuild.search.entities`), then by embedding, then by the dictionary
   matches inside them. MiniLM does not repair a misspelt drug name; a character ratio does,
   but only a slip: a match that changes a word the corpus writes often is refused
   (:mod:`kgbuild.link.spelling`: "diseases share" is not "rare diseases").

Question and choice links are kept apart (``where`` = ``question`` or ``choice:<i>``), and
every mention that found no node is reported, not dropped.
"""

from __future__ import annotations

import re
import threading
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from kgbuild.link.generic import generic_blocked
from kgbuild.link.mirna import MicroRNA, find_mirnas
from kgbuild.link.spelling import is_slip, named_elsewhere
from kgbuild.search.aliases import SEP, SHORT_KEY, display_parts
from kgbuild.search.tag_share import share_blocked
from kgbuild.search.text import STOPWORDS, Token, is_content, key, tokenize

if TYPE_CHECKING:
    from kgbuild.search.index import SnapshotIndex
    from kgbuild.search.vectors import NodeVectors

#: Cosine at or above which an embedded mention links to its nearest node name (measured on
#: ADQA: see module docstring).
LINK_THRESHOLD = 0.80
#: Least character ratio (rapidfuzz, 0–100) for a whole name to link by spelling: "alzhiemer" →
#: "alzheimer" scores 88.9, "memantin" → "memantine" 94; below, unrelated words of one stem.
SPELLING_CUTOFF = 88.0
#: Shortest name (characters of its key, without spaces) linked by spelling.
SPELLING_MIN_CHARS = 6
#: Longest part of an unlinked phrase (tokens) tried by spelling: "Alzhiemer's disease".
SPELLING_MAX_TOKENS = 4
#: Longest dictionary key tried, in tokens.
MAX_MATCH_TOKENS = 8
#: An unlinked phrase is at most this many tokens (longer runs are cut into pieces).
MAX_CHUNK_TOKENS = 5
#: Longest text (characters) embedded for one mention: a choice that is a sentence is cut.
MAX_EMBED_CHARS = 120
#: Embedding fallback modes: ``mentions`` (default) embeds only texts known to be one mention —
#: a choice the dictionary found nothing in, an entity an LLM named — because encoding costs
#: ~15 ms a call on 2 cores, more than the rest of retrieval; ``all`` also embeds every phrase
#: of the question the dictionary left (measured in README "Querying a snapshot").
EMBED_MODES = ("mentions", "all", "off")
_POSSESSIVE_END = re.compile(r"['’][sS]$")


@dataclass(frozen=True, slots=True)
class Link:
    """One mention: where it was, what it says, and the node it names (``node`` None:
    unlinked)."""

    surface: str
    where: str
    node: int | None
    curie: str | None
    name: str | None
    method: str  # dictionary:<source> | embedding | llm | unlinked
    score: float
    start: int = -1
    end: int = -1

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("node")
        return d


class Linker:
    """Links text of one snapshot; thread-safe (no mutable state but the vectors' lazy load)."""

    def __init__(
        self,
        index: SnapshotIndex,
        vectors: NodeVectors | None = None,
        threshold: float = LINK_THRESHOLD,
    ) -> None:
        self.index = index
        self.vectors = vectors
        self.threshold = threshold
        a = index.aliases
        self._row = {k: i for i, k in enumerate(a["key"])}
        self._node = a["node"]
        self._source = a["source"]
        self._surfaces = a["surfaces"]
        self._weight = a["weight"]
        self._mir: dict[str, int] | None = None
        self._lock = threading.Lock()
        # first token of a key → the longest key starting with it: most tokens start none
        self._longest: dict[str, int] = {}
        for k in a["key"]:
            parts = k.split(" ")
            self._longest[parts[0]] = max(self._longest.get(parts[0], 0), len(parts))

    # ---- dictionary -------------------------------------------------------------------------
    def lookup(self, text: str) -> int | None:
        """The node a whole name means (exact normalized key), or None."""
        row = self._row.get(key(text))
        return int(self._node[row]) if row is not None else None

    def spelled(self, text: str, exact: bool = True) -> int | None:
        """The node a misspelt whole name means: the entity search's best match at
        :data:`SPELLING_CUTOFF` or more (a fuzzy ratio, or the share of a key a prefix covers:
        "memantin" is 8/9 of "memantine"), or None. ``exact`` False: not a name the search
        matches exactly (inside a question, the dictionary's rules already refused that one)."""
        got = self._spelling(text, exact)
        return got[0] if got else None

    def _spelling(self, text: str, exact: bool) -> tuple[int, float] | None:
        """(node, score) of :meth:`spelled`."""
        from kgbuild.search.entities import searcher

        if len(key(text).replace(" ", "")) < SPELLING_MIN_CHARS:
            return None
        hits = searcher(self.index).search(text, limit=1)
        refused = ("id",) if exact else ("id", "exact")
        if not hits or hits[0].how in refused or hits[0].score < SPELLING_CUTOFF:
            return None
        h = hits[0]
        if h.how != "exact":  # "diseases share" is no slip of "rare diseases"
            if not is_slip(self.index.ensure_lexical(), text, h.alias, SPELLING_CUTOFF):
                return None
            nodes = self.index.nodes  # nor a name of something else ("pentobarbital")
            if named_elsewhere(text, nodes["type"][h.node], nodes["id"][h.node]):
                return None
            row = self._row.get(h.alias)  # nor "toxicityy" of a generic word
            if row is not None and generic_blocked(h.alias, self._source[row],
                                                   float(self._weight[row])):  # fmt: skip
                return None
        return h.node, h.score

    def _accept(self, row: int, k: str, surface: str) -> bool:
        """The short-key rule of :mod:`kgbuild.search.aliases`; a generic English word
        (:mod:`kgbuild.link.generic`) only as a frequent mention; a short gene key only when
        the abstracts that write it often tag it so (:mod:`kgbuild.search.tag_share`)."""
        if " " not in k and generic_blocked(k, self._source[row], float(self._weight[row])):
            return False
        if share_blocked(self.index.aliases, row):  # "CSF": rarely the gene where written
            return False
        if " " in k or (len(k) > SHORT_KEY and k not in STOPWORDS):
            return True
        forms = self._surfaces[row].split(SEP) if self._surfaces[row] else []
        surface = _POSSESSIVE_END.sub("", surface)
        if surface in forms:
            return True
        return "*" in forms and any(ch.isupper() for ch in surface)

    def dictionary(self, text: str, where: str) -> tuple[list[Link], list[tuple[int, int]]]:
        """Leftmost-longest dictionary matches, and the unmatched token spans (start, end)."""
        toks = tokenize(text)
        links: list[Link] = []
        covered = [False] * len(toks)
        for m in find_mirnas(text, self._mir_nodes):
            inside = [j for j, t in enumerate(toks) if m.start <= t.start and t.end <= m.end]
            if inside:
                links += self._mirna_links(text, m, where)
                for j in inside:
                    covered[j] = True
        i = 0
        while i < len(toks):
            if covered[i]:
                i += 1
                continue
            hit = None
            longest = self._longest.get(toks[i].norm, 0)
            for n in range(min(MAX_MATCH_TOKENS, longest, len(toks) - i), 0, -1):
                if n > 1 and any(t.brk for t in toks[i + 1 : i + n]):
                    continue
                k = " ".join(t.norm for t in toks[i : i + n])
                row = self._row.get(k)
                if row is None:
                    continue
                surface = text[toks[i].start : toks[i + n - 1].end]
                if self._accept(row, k, surface):
                    hit = (n, row, surface)
                    break
            if hit is None:
                i += 1
                continue
            n, row, surface = hit
            node = int(self._node[row])
            links.append(
                self._link(
                    surface,
                    where,
                    node,
                    f"dictionary:{self._source[row]}",
                    1.0,
                    toks[i].start,
                    toks[i + n - 1].end,
                )
            )
            for j in range(i, i + n):
                covered[j] = True
            i += n
        tried: set[tuple[int, int]] = set()  # a phrase may hold two slips: "donepazil help
        while todo := [c for c in _chunks(toks, covered) if c not in tried]:  # in alzhiemer…"
            a, b = todo[0]
            tried.add((a, b))
            found = self._spell_chunk(text, toks, a, b, where)
            if found is not None:
                links.append(found)
                for j, t in enumerate(toks):
                    covered[j] = covered[j] or (found.start <= t.start and t.end <= found.end)
        links.sort(key=lambda x: x.start)
        return links, _chunks(toks, covered)

    def _mir_nodes(self) -> dict[str, int]:
        """The KG's microRNA gene nodes by symbol (MIR132 → its node), read once."""
        if self._mir is None:
            nodes, mir = self.index.nodes, {}
            for n, (cid, shown) in enumerate(zip(nodes["id"], nodes["display"], strict=True)):
                parts = display_parts(shown)
                if parts and cid.startswith("NCBIGene:") and parts[0].upper().startswith("MIR"):
                    mir.setdefault(parts[0].upper(), n)
            self._mir = mir
        return self._mir

    def _mirna_links(self, text: str, m: MicroRNA, where: str) -> list[Link]:
        """A microRNA name's link to its MIR gene node — a group name's ("miR-29 family") to
        each member that is a node, over the same span —, or one unlinked link naming the HGNC
        symbols it means (never the generic "miR" node: :mod:`kgbuild.link.mirna`)."""
        mir = self._mir_nodes()
        surface, a, b = text[m.start : m.end], m.start, m.end
        if m.members:
            nodes = [mir[s] for s in m.members if s in mir]
            got = [self._link(surface, where, n, "dictionary:microrna-family", 1.0, a, b)
                   for n in nodes]  # fmt: skip
            return got or [Link(surface, where, None, None, "|".join(m.members), "unlinked",
                                0.0, a, b)]  # fmt: skip
        node = mir.get(m.symbol)
        if node is None:
            return [Link(surface, where, None, None, m.symbol, "unlinked", 0.0, m.start, m.end)]
        return [self._link(surface, where, node, "dictionary:microrna", 1.0, m.start, m.end)]

    def _spell_chunk(self, text: str, toks: list[Token], a: int, b: int,
                     where: str) -> Link | None:  # fmt: skip
        """A misspelt name inside an unlinked phrase: the node of the part (at most
        :data:`SPELLING_MAX_TOKENS` tokens; one word of :data:`SPELLING_MIN_CHARS` or more:
        "donepazil") the entity search matches best by spelling (then the shortest, then the
        first), over that part ("Alzhiemer's disease", not "Alzhiemer's disease linked", whose
        whole is less alike); never an exact key, which the dictionary's rules refused, nor a
        likeness of right words
        (:mod:`kgbuild.link.spelling`). At most fourteen searches of ~0.1 ms."""
        inner = [t for t in toks if a <= t.start and t.end <= b]
        hits: list[tuple[float, int, int, int]] = []  # score, tokens, first, node
        for n in range(min(len(inner), SPELLING_MAX_TOKENS), 0, -1):
            for s in range(0, len(inner) - n + 1):
                part = inner[s : s + n]
                if not (is_content(part[0].norm) and is_content(part[-1].norm)):
                    continue
                got = self._spelling(text[part[0].start : part[-1].end], exact=False)
                if got:
                    hits.append((got[1], n, s, got[0]))
        if not hits:
            return None
        score, n, s, node = max(hits, key=lambda h: (h[0], -h[1], -h[2]))
        start, end = inner[s].start, inner[s + n - 1].end
        return self._link(text[start:end], where, node, "spelling", round(score / 100, 4),
                          start, end)  # fmt: skip

    def _link(
        self,
        surface: str,
        where: str,
        node: int | None,
        method: str,
        score: float,
        start: int = -1,
        end: int = -1,
    ) -> Link:
        if node is None:
            return Link(surface, where, None, None, None, method, round(score, 4), start, end)
        nodes = self.index.nodes
        return Link(
            surface,
            where,
            node,
            nodes["id"][node],
            nodes["display"][node],
            method,
            round(score, 4),
            start,
            end,
        )

    def unlinked(self, surface: str, where: str, start: int = -1, end: int = -1,
                 method: str = "unlinked") -> Link:  # fmt: skip
        """A mention that names no node (``method`` says what found it instead, e.g.
        ``lexical``: the sentence index has sentences for it)."""
        return Link(surface, where, None, None, None, method, 0.0, start, end)

    # ---- embedding fallback -------------------------------------------------------------------
    def embed_link(
        self,
        texts: list[str],
        where: list[str],
        spans: list[tuple[int, int]],
        method: str = "embedding",
    ) -> list[Link]:
        """Nearest node name by cosine for each text; unlinked below the threshold."""
        if not texts:
            return []
        if self.vectors is None:
            return [
                self._link(t, w, None, "unlinked", 0.0, *s)
                for t, w, s in zip(texts, where, spans, strict=True)
            ]
        nodes, scores = self.vectors.nearest([t[:MAX_EMBED_CHARS] for t in texts])
        out = []
        for t, w, s, n, sc in zip(texts, where, spans, nodes, scores, strict=True):
            ok = n >= 0 and sc >= self.threshold
            out.append(
                self._link(
                    t, w, int(n) if ok else None, method if ok else "unlinked", float(sc), *s
                )
            )
        return out

    def link_names(self, names: list[str], where: str, embed: bool = True) -> list[Link]:
        """Entities an LLM named: whole name by dictionary, else by embedding, else the
        dictionary matches inside the name, else unlinked."""
        out: list[Link] = []
        pending: list[str] = []
        for name in names:
            node = self.lookup(name)
            if node is not None:
                out.append(self._link(name, where, node, "llm+dictionary", 1.0))
            elif (node := self.spelled(name)) is not None:
                out.append(self._link(name, where, node, "llm+spelling", 1.0))
            else:
                pending.append(name)
        embedded = (
            self.embed_link(
                pending, [where] * len(pending), [(-1, -1)] * len(pending), "llm+embedding"
            )
            if embed
            else []
        )
        for i, name in enumerate(pending):
            if embed and embedded[i].node is not None:
                out.append(embedded[i])
                continue
            inner, _ = self.dictionary(name, where)
            if inner:
                out += [self._link(name, where, x.node, "llm+" + x.method, 1.0) for x in inner]
            else:
                score = embedded[i].score if embed else 0.0
                out.append(self._link(name, where, None, "unlinked", score))
        return out


def _chunks(toks: list[Token], covered: list[bool]) -> list[tuple[int, int]]:
    """Maximal runs of uncovered content tokens within one phrase, cut to MAX_CHUNK_TOKENS;
    a run starts and ends on a content word ("the", "of" inside a run are kept)."""
    spans: list[tuple[int, int]] = []
    run: list[Token] = []

    def flush() -> None:
        while run and not is_content(run[-1].norm):
            run.pop()
        for s in range(0, len(run), MAX_CHUNK_TOKENS):
            part = run[s : s + MAX_CHUNK_TOKENS]
            while part and not is_content(part[-1].norm):
                part = part[:-1]
            if part and any(len(t.norm) >= 3 and is_content(t.norm) for t in part):
                spans.append((part[0].start, part[-1].end))
        run.clear()

    for t, cov in zip(toks, covered, strict=True):
        if cov or t.brk:
            flush()
        if cov:
            continue
        if not run and not is_content(t.norm):
            continue
        run.append(t)
    flush()
    return spans


def unique_nodes(links: list[Link]) -> list[int]:
    """Linked nodes in first-mention order, each once."""
    return list(dict.fromkeys(x.node for x in links if x.node is not None))
