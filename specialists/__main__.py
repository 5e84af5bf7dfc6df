from adapters.cli.main import main

raise SystemExit(main())
