#!/usr/bin/env bash
# Set everything up, then run the main job: a spoken request through the whole pipeline.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/edgevox demo "$@"
