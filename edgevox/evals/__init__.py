"""Evaluations that judge the agent the way a user would (``edgevox eval home``).

Data lives in the top-level ``evals/`` folder (``edgevox/_data/evals`` in the wheel), one
folder per set of JSONL items; ``data`` loads and splits it, ``judge`` decides each turn,
``home`` runs the home-assistant set through the voice assistant's agent.
"""

from edgevox.evals.data import (
           SPLITS,
           EvalDataError,
           Item,
           Turn,
           evals_dir,
           load_items,
           load_set,
           split_of,
)
from edgevox.evals.judge import call_matches, judge_turn, value_matches

__all__ = ["SPLITS", "EvalDataError", "Item", "Turn", "call_matches", "evals_dir", "judge_turn", "load_items",
           "load_set", "split_of", "value_matches"]
