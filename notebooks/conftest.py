"""pytest runs the instructor notebooks (nbval) with strict self-checks: a `check_…` that says "not yet" raises.

The kernel nbval starts inherits this process's environment, so every exercise check of an instructor solution
(helpers/exercises/<stage>.py) fails its cell, and the build, when the solution no longer passes its own check.
Students never run this file: in JupyterLab a check only prints its verdict.
"""

from __future__ import annotations

import os

os.environ.setdefault("KIT_STRICT_CHECKS", "1")
