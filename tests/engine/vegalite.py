"""Checking plain Vega-Lite specs: against the schema Altair ships (pages skip that check), and their data."""
from __future__ import annotations

import functools

from altair.utils.schemapi import validate_jsonschema
from altair.vegalite.v6.schema.core import load_schema


@functools.cache
def _schema() -> dict:
    return load_schema()


def assert_valid(spec: dict) -> dict:
    """Raise jsonschema's ValidationError unless `spec` is a valid top-level Vega-Lite spec; return it."""
    validate_jsonschema(spec, _schema())
    return spec


def data_rows(spec: dict) -> list[dict]:
    """Every inline data row of a spec, in order: top-level, named datasets, then layers and concatenations."""
    found = []
    if isinstance(spec.get("data"), dict):
        found += spec["data"].get("values", [])
    for values in spec.get("datasets", {}).values():
        found += values
    for part in ("layer", "hconcat", "vconcat", "concat"):
        for child in spec.get(part, []):
            found += data_rows(child)
    if "spec" in spec:
        found += data_rows(spec["spec"])
    return found
