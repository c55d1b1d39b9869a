"""``python -m kgbuild.cli``: the console entry point."""

from kgbuild.cli import main

main()
