"""Which crawled pages axe checks (tests/browser/test_screens.py): one of each kind, a kind
being a URL pattern and the set of templates its page is drawn from. No browser here."""

from __future__ import annotations

from tests.browser.test_screens import CrawledPage, one_of_each_kind


def test_one_of_each_kind_keeps_each_pattern_and_each_set_of_templates() -> None:
    a, b, c = frozenset({"a.html"}), frozenset({"a.html", "b.html"}), frozenset({"c.html"})
    pages = [
        CrawledPage("/tables/1/", ("table", a)),
        CrawledPage("/tables/2/", ("table", a)),
        CrawledPage("/tables/3/", ("table", b)),
        CrawledPage("/evenings/1/", ("evening", a)),
        CrawledPage("/rules/", ("rules", c)),
        CrawledPage("/tables/4/", ("table", b)),
    ]

    assert [page.url for page in one_of_each_kind(pages)] == [
        "/tables/1/",
        "/tables/3/",
        "/evenings/1/",
        "/rules/",
    ]
