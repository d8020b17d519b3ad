"""The spec's example records (shared/spec/examples) give exactly their expected results.

The records, and the Boston tariff's data (shared/spec/data), are copied into the repository
so the suite runs in any clone. ``spec_copies.json`` records each copied file's SHA-256 as
the spec had it: every run checks the copies against that record (nobody edits a copy by
hand), and, where the spec folder sits beside the repository, the record against the spec
(a spec that moved on is copied again, and the record with it).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from scoring.engine.errors import RuleError
from scoring.engine.record import load, score_record

EXAMPLES = Path(__file__).parent / "examples"
DATA = Path(__file__).parent / "data"
SPEC = Path(__file__).resolve().parents[4] / "shared" / "spec"
RECORDED = json.loads((Path(__file__).parent / "spec_copies.json").read_text())
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


def digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.glob("*.json")}


@pytest.mark.parametrize(("copy", "original"), [(EXAMPLES, "examples"), (DATA, "data")])
def test_the_copies_are_the_spec_s_as_recorded(copy, original):
    assert digests(copy) == RECORDED[original]
    if SPEC.is_dir():  # the workspace's spec beside the clone: the record is still its own
        assert digests(SPEC / original) == RECORDED[original]
