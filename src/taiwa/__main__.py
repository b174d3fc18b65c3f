"""``python -m taiwa`` is the ``taiwa`` command."""

from taiwa.cli.app import main

main()
