"""``python -m blue_nb.cli``: the same as the ``blue-nb`` command."""

from blue_nb.cli import main

main()
