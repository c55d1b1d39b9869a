"""microRNA names in a question → the HGNC symbol of the gene that encodes them.

Why: the dictionary splits "miR-34a" into "miR" and "34a", and PubTator's corpus links a bare
"miR" to a generic gene record (NCBIGene:751557), so a question about one microRNA was sent to
a node that stands for none. miRBase names mature products by arm and copy ("hsa-miR-146a-5p",
"miR-125b-1"), the literature writes "microRNA-132", "miRNA-29a", "let-7b"; HGNC names the
human gene of each with one symbol (MIR146A, MIR125B1, MIR132, MIR29A, MIRLET7B — HGNC
guidelines for microRNA genes, Seal et al. 2020, *Nucleic Acids Res.* 48:D211). The species
prefix and the arm suffix (-3p/-5p, "*") say which strand, not which gene, and are dropped.

A name no single gene bears is a group: "miR-29" (or "the miR-29 family") is made by MIR29A,
MIR29B1, MIR29B2 and MIR29C, "let-7" by the MIRLET7 genes, "miR-9" by MIR9-1…3 — HGNC gives
the number, then a letter for each related mature sequence, then a digit for each copy (Seal
et al. 2020); a name followed by "family" or "cluster" is the group of its number whatever
letter it carries. The name then means every member, and the question is about all of them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass
from functools import cache

from kgbuild.resolve.vocabularies import hgnc_names

#: A microRNA name: optional species prefix, the family word, the number with its letter and
#: copy, optional arm; or a let-7 family member. A bare "miR" or "microRNA" is no match.
_NAME = re.compile(
    r"(?<![\w-])(?:[a-z]{3}-)?"
    r"(?:(?:mir|mirna|microrna|micro-rna)-?(?P<num>\d{1,4})(?P<letter>[a-z]?)"
    r"|let-?7(?P<let>[a-z]?))"
    r"(?:-(?P<copy>\d))?(?:-?[35]p|\*)?(?P<family>\s+(?:family|cluster))?(?![\w-])",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class MicroRNA:
    """One microRNA name in a text: its span and the HGNC symbol of its gene; ``members``: the
    symbols of every gene a group name ("miR-29 family") means (empty: one gene)."""

    start: int
    end: int
    symbol: str
    members: tuple[str, ...] = ()


@cache
def mir_symbols() -> frozenset[str]:
    """HGNC's approved microRNA gene symbols (MIR…; empty when HGNC is not installed)."""
    return frozenset(
        n[0].upper() for n in hgnc_names().values() if n and n[0].upper().startswith("MIR")
    )


def candidates(base: str, copy: str | None) -> tuple[str, ...]:
    """Symbols a name may mean, most specific first: "miR-125b" is made by MIR125B1 and
    MIR125B2 (no MIR125B), so the first copies are tried after the bare symbol; a copy after a
    digit takes a hyphen (MIR9-1)."""
    copies = (copy,) if copy else ("1", "2")
    out = [] if copy else [base]
    for c in copies:
        out.append(f"{base}-{c}" if base[-1].isdigit() else f"{base}{c}")
    return tuple(out)


def symbol_for(base: str, copy: str | None, known: frozenset[str]) -> str:
    """The HGNC symbol of a name: the first candidate HGNC approves, else the bare one."""
    for s in candidates(base, copy):
        if s in known:
            return s
    return candidates(base, copy)[0]


def family_members(stem: str, symbols: Iterable[str]) -> tuple[str, ...]:
    """The symbols of ``symbols`` in the group named by ``stem``: after a number (MIR29) a
    letter, a copy or both (MIR29A, MIR29B1, MIR9-1 — never MIR299); after a letter (MIR125B)
    a copy (MIR125B1)."""
    tail = r"(?:[A-Z]\d?|-\d)?" if stem[-1].isdigit() else r"\d?"
    pattern = re.compile(re.escape(stem) + tail)
    return tuple(sorted(s for s in set(symbols) if pattern.fullmatch(s)))


def _group(m: re.Match[str], base: str, present: Container[str]) -> tuple[str, ...]:
    """The members a name means when it names a group (see module docstring), else ()."""
    if m.group("copy"):
        return ()
    if m.group("family"):
        stem = base.rstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ") if m.group("num") else "MIRLET7"
    elif base in mir_symbols() or base in present:
        return ()
    else:
        stem = base
    known = set(mir_symbols())
    known.update(s for s in _symbols_of(present) if s.startswith("MIR"))
    members = family_members(stem, known)
    return members if len(members) > 1 or m.group("family") else ()


def _symbols_of(present: Container[str]) -> Iterable[str]:
    return present if isinstance(present, Iterable) else ()


def find_mirnas(text: str, present: Callable[[], Container[str]] = frozenset) -> list[MicroRNA]:
    """Every microRNA name in ``text``, left to right, with the HGNC symbol it means: the first
    candidate among ``present()`` (the KG's MIR gene symbols), else HGNC's choice. HGNC is read
    only when needed (~0.4 s once a process), which a question without a name never pays."""
    out = []
    for m in _NAME.finditer(text):
        if m.group("num"):
            base = f"MIR{m.group('num')}{m.group('letter').upper()}"
        else:
            base = f"MIRLET7{m.group('let').upper()}"
        here = present()
        members = _group(m, base, here)
        if members:
            first = next((c for c in members if c in here), members[0])
            out.append(MicroRNA(m.start(), m.end(), first, members))
            continue
        cands = candidates(base, m.group("copy"))
        got = next((c for c in cands if c in here), None)
        out.append(
            MicroRNA(m.start(), m.end(), got or symbol_for(base, m.group("copy"), mir_symbols()))
        )
    return out
