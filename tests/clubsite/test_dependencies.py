"""The dependencies (issue 19, item 7): pyproject.toml declares them, uv.lock pins them
with hashes, and the venv the tests run in holds exactly what the lock pins."""

import re
import tomllib
from importlib import metadata
from pathlib import Path
from typing import Any

from packaging.markers import Marker
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
LOCK = tomllib.loads((ROOT / "uv.lock").read_text(encoding="utf-8"))
# What a venv may hold besides the lock: the installers a `python -m venv` seeds.
SEED = {"pip", "setuptools", "wheel"}


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def applies(marker: str | None) -> bool:
    return marker is None or Marker(marker).evaluate()


def lock_package(name: str) -> dict[str, Any]:
    """The lock's entry for a package on this interpreter (uv may fork by Python version)."""
    entries = [
        p
        for p in LOCK["package"]
        if p["name"] == name
        and (not p.get("resolution-markers") or any(map(applies, p["resolution-markers"])))
    ]
    assert len(entries) == 1, (name, entries)
    return entries[0]


def locked_here() -> dict[str, str]:
    """name → version of every package `uv sync` installs here: the project's dependencies
    and its dev group, followed through their dependencies and extras, markers evaluated."""
    root = lock_package(normalise(PYPROJECT["project"]["name"]))
    todo = [*root["dependencies"], *root["dev-dependencies"]["dev"]]
    found: dict[str, str] = {}
    seen: set[tuple[str, str | None]] = set()
    while todo:
        dep = todo.pop()
        if not applies(dep.get("marker")):
            continue
        package = lock_package(dep["name"])
        found[package["name"]] = package["version"]
        for extra in [None, *dep.get("extra", [])]:
            if (package["name"], extra) in seen:
                continue
            seen.add((package["name"], extra))
            if extra is None:
                todo.extend(package.get("dependencies", []))
            else:
                todo.extend(package["optional-dependencies"][extra])
    return found


def test_the_project_declares_its_runtime_dependencies_and_a_dev_group() -> None:
    runtime = {normalise(Requirement(r).name) for r in PYPROJECT["project"]["dependencies"]}
    dev = {normalise(Requirement(r).name) for r in PYPROJECT["dependency-groups"]["dev"]}
    assert {"django", "psycopg", "sentry-sdk", "python-json-logger"} <= runtime
    assert {"pytest", "pytest-django", "pytest-xdist", "ruff", "mypy", "import-linter"} <= dev
    assert not runtime & dev
    django = next(
        Requirement(r) for r in PYPROJECT["project"]["dependencies"] if r.startswith("Django")
    )
    # The series the site is written for, and not the next one by surprise.
    assert "6.1.3" in django.specifier and "6.2" not in django.specifier


def test_every_locked_file_has_a_hash() -> None:
    files = 0
    for package in LOCK["package"]:
        if "virtual" in package["source"]:
            continue
        assert package["source"] == {"registry": "https://pypi.org/simple"}, package["name"]
        for file in [package.get("sdist"), *package.get("wheels", [])]:
            if file is not None:
                files += 1
                assert re.fullmatch(r"sha256:[0-9a-f]{64}", file["hash"]), file
    assert files > 100


def test_the_venv_holds_exactly_what_the_lock_pins() -> None:
    """No drift: `make venv` (uv sync --locked) installed the lock, nothing else, and nobody
    pip-installed anything since."""
    installed = {
        normalise(d.metadata["Name"]): d.version
        for d in metadata.distributions()
        if normalise(d.metadata["Name"]) not in SEED
    }
    assert installed == locked_here()


def test_the_engine_is_forbidden_every_runtime_dependency() -> None:
    """A runtime package added to pyproject.toml also goes into the engine's forbidden list,
    under the names it is imported by."""
    contract = next(
        c
        for c in PYPROJECT["tool"]["importlinter"]["contracts"]
        if c.get("source_modules") == ["scoring.engine"]
    )
    imported_by: dict[str, set[str]] = {}
    for module, distributions in metadata.packages_distributions().items():
        if module.isidentifier() and not module.startswith("_"):
            for distribution in distributions:
                imported_by.setdefault(normalise(distribution), set()).add(module)
    for requirement in PYPROJECT["project"]["dependencies"]:
        name = normalise(Requirement(requirement).name)
        assert imported_by[name], name
        assert imported_by[name] <= set(contract["forbidden_modules"]), name
