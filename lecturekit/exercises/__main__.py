"""``python -m lecturekit.exercises``: see ``lecturekit.exercises.cli``."""

import sys

from lecturekit.exercises.cli import main

sys.exit(main())
