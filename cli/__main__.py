from plansight.main import main

raise SystemExit(main())
