"""Entry point for ``python -m compiler``."""

import sys

from compiler.cli import main

sys.exit(main())
