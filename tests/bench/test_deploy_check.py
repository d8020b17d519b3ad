"""How the deploy check runs the image it built (bench/deploy_check.py)."""

from __future__ import annotations

import resource

from bench.deploy_check import IMAGE, podman_run


def test_the_image_runs_under_runc_on_the_hosts_network_with_the_hosts_file_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)

    argv = podman_run("check", {"BIND": "127.0.0.1:8765", "CLUB": "demo"}, "release")

    assert argv[:3] == ["podman", "--runtime=runc", "run"]
    assert {"--rm", "--name=check", "--network=host", f"--ulimit=nofile={soft}:{hard}"} <= set(argv)
    assert argv[-4:] == ["--env=BIND=127.0.0.1:8765", "--env=CLUB=demo", IMAGE, "release"]


def test_no_command_is_the_images_own() -> None:
    assert podman_run("check", {})[-1] == IMAGE
