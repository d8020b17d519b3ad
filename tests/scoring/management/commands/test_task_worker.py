"""``manage.py task_worker`` (scoring/management/commands/task_worker.py): a task left
RUNNING by a worker that died is run again once, and a database error does not end the
worker."""

from __future__ import annotations

import datetime

import pytest
from django.core.management import call_command
from django.db import OperationalError
from django.tasks.base import TaskResultStatus
from django.utils import timezone
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult

from scoring.management.commands import task_worker

pytestmark = pytest.mark.django_db


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
