"""``python -m mancala_envs.cli``: the ``mancala`` command."""

import sys

from . import main

sys.exit(main())
