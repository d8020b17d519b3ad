"""``manage.py score``: the result document on stdout, or exit 2 with one message."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # manage.py score in a process of its own

ROOT = Path(__file__).resolve().parents[4]
EXAMPLES = ROOT / "tests" / "scoring" / "engine" / "examples"


def score(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", "score", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        # An unreachable database proves the command never touches one.
        env={"PATH": "", "DATABASE_URL": "postgres://nobody@127.0.0.1:1/none"},
    )


def test_scores_a_file():
    run = score(str(EXAMPLES / "sochi-short-pulka.json"))
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    want = json.loads((EXAMPLES / "sochi-short-pulka.expected.json").read_text())
    assert json.loads(run.stdout) == want


def test_reads_standard_input():
    record = (EXAMPLES / "rostov-passout.json").read_text()
    run = score("-", stdin=record)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["players"]["Anna"]["balance"] == "45.00"


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "a game record must be a JSON object"),
        ('{"format": "pulka/2"}', 'format: must be "pulka/1"'),
        ('{"format": "pulka/1", "game": "poker"}', "game: must be"),
        ((EXAMPLES / "invalid-tricks.json").read_text(), "deal 1, tricks: must add up to 10"),
        (
            '{"format": "pulka/1", "game": "preferans", "players": ["A", "B", "C"], '
            '"deals": [{"kind": "game", "declarer": "A", "contract": "11S"}]}',
            "deal 1, contract:",
        ),
        (
            '{"format": "pulka/1", "game": "preferans", "players": ["A", "B", "C"], '
            '"rules": {"preset": "sochi", "pool_weigth": 10}}',
            "rules.pool_weigth: unknown setting",
        ),
        (
            '{"format": "pulka/1", "game": "preferans", "players": ["A", "B", "C"], '
            '"whist_price": NaN}',
            "not valid JSON",
        ),
    ],
)
def test_bad_input_exits_2_with_one_message(stdin, message):
    run = score("-", stdin=stdin)
    assert run.returncode == 2
    assert run.stdout == ""
    assert message in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1


def test_missing_file_exits_2():
    run = score("/no/such/record.json")
    assert run.returncode == 2
    assert run.stdout == ""
    assert "cannot read /no/such/record.json" in run.stderr


def test_a_file_over_the_size_limit_exits_2_before_it_is_read(tmp_path):
    path = tmp_path / "huge.json"
    path.write_bytes(b"[" * 1_000_001)  # not even JSON: its size alone refuses it
    run = score(str(path))
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr == (
        "score: the record is larger than 1,000,000 bytes (1 MB), the limit for a game record\n"
    )


def test_standard_input_over_the_size_limit_exits_2():
    run = score("-", stdin=" " * 5_000_000)
    assert run.returncode == 2
    assert "larger than 1,000,000 bytes" in run.stderr


def test_a_record_of_too_many_deals_exits_2():
    record = {
        "format": "pulka/1",
        "game": "preferans",
        "players": ["A", "B", "C"],
        "deals": [{"kind": "passout", "tricks": {"A": 5, "B": 5, "C": 0}}] * 5_000,
    }
    run = score("-", stdin=json.dumps(record))
    assert run.returncode == 2
    assert run.stderr == "score: deals: a game record has at most 1,000 deals; this one has 5,000\n"


def test_scores_a_record_with_third_edition_settings():
    """preferans.md §14.3 (Rostov, split): Anna 2, Boris 2, Vera 6 → Vera's 6 × 5 = 30
    shared: Anna and Boris each write 15 on her. Balances: mountains and pools nil, so
    Anna +15, Boris +15, Vera −30."""
    record = {
        "format": "pulka/1",
        "game": "preferans",
        "rules": {"preset": "rostov", "passout_whists_tie": "split"},
        "players": ["Anna", "Boris", "Vera"],
        "deals": [{"kind": "passout", "tricks": {"Anna": 2, "Boris": 2, "Vera": 6}}],
    }
    run = score("-", stdin=json.dumps(record))
    assert run.returncode == 0, run.stderr
    players = json.loads(run.stdout)["players"]
    assert [players[name]["balance"] for name in ("Anna", "Boris", "Vera")] == [
        "15.00",
        "15.00",
        "-30.00",
    ]


def test_refuses_an_impossible_combination_by_its_name():
    record = {
        "format": "pulka/1",
        "game": "preferans",
        "rules": {"preset": "sochi", "concede_ends_passouts": "yes"},
        "players": ["Anna", "Boris", "Vera"],
        "deals": [],
    }
    run = score("-", stdin=json.dumps(record))
    assert run.returncode == 2
    assert "rules.concede_ends_passouts" in run.stderr
