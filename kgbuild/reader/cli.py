"""``kgbuild reader corpus|train|measure``: the judged sentence corpus and the reader trained on it.

``corpus`` counts the judged rows per source, split and label and reports the judges'
agreement (Cohen's κ per label on the rows judged twice); ``train`` fits the reader on the
judged train split (threshold and calibration by cross-validation on it) and writes the
model pair; ``measure`` reads a split with a model and prints the figures of
:mod:`kgbuild.reader.measure`. A damaged judged file stops each of them with one line naming
the file, line and field; nothing is written.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer

from kgbuild.helptext import examples

reader_app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="The sentence reader: its judged corpus, training and figures.",
    epilog=examples(
        "kgbuild reader corpus",
        "kgbuild reader train --out data/sentence_reader.json",
        "kgbuild reader measure --split dev",
    ),
)
JudgedOpt = Annotated[
    Path | None,
    typer.Option("--judged", help="Folder with rows.tsv and judgments.tsv [default data/judged]"),
]
ModelOpt = Annotated[
    Path | None,
    typer.Option("--model", help="Reader model JSON [default data/sentence_reader.json]"),
]


@reader_app.callback()
def _group() -> None:
    """The sentence reader: its judged corpus, training and figures."""


def _load(judged: Path | None):  # noqa: ANN202
    from kgbuild.reader.judged import DEFAULT_DIR, load

    return load(judged or DEFAULT_DIR)


@reader_app.command(epilog=examples("kgbuild reader corpus"))
def corpus(judged: JudgedOpt = None) -> None:
    """Judged rows per source, split and label; agreement (κ) on the rows judged twice."""
    from kgbuild.reader.judged import agreement, fact

    rows = _load(judged)
    out = {
        "rows": len(rows),
        "judged_twice": sum(j.second is not None for j in rows),
        "by_source_split": {
            f"{s}|{p}": n
            for (s, p), n in sorted(Counter((j.row.source, j.row.split) for j in rows).items())
        },
        "fact_by_source": {
            s: n for s, n in sorted(Counter(j.row.source for j in rows if fact(j.label)).items())
        },
        "labels": {
            col: dict(sorted(Counter(j.label[col] for j in rows).items()))
            for col in ("stated", "relation", "status", "a_ok", "b_ok")
        },
        "guidelines": dict(sorted(Counter(j.label["guideline"] for j in rows).items())),
        "judges": len(
            {j.label["judge"] for j in rows} | {j.second["judge"] for j in rows if j.second}
        ),
        "agreement": agreement(rows),
    }
    print(json.dumps(out, indent=1))


@reader_app.command(epilog=examples("kgbuild reader train --out data/sentence_reader.json"))
def train(
    judged: JudgedOpt = None,
    out_file: Annotated[Path | None, typer.Option("--out", help="Model JSON to write")] = None,
) -> None:
    """Fit the reader on the judged train split and write the model (JSON + npz beside it)."""
    from kgbuild.reader.model import DEFAULT_PATH, save
    from kgbuild.reader.train import train as fit

    reader = fit(_load(judged))
    target = out_file or DEFAULT_PATH
    save(reader, target)
    print(json.dumps({"model": str(target), "threshold": reader.threshold, **reader.meta}))


@reader_app.command(epilog=examples("kgbuild reader measure --split dev"))
def measure(
    judged: JudgedOpt = None,
    model: ModelOpt = None,
    split: Annotated[str, typer.Option(help="train | dev | test")] = "dev",
) -> None:
    """The reader's figures on one judged split (precision, kept, AUC, Brier, …), as JSON."""
    from kgbuild.errors import InputError
    from kgbuild.reader.measure import measure as figures
    from kgbuild.reader.model import DEFAULT_PATH, load

    if split not in ("train", "dev", "test"):
        raise InputError("unknown split", split=split, known="train, dev, test")
    print(json.dumps(figures(load(model or DEFAULT_PATH), _load(judged), split), indent=1))
