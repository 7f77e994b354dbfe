"""``python -m tensorad.fuzz --programs N --seed S [--jobs J] [--ir M] [--out DIR]``.

Runs N random Python programs and M random IR modules (half of them valid
modules checked numerically, half malformed ones checked for clean
diagnostics), prints the counts by class, shrinks one failure per distinct
signature to a reproducer under DIR, and exits with status 1 if any program
killed its worker, gave a wrong result or hit an internal error.
"""

import sys

from .campaign import main

if __name__ == "__main__":
    sys.exit(main())
