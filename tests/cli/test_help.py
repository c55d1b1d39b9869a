"""Every ``--help`` ends with examples: real invocations of that command that parse.

In-process (typer's CliRunner): the whole command tree's help renders in well under a second.
"""

import re
import shlex

import pytest
import typer.main
from typer.testing import CliRunner

from kgbuild.cli import app

ROOT = typer.main.get_command(app)


def command_paths(cmd=ROOT, path=()):
    """Every command and group under ``kgbuild``, as its path of names (``()``: kgbuild)."""
    yield path
    for name, sub in getattr(cmd, "commands", {}).items():
        yield from command_paths(sub, (*path, name))


def is_group(path) -> bool:
    cmd = ROOT
    for name in path:
        cmd = cmd.commands[name]
    return bool(getattr(cmd, "commands", None))


def help_text(path) -> str:
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, (path, result.output)
    return result.output


def example_lines(text: str) -> list[str]:
    """The lines of the help's "Examples:" block, as printed."""
    heading = re.search(r"^ *Examples?: *$", text, re.M)
    assert heading, text
    return [line.strip() for line in text[heading.end() :].splitlines() if line.strip()]


def parse(example: str) -> tuple[str, ...]:
    """The command path an example invokes, after parsing its arguments the way kgbuild would
    (an unknown option, a missing argument or a bad value fails here)."""
    words = shlex.split(example)
    assert words[0] == "kgbuild", example
    cmd, path, args = ROOT, [], words[1:]
    while getattr(cmd, "commands", None) and args and args[0] in cmd.commands:
        path.append(args[0])
        cmd = cmd.commands[args.pop(0)]
    assert not getattr(cmd, "commands", None), f"{example!r} names a group, not a command"
    cmd.make_context(" ".join(["kgbuild", *path]), args)
    return tuple(path)


PATHS = list(command_paths())


def test_the_tree_is_walked():
    names = {" ".join(p) for p in PATHS}
    expected = {"", "build", "sql", "ask", "serve", "eval", "eval re", "eval adqa", "audit fit"}
    assert expected <= names
    assert len(PATHS) >= 23


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "kgbuild")
def test_help_names_examples_of_its_own_command(path):
    text = help_text(path)
    assert "Example" in text, f"`kgbuild {' '.join(path)} --help` shows no example"
    lines = example_lines(text)
    wrapped = [line for line in lines if not line.startswith("kgbuild ")]
    assert not wrapped, f"an example wraps at 80 columns (keep it shorter): {wrapped}"
    invoked = [parse(line) for line in lines]
    assert any(p[: len(path)] == path for p in invoked), (
        f"no example of `kgbuild {' '.join(path)}` in its help: {lines}"
    )
    if not is_group(path):
        assert path in invoked, f"`kgbuild {' '.join(path)}` --help shows other commands only"


def test_markup_in_examples_is_shown_as_typed():
    lines = example_lines(help_text(("build",)))
    assert "kgbuild build --source pubmed --query 'APOE[tiab]' --years 2015 --kg apoe" in lines
