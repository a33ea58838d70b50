import sys

from olearn.cli import main

sys.exit(main())
