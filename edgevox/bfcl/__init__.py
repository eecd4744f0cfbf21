"""BFCL AST regression suite: pinned data, JSON-schema conversion and the AST checker.

The runner (``edgevox.bfcl.runner``) builds on these; nothing here imports a model.
"""

from edgevox.bfcl.checker import Verdict, check, check_call, normalize_string
from edgevox.bfcl.data import (
    BFCL_VERSION,
    CATEGORIES,
    SCORED_CATEGORIES,
    BfclDataError,
    Case,
    default_data_dir,
    fetch,
    load_cases,
)
from edgevox.bfcl.schema import BfclSchemaError, name_map, sanitize_name, to_json_schema

__all__ = [
    "BFCL_VERSION",
    "CATEGORIES",
    "SCORED_CATEGORIES",
    "BfclDataError",
    "BfclSchemaError",
    "Case",
    "Verdict",
    "check",
    "check_call",
    "default_data_dir",
    "fetch",
    "load_cases",
    "name_map",
    "normalize_string",
    "sanitize_name",
    "to_json_schema",
]
