"""``python -m adjudicator.cli``: the ``adjudicate`` command."""

from adjudicator.cli import main

main()
