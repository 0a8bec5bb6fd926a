import sys

from evaluation.bench.cli import main

sys.exit(main())
