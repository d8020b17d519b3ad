"""``manage.py task_worker``: django-tasks-db's worker (``db_worker``) that outlives a
database outage and runs again the task its previous process died in.

``db_worker`` ends at the first database error it meets while looking for a task (a
PostgreSQL restart), and a task whose worker is killed while running it stays RUNNING
for good: nothing in django-tasks-db 0.13 runs it again, so a finished table's e-mails
and chat post were never sent (issue #35). This command:

- gives the worker a **stable id** (``--worker-id``, by default the host's name and
  ``worker``): what runs it (systemd, ``make serve-prod``, compose) runs one process per
  id at a time, so a task RUNNING under this id when the process starts was left by one
  that died. It is set back to READY, in one UPDATE that only a RUNNING row passes, and
  run again, once. Several workers need an id each (``clubsite-worker@1``, ``@2``…).
- on a database error waits a second and starts looking again, the same id kept (the
  task it was running, if the database took it away, is then its own orphan: run again
  once the database is back).

A task is run again only if its worker died before recording the outcome. The finished
table's and the evening's notices enqueue their messages in one transaction, so a rerun
after a death before it commits sends each message once; a death between that commit and
the worker's record of success (the task's return) would send them twice, and a send
task killed mid-conversation with the mail server or Telegram may have sent its message.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import DatabaseError, InterfaceError, connections, transaction
from django.tasks import DEFAULT_TASK_BACKEND_ALIAS, DEFAULT_TASK_QUEUE_NAME
from django.tasks.base import TaskResultStatus
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult

logger = logging.getLogger(__name__)

PAUSE_SECONDS = 1.0
"""How long the worker waits after a database error before it looks for tasks again."""


def requeue_orphans(worker_id: str) -> list[str]:
    """The ids of the tasks left RUNNING under ``worker_id``, set back to READY."""
    with transaction.atomic():
        running = DBTaskResult.objects.select_for_update().filter(status=TaskResultStatus.RUNNING)
        orphans = [
            task.pk for task in running if task.worker_ids and task.worker_ids[-1] == worker_id
        ]
        DBTaskResult.objects.filter(pk__in=orphans, status=TaskResultStatus.RUNNING).update(
            status=TaskResultStatus.READY, started_at=None
        )
    return [str(pk) for pk in orphans]


class Command(BaseCommand):
    help = "Run the database task worker: outlives a database outage, reruns its orphans."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--worker-id",
            default=f"{socket.gethostname()}-worker"[:64],
            help="Unique among the running workers, the same across restarts of one.",
        )
        parser.add_argument("--interval", type=float, default=1.0)
        parser.add_argument(
            "--batch", action="store_true", help="Run every task that is due, then end."
        )

    def handle(
        self, *args: Any, worker_id: str, interval: float, batch: bool, **options: Any
    ) -> None:
        worker = Worker(
            queue_names=[DEFAULT_TASK_QUEUE_NAME],
            interval=interval,
            batch=batch,
            backend_name=DEFAULT_TASK_BACKEND_ALIAS,
            startup_delay=False,
            max_tasks=None,
            worker_id=worker_id,
            excluded_queue_names=[],
        )
        worker.configure_signals()
        while worker.running:
            try:
                for task_id in requeue_orphans(worker_id):
                    logger.warning(
                        "Task %s was left running by a worker that died: run again", task_id
                    )
                worker.run()
                if batch:
                    return
            except (DatabaseError, InterfaceError) as error:
                logger.warning(
                    "The task worker lost the database, tries again in %.0f s: %s: %s",
                    PAUSE_SECONDS,
                    type(error).__name__,
                    str(error).strip().replace("\n", " "),
                )
                let_go()
                time.sleep(PAUSE_SECONDS)


def let_go() -> None:
    """The worker's connections closed after a database error: a broken one goes back to
    its pool, which drops it, and the next look for a task takes a new one."""
    with contextlib.suppress(DatabaseError, InterfaceError):
        connections.close_all()
