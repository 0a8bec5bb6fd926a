import sys

from selfheal.cli import main

sys.exit(main())
