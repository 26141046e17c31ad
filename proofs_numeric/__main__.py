import sys

from proofs_numeric.cli import main

sys.exit(main())
