"""`python -m edgevox` is the `edgevox` command."""

from edgevox.cli import main

raise SystemExit(main())
