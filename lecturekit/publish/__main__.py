from lecturekit.publish.cli import main

raise SystemExit(main())
