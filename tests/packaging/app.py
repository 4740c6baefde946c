"""Records through the installed package scope (scope.init/phase/count): the
Python program of test_install.sh's (e) and (f).  Role argv[1], the run
directory from $SCOPE_RUN_DIR."""
import sys

import scope

if not scope.init(None, sys.argv[1]):
    sys.exit("scope.init failed")
for _ in range(100):
    with scope.phase("py_outer"):
        with scope.phase("py_inner"):
            scope.count("py_items", 2)
