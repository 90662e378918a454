"""Sections, the reusable blocks (those made here and those an import made of WordPress ``wp_block`` posts): the list
with search on title and keywords and cursor pages, the form (title, slug, keywords, rich-text content) for creating
and editing, and the delete confirmation.

Reads go through apps.site.selectors (``section_list`` authorizes and pages), writes through apps.site.services; the
form is parsed with the REST inputs, so the page refuses what the API refuses, with the same messages."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect
from django.urls import reverse

from apps.accounts.permissions import authorize, can
from apps.core import portabletext, shapes
from apps.core.errors import CmsError
from apps.site import selectors, services
from apps.site.inputs import SectionIn, SectionListIn, SectionUpdateIn
from apps.studio.access import studio_page
from apps.studio.rendering import render_studio
from apps.studio.searched_pages import searched_page
from apps.studio.site_forms import form_errors, portable_text_from, portable_text_shown

SECTION = "sections"
FIELDS = ("title", "slug", "keywords", "content")
PAGE_SIZE = 25


@studio_page
def section_list_page(request):
    page = searched_page(
        request, query=SectionListIn, read=selectors.section_list, url_name="studio:sections", limit=PAGE_SIZE
    )
    return render_studio(
        request,
        "studio/sections/list.html",
        {
            "sections": page.items,
            "search": page.search,
            "may_write": can(request.actor, "sections.write"),
            "next_url": page.next_url,
            "first_url": page.first_url,
        },
        section=SECTION,
    )


def _form(request, *, section=None, values, errors=None, status: int = 200):
    return render_studio(
        request,
        "studio/sections/form.html",
        {"section": section, "values": values, "errors": errors or {}},
        section=SECTION,
        status=status,
    )


def _posted(post) -> dict:
    return {key: post.get(key, "") for key in FIELDS}


def _keywords(text: str) -> list[str]:
    return [word.strip() for word in text.split(",") if word.strip()]


def _body(values: dict, model, *, creating: bool) -> dict:
    body = {
        "title": values["title"],
        "keywords": _keywords(values["keywords"]),
        "content": portable_text_from(values["content"]),
    }
    slug = values["slug"].strip()
    # A new section without a slug gets one from its title (the service's rule); an edit keeps its slug unless given.
    if slug or not creating:
        body["slug"] = slug
    return shapes.validate(model, body).model_dump(exclude_unset=True)


@studio_page
def section_new(request):
    authorize(request.actor, "sections.write")
    if request.method != "POST":
        return _form(request, values={"title": "", "slug": "", "keywords": "", "content": "[]"})
    values = _posted(request.POST)
    try:
        body = _body(values, SectionIn, creating=True)
        section = services.section_create(actor=request.actor, **body)
    except CmsError as exc:
        return _form(request, values=values, errors=form_errors(exc, FIELDS), status=exc.status)
    messages.success(request, f"Created the section “{section.title}”.")
    return redirect("studio:section", section.slug)


@studio_page
def section_edit(request, slug: str):
    section = selectors.section_read(actor=request.actor, slug=slug)
    may_write = can(request.actor, "sections.write")
    if request.method != "POST":
        values = {
            "title": section.title,
            "slug": section.slug,
            "keywords": ", ".join(section.keywords),
            "content": portable_text_shown(section.content),
        }
        return _form(request, section=section, values=values) if may_write else _shown(request, section)
    authorize(request.actor, "sections.write")
    values = _posted(request.POST)
    try:
        changes = _body(values, SectionUpdateIn, creating=False)
        section = services.section_update(actor=request.actor, section=section, changes=changes)
    except CmsError as exc:
        return _form(
            request, section=section, values=values, errors=form_errors(exc, FIELDS), status=exc.status
        )
    messages.success(request, f"Saved the section “{section.title}”.")
    return redirect("studio:section", section.slug)


def _shown(request, section):
    """For those who may read sections but not change them."""
    context = {"section": section, "text": portabletext.plain_text(section.content)}
    return render_studio(request, "studio/sections/show.html", context, section=SECTION)


@studio_page
def section_delete(request, slug: str):
    section = selectors.section_read(actor=request.actor, slug=slug)
    authorize(request.actor, "sections.write")
    if request.method == "POST":
        services.section_delete(actor=request.actor, section=section)
        messages.success(request, f"Deleted the section “{section.title}”.")
        return redirect("studio:sections")
    return render_studio(
        request,
        "studio/widgets/confirm.html",
        {
            "title": f"Delete the section {section.title}?",
            "effect": (
                f"Front ends asking for “{section.slug}” find no section afterwards; "
                "content that refers to it keeps the reference."
            ),
            "button": f"Delete {section.title}",
            "back": reverse("studio:section", args=[section.slug]),
        },
        section=SECTION,
    )
