from __future__ import annotations

import sys
from pathlib import Path

# Tests import helpers (entry_factory) from this folder.
sys.path.insert(0, str(Path(__file__).parent))
