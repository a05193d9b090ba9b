"""Make the tests' independent reference sampler (``gwishart_reference``) importable."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
