"""``python -m plansight``: the same command line as the installed ``plansight`` script, for environments
where the script is not on the PATH.
"""

from plansight.main import main

raise SystemExit(main())
