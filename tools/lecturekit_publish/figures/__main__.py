import sys

from lecturekit_publish.figures.cli import main

sys.exit(main())
