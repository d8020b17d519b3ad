"""Render the site's Markdown documents (the rules) to HTML, once per file version."""

import functools
import html
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import markdown
from django.utils.safestring import SafeString, mark_safe
from markdown.extensions.toc import slugify_unicode


@dataclass(frozen=True, slots=True)
class RenderedDocument:
    title: str
    html: SafeString
    toc_html: SafeString
    heading_count: int


def render_markdown_file(path: Path) -> RenderedDocument:
    """Return ``path`` rendered to HTML, re-rendering only when the file changes."""
    stat = path.stat()
    # Size joins the mtime in the key because some filesystems keep coarse mtimes.
    return _render(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=8)
def _render(path: Path, mtime_ns: int, size: int) -> RenderedDocument:
    md = markdown.Markdown(
        extensions=["tables", "fenced_code", "toc"],
        # The rules are written in Russian: keep Cyrillic in heading anchors.
        extension_configs={"toc": {"slugify": slugify_unicode}},
    )
    body = md.convert(path.read_text(encoding="utf-8"))
    tokens: list[dict[str, Any]] = getattr(md, "toc_tokens", [])
    return RenderedDocument(
        title=html.unescape(tokens[0]["name"]) if tokens else path.stem,
        # The documents are the project's own files under version control, not user input.
        html=mark_safe(body),  # noqa: S308
        toc_html=mark_safe(getattr(md, "toc", "")),  # noqa: S308
        heading_count=_count_headings(tokens),
    )


def _count_headings(tokens: list[dict[str, Any]]) -> int:
    return sum(1 + _count_headings(token["children"]) for token in tokens)
