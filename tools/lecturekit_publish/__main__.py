from lecturekit_publish.cli import main

raise SystemExit(main())
