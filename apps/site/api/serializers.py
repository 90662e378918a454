"""Widget, section and settings shapes on the wire (SPEC §2.7, §4.8), their presenters and OpenAPI documentation."""

from __future__ import annotations

from rest_framework import serializers

from apps.core.api.serializers import cursor_field, limit_field
from apps.core.timefmt import iso
from apps.media.api.serializers import ImageRefOut, present_image_ref
from apps.site.models import Section, SectionSource, SiteSettings, Widget, WidgetArea

PORTABLE_TEXT_HELP = "Portable Text: a list of blocks, each with _type (and _key, filled in when missing)."


def portable_text_field(**kwargs) -> serializers.ListField:
    return serializers.ListField(child=serializers.DictField(), help_text=PORTABLE_TEXT_HELP, **kwargs)


# --- input -----------------------------------------------------------------------------------------------------------


class WidgetAreaIn(serializers.Serializer):
    name = serializers.CharField(max_length=63, help_text="Identity, e.g. sidebar or footer-1.")
    label = serializers.CharField(max_length=200)
    description = serializers.CharField(required=False, allow_blank=True, max_length=2000)


class WidgetAreaUpdateIn(serializers.Serializer):
    label = serializers.CharField(required=False, max_length=200)
    description = serializers.CharField(required=False, allow_blank=True, max_length=2000)


class WidgetIn(serializers.Serializer):
    type = serializers.CharField(
        max_length=64, help_text="What the widget is, e.g. content, menu, recent-posts."
    )
    title = serializers.CharField(required=False, allow_blank=True, max_length=200)
    content = portable_text_field(required=False)


class WidgetUpdateIn(WidgetIn):
    """Only the keys sent change."""

    type = serializers.CharField(required=False, max_length=64)


class WidgetReorderIn(serializers.Serializer):
    widgetIds = serializers.ListField(
        child=serializers.CharField(max_length=26),
        help_text="These widgets first, in this order; the others keep their order after them.",
    )


class SectionListQuery(serializers.Serializer):
    cursor = cursor_field()
    limit = limit_field(default=50)
    source = serializers.ChoiceField(choices=SectionSource.values, required=False)
    search = serializers.CharField(
        required=False,
        max_length=200,
        help_text="Words to find in the title or the keywords (all must match).",
    )


class SectionIn(serializers.Serializer):
    title = serializers.CharField(max_length=200)
    slug = serializers.CharField(
        required=False, max_length=200, help_text="Made from the title when omitted."
    )
    keywords = serializers.ListField(child=serializers.CharField(max_length=100), required=False)
    content = portable_text_field(required=False)
    source = serializers.ChoiceField(choices=SectionSource.values, required=False, default=SectionSource.USER)


class SectionUpdateIn(SectionIn):
    """Only the keys sent change."""

    title = serializers.CharField(required=False, max_length=200)
    source = serializers.ChoiceField(choices=SectionSource.values, required=False)


class SettingsIn(serializers.Serializer):
    """Only the keys sent change; unknown keys are refused."""

    siteTitle = serializers.CharField(required=False, max_length=200)
    tagline = serializers.CharField(required=False, allow_blank=True, max_length=500)
    postsPerPage = serializers.IntegerField(required=False, min_value=1, max_value=100)
    url = serializers.CharField(
        required=False, allow_blank=True, max_length=500, help_text="The public site."
    )
    timezone = serializers.CharField(required=False, max_length=64, help_text="IANA name, e.g. Europe/Paris.")
    dateFormat = serializers.CharField(
        required=False,
        max_length=64,
        help_text="A Unicode (CLDR) date pattern for front ends, e.g. d MMMM y.",
    )
    logo = serializers.CharField(
        required=False, allow_null=True, max_length=26, help_text="An image media id."
    )
    favicon = serializers.CharField(
        required=False, allow_null=True, max_length=26, help_text="An image media id."
    )


# --- output ----------------------------------------------------------------------------------------------------------


class WidgetOut(serializers.Serializer):
    id = serializers.CharField()
    type = serializers.CharField()
    title = serializers.CharField(allow_blank=True)
    content = portable_text_field()
    sortOrder = serializers.IntegerField()
    createdAt = serializers.DateTimeField()
    updatedAt = serializers.DateTimeField()


class WidgetAreaOut(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    label = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    widgets = WidgetOut(many=True, help_text="In order.")
    createdAt = serializers.DateTimeField()
    updatedAt = serializers.DateTimeField()


class WidgetAreaListOut(serializers.Serializer):
    items = WidgetAreaOut(many=True)


class SectionOut(serializers.Serializer):
    id = serializers.CharField()
    slug = serializers.CharField()
    title = serializers.CharField()
    keywords = serializers.ListField(child=serializers.CharField())
    content = portable_text_field()
    source = serializers.ChoiceField(choices=SectionSource.values)
    createdAt = serializers.DateTimeField()
    updatedAt = serializers.DateTimeField()


class SettingsOut(serializers.Serializer):
    siteTitle = serializers.CharField()
    tagline = serializers.CharField(allow_blank=True)
    postsPerPage = serializers.IntegerField()
    url = serializers.CharField(allow_blank=True)
    timezone = serializers.CharField()
    dateFormat = serializers.CharField()
    logo = ImageRefOut(allow_null=True)
    favicon = ImageRefOut(allow_null=True)
    updatedAt = serializers.DateTimeField(
        allow_null=True, help_text="null until the settings are first changed."
    )


def present_widget(widget: Widget) -> dict:
    return {
        "id": widget.pk,
        "type": widget.type,
        "title": widget.title,
        "content": widget.content,
        "sortOrder": widget.sort_order,
        "createdAt": iso(widget.created_at),
        "updatedAt": iso(widget.updated_at),
    }


def present_widget_area(area: WidgetArea) -> dict:
    return {
        "id": area.pk,
        "name": area.name,
        "label": area.label,
        "description": area.description,
        "widgets": [present_widget(widget) for widget in area.widgets.all()],
        "createdAt": iso(area.created_at),
        "updatedAt": iso(area.updated_at),
    }


def present_section(section: Section) -> dict:
    return {
        "id": section.pk,
        "slug": section.slug,
        "title": section.title,
        "keywords": list(section.keywords),
        "content": section.content,
        "source": section.source,
        "createdAt": iso(section.created_at),
        "updatedAt": iso(section.updated_at),
    }


def present_settings(current: SiteSettings) -> dict:
    return {
        "siteTitle": current.site_title,
        "tagline": current.tagline,
        "postsPerPage": current.posts_per_page,
        "url": current.url,
        "timezone": current.timezone,
        "dateFormat": current.date_format,
        "logo": present_image_ref(current.logo) if current.logo else None,
        "favicon": present_image_ref(current.favicon) if current.favicon else None,
        "updatedAt": iso(current.updated_at),
    }


SETTING_NAMES = {
    "siteTitle": "site_title",
    "tagline": "tagline",
    "postsPerPage": "posts_per_page",
    "url": "url",
    "timezone": "timezone",
    "dateFormat": "date_format",
    "logo": "logo",
    "favicon": "favicon",
}
