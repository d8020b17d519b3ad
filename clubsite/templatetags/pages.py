"""``{% own %}``: the part of a page that belongs to whoever asks (his name, his buttons, his
messages), filled in for each request into a page kept for everyone (``clubsite.pages``)."""

from __future__ import annotations

from typing import Any

from django import template
from django.template.base import Node, NodeList, Parser, PartialTemplate, Token
from django.utils.safestring import SafeString, mark_safe

from clubsite.pages import is_shared, own_mark

register = template.Library()


class OwnNode(Node):
    def __init__(self, name: str, nodelist: NodeList) -> None:
        self.name = name
        self.nodelist = nodelist

    def render(self, context: Any) -> SafeString:
        if is_shared(getattr(context, "request", None)):
            return mark_safe(own_mark(self.name))  # noqa: S308 - a constant comment, no input
        return SafeString(self.nodelist.render(context))


@register.tag
def own(parser: Parser, token: Token) -> OwnNode:
    """``{% own name %}…{% endown %}``: rendered in place on a page made for one request; on
    a page kept for everyone (``clubsite.pages.kept_page``) a mark, which each request
    replaces with this part rendered for it. The part is also the template's partial
    ``name`` (``"base.html#account"``), which is how the filling finds it."""
    bits = token.split_contents()
    if len(bits) != 2:
        raise template.TemplateSyntaxError("'own' takes one name")
    name = bits[1]
    origin = parser.origin
    if origin is None or not isinstance(origin.template_name, str):
        raise template.TemplateSyntaxError("'own' is for templates loaded by name")
    nodelist = parser.parse(("endown",))
    parser.delete_first_token()
    partials = parser.extra_data.setdefault("partials", {})
    if name in partials:
        raise template.TemplateSyntaxError(f"Partial '{name}' is already defined")
    partials[name] = PartialTemplate(nodelist, origin, name)
    return OwnNode(f"{origin.template_name}#{name}", nodelist)
