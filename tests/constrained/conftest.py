"""Shared helpers for the constrained-decoding tests."""

from __future__ import annotations

import os
import sys
from pathlib import Path

# llama.cpp is built with OpenMP here; with the CPU oversubscribed (other jobs, 2 cores) its
# spinning threads make every multi-token decode 10-30x slower. Must be set before
# llama_cpp is first imported; harmless otherwise.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

sys.path.insert(0, str(Path(__file__).parent))  # _cases
