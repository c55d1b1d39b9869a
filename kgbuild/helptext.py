"""The "Examples:" block that ends every command's ``--help`` (a Typer ``epilog``).

Typer renders an epilog as rich text, keeping its line breaks: each example is one line, shown
exactly as typed (its ``[...]`` escaped, not read as markup). ``tests/cli/test_help.py`` checks
that every command has one, naming that command, and that each example parses.
"""

from __future__ import annotations

from rich.markup import escape


def examples(*invocations: str) -> str:
    """An epilog listing ``invocations`` (``kgbuild …`` command lines), one per line."""
    lines = "\n".join(f"  {escape(line)}" for line in invocations)
    # The leading newline keeps the indent: Typer dedents all but the epilog's first line.
    return f"\nExample{'s' if len(invocations) > 1 else ''}:\n{lines}"
