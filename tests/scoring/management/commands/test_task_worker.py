"""``manage.py task_worker`` (scoring/management/commands/task_worker.py): a task left
RUNNING by a worker that died is run again once, and a database error does not end the
worker."""

from __future__ import annotations

import datetime
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import OperationalError, connection
from django.tasks.base import TaskResultStatus
from django.utils import timezone
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult

from scoring.management.commands import task_worker

ROOT = Path(__file__).resolve().parents[4]


def task_row(status: str, worker_ids: list[str]) -> DBTaskResult:
    return DBTaskResult.objects.create(
        status=status,
        worker_ids=worker_ids,
        args_kwargs={"args": [], "kwargs": {"table_id": 1, "revision": 3}},
        task_path="scoring.services.notifications.table_finished_task",
        backend_name="default",
        run_after=timezone.now() - datetime.timedelta(seconds=1),
        started_at=timezone.now() if status == TaskResultStatus.RUNNING else None,
    )


@pytest.mark.django_db
def test_a_task_left_running_under_the_workers_id_is_run_again_once():
    mine = task_row(TaskResultStatus.RUNNING, ["host-worker"])
    moved_on = task_row(TaskResultStatus.RUNNING, ["host-worker", "other-worker"])
    others = task_row(TaskResultStatus.RUNNING, ["other-worker"])
    done = task_row(TaskResultStatus.SUCCESSFUL, ["host-worker"])

    assert task_worker.requeue_orphans("host-worker") == [str(mine.pk)]
    assert task_worker.requeue_orphans("host-worker") == []  # never twice

    mine.refresh_from_db()
    assert (mine.status, mine.started_at) == (TaskResultStatus.READY, None)
    assert list(DBTaskResult.objects.ready()) == [mine]
    for row, status in ((moved_on, "RUNNING"), (others, "RUNNING"), (done, "SUCCESSFUL")):
        row.refresh_from_db()
        assert row.status == status


@pytest.mark.django_db
def test_a_database_error_pauses_the_worker_and_it_goes_on(monkeypatch, caplog):
    """The database gone while the worker looks for a task (here: its first look fails):
    it waits, runs again what it had left, and looks again under the same id."""
    runs: list[str] = []

    def run(worker: Worker) -> None:
        runs.append(worker.worker_id)
        if len(runs) == 1:
            task_row(TaskResultStatus.RUNNING, [worker.worker_id])  # died in a task
            raise OperationalError("the connection was closed")
        worker.running = False

    monkeypatch.setattr(Worker, "run", run)
    monkeypatch.setattr(Worker, "configure_signals", lambda worker: None)
    monkeypatch.setattr(task_worker, "PAUSE_SECONDS", 0.01)
    # Closing the connection would end the test's transaction (the fault run closes it).
    monkeypatch.setattr(task_worker, "let_go", lambda: None)

    call_command("task_worker", "--worker-id", "w1")

    assert runs == ["w1", "w1"]
    assert "The task worker lost the database" in caplog.text
    assert "was left running by a worker that died: run again" in caplog.text
    assert DBTaskResult.objects.get().status == TaskResultStatus.READY


@pytest.mark.slow  # the worker in a process of its own, killed and started again
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
@pytest.mark.skipif(
    "postgresql" not in settings.DATABASES["default"]["ENGINE"],
    reason="needs PostgreSQL (DATABASE_URL=postgres://…): the worker is another process",
)
def test_the_worker_process_runs_the_task_it_died_in_once_when_it_comes_back():
    """The worker killed while sending an e-mail: its row stays RUNNING under its id. The
    worker started again (here: once, ``--batch``) sends it; started again after that, it
    sends nothing more."""
    died_in = DBTaskResult.objects.create(
        status=TaskResultStatus.RUNNING,
        worker_ids=["host-worker"],
        args_kwargs={"args": [], "kwargs": {"subject": "Hi", "body": "-", "to": ["a@b.c"]}},
        task_path="members.tasks.send_email",
        backend_name="default",
        run_after=timezone.now(),
        started_at=timezone.now(),
    )
    database = connection.settings_dict
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")},
        "DATABASE_URL": (
            f"postgres://{database['USER']}:{database['PASSWORD'] or ''}@{database['HOST']}:"
            f"{database['PORT'] or 5432}/{database['NAME']}"
        ),
        "DJANGO_TASKS": "database",
    }
    command = [sys.executable, "manage.py", "task_worker", "--worker-id", "host-worker", "--batch"]
    runs = [
        subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
        )
        for _ in range(2)
    ]

    assert [run.returncode for run in runs] == [0, 0], runs[0].stderr
    first, second = (run.stdout + run.stderr for run in runs)
    assert f"Task {died_in.pk} was left running by a worker that died: run again" in first
    assert first.count("Subject: Hi") == 1  # the console mailer
    assert "Subject: Hi" not in second and "run again" not in second
    died_in.refresh_from_db()
    assert died_in.status == TaskResultStatus.SUCCESSFUL
    assert died_in.worker_ids == ["host-worker", "host-worker"]
