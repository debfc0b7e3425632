import os
import sys

# Run from the tree: the package is python/dlsim, next to this folder.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
