"""Shared helpers: the package from this source tree, the repo's schemas, typed CSV rows.

The binary under test comes from $ASCEND_SIM (CTest passes the freshly built one)."""

import csv
import json
import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))


def pytest_configure(config):
    if not os.environ.get("ASCEND_SIM"):
        raise pytest.UsageError("set ASCEND_SIM to the ascend-sim binary under test (ctest -L python does)")


@pytest.fixture(scope="session")
def repo():
    return REPO


def schema(name):
    with open(REPO / "schemas" / f"{name}.schema.json") as f:
        return json.load(f)


def cell(text):
    """A CSV cell as a JSON value: empty -> None, integers -> int, other numbers -> float."""
    if text == "":
        return None
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    if text in ("true", "false"):
        return text == "true"
    return text


def typed_rows(path):
    """(header, rows as dicts of JSON values) of a CSV file."""
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        rows = [dict(zip(header, (cell(c) for c in row))) for row in reader]
    return header, rows
