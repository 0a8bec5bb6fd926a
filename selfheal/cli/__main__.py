import sys

from selfheal.cli.program import main

sys.exit(main())
