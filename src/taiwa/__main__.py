"""``python -m taiwa`` is the ``taiwa`` command."""

from taiwa.cli import main

main()
