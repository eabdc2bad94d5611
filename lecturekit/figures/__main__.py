import sys

from lecturekit.figures.cli import main

sys.exit(main())
