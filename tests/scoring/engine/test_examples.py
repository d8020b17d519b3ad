"""The spec's example records (shared/spec/examples) give exactly their expected results.

The records are copied into the repository so the suite runs in any clone; a test keeps the
copy identical to the spec whenever the spec folder sits beside the repository.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring.engine.errors import RuleError
from scoring.engine.record import load, score_record

EXAMPLES = Path(__file__).parent / "examples"
SPEC_EXAMPLES = Path(__file__).resolve().parents[4] / "shared" / "spec" / "examples"
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


@pytest.mark.skipif(not SPEC_EXAMPLES.is_dir(), reason=f"spec folder {SPEC_EXAMPLES} absent")
def test_copied_examples_match_the_spec():
    spec = {p.name: p.read_bytes() for p in SPEC_EXAMPLES.glob("*.json")}
    ours = {p.name: p.read_bytes() for p in EXAMPLES.glob("*.json")}
    assert ours == spec
