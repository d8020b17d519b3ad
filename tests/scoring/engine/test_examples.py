"""The spec's example records (shared/spec/examples) give exactly their expected results.

The records, and the Boston tariff's data (shared/spec/data), are copied into the repository
so the suite runs in any clone; a test keeps each copy identical to the spec whenever the
spec folder sits beside the repository.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring.engine.errors import RuleError
from scoring.engine.record import load, score_record

EXAMPLES = Path(__file__).parent / "examples"
DATA = Path(__file__).parent / "data"
SPEC = Path(__file__).resolve().parents[4] / "shared" / "spec"
RECORDS = sorted(p for p in EXAMPLES.glob("*.json") if not p.name.endswith(".expected.json"))


def expected(record: Path) -> dict:
    return json.loads(record.with_suffix(".expected.json").read_text())


@pytest.mark.parametrize("record", RECORDS, ids=lambda p: p.stem)
def test_example_gives_its_expected_result(record):
    want = expected(record)
    if want == {"invalid": True}:
        with pytest.raises(RuleError):
            score_record(load(record.read_text()))
    else:
        assert score_record(load(record.read_text())) == want


def test_every_example_has_an_expected_result():
    assert len(RECORDS) >= 8
    assert all(r.with_suffix(".expected.json").exists() for r in RECORDS)


@pytest.mark.skipif(not SPEC.is_dir(), reason=f"the spec folder {SPEC} is absent: no original")
@pytest.mark.parametrize(("copy", "original"), [(EXAMPLES, "examples"), (DATA, "data")])
def test_the_copies_match_the_spec(copy, original):
    spec = {p.name: p.read_bytes() for p in (SPEC / original).glob("*.json")}
    ours = {p.name: p.read_bytes() for p in copy.glob("*.json")}
    assert ours == spec
