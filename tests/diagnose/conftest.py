from __future__ import annotations

import sys
from pathlib import Path

# Diagnosis tests import the small test catalog (catalog.py) from this folder.
sys.path.insert(0, str(Path(__file__).parent))
