"""``/_cms/api/widget-areas…``, ``/_cms/api/sections…`` and ``/_cms/api/settings`` (SPEC §4.8)."""

from __future__ import annotations

from apps.accounts.permissions import actor_from_request
from apps.core.api.views import CmsAPIView, CmsViewSet, endpoint, ok
from apps.core.httpcache import NOT_MODIFIED, small_answer
from apps.core.presenters import SUCCESS, SuccessFlagOut
from apps.core.shapes import paged
from apps.site import selectors, services
from apps.site.inputs import (
    SETTING_NAMES,
    SectionIn,
    SectionListIn,
    SectionUpdateIn,
    SettingsIn,
    WidgetAreaIn,
    WidgetAreaUpdateIn,
    WidgetIn,
    WidgetReorderIn,
    WidgetsSetIn,
    WidgetUpdateIn,
)
from apps.site.presenters import (
    SectionOut,
    SettingsOut,
    WidgetAreaListOut,
    WidgetAreaOut,
    WidgetOut,
    present_section,
    present_settings,
    present_widget,
    present_widget_area,
    present_widget_areas,
)


class WidgetAreaViewSet(CmsViewSet):
    @endpoint(
        "widgets.read",
        bodiless=NOT_MODIFIED,
        response=WidgetAreaListOut,
        summary="List widget areas with their widgets",
    )
    def list(self, request):
        actor = actor_from_request(request)
        areas = present_widget_areas(selectors.widget_area_list(actor=actor))
        return small_answer(request, areas, public=actor.anonymous, keys=("widgets",))

    @endpoint(
        "widgets.write",
        body=WidgetAreaIn,
        response=WidgetAreaOut,
        status=201,
        errors=(409,),
        summary="Create a widget area",
    )
    def create(self, request):
        area = services.widget_area_create(actor=actor_from_request(request), **self.body)
        return ok(present_widget_area(selectors.widget_area_get(name=area.name)), status=201)

    @endpoint(
        "widgets.read",
        bodiless=NOT_MODIFIED,
        response=WidgetAreaOut,
        summary="Get a widget area with its widgets in order",
    )
    def retrieve(self, request, name: str):
        actor = actor_from_request(request)
        area = present_widget_area(selectors.widget_area_read(actor=actor, name=name))
        return small_answer(request, area, public=actor.anonymous, keys=("widgets", f"widget-area:{name}"))

    @endpoint(
        "widgets.write", body=WidgetAreaUpdateIn, response=WidgetAreaOut, summary="Update a widget area"
    )
    def update(self, request, name: str):
        services.widget_area_update(
            actor=actor_from_request(request),
            area=selectors.widget_area_get(name=name),
            changes=dict(self.body),
        )
        return ok(present_widget_area(selectors.widget_area_get(name=name)))

    @endpoint(
        "widgets.write",
        body=WidgetAreaUpdateIn,
        response=WidgetAreaOut,
        summary="Update a widget area (as PUT)",
    )
    def partial_update(self, request, name: str):
        return self.update(request, name)

    @endpoint("widgets.write", response=SuccessFlagOut, summary="Delete a widget area and its widgets")
    def destroy(self, request, name: str):
        services.widget_area_delete(
            actor=actor_from_request(request), area=selectors.widget_area_get(name=name)
        )
        return ok(SUCCESS)

    @endpoint(
        "widgets.write", body=WidgetReorderIn, response=WidgetAreaOut, summary="Reorder an area's widgets"
    )
    def reorder(self, request, name: str):
        """The named widgets first, in that order; widgets not named keep their order after them. Unknown or
        repeated ids are refused."""
        services.widgets_reorder(
            actor=actor_from_request(request),
            area=selectors.widget_area_get(name=name),
            widget_ids=self.body["widgetIds"],
        )
        return ok(present_widget_area(selectors.widget_area_get(name=name)))


class WidgetViewSet(CmsViewSet):
    @endpoint("widgets.write", body=WidgetIn, response=WidgetOut, status=201, summary="Add a widget")
    def create(self, request, name: str):
        """Added at the end of the area. ``content`` is Portable Text, validated."""
        widget = services.widget_create(
            actor=actor_from_request(request),
            area=selectors.widget_area_get(name=name),
            type=self.body["type"],
            title=self.body.get("title", ""),
            content=self.body.get("content"),
        )
        return ok(present_widget(widget), status=201)

    @endpoint("widgets.write", body=WidgetsSetIn, response=WidgetAreaOut, summary="Set an area's widgets")
    def replace(self, request, name: str):
        """The area then holds exactly these widgets, in order: an item with the id of one of its widgets replaces
        that widget in place, one without adds a widget, and widgets not listed are deleted. Nothing changes unless
        every item is valid."""
        services.widgets_replace(
            actor=actor_from_request(request),
            area=selectors.widget_area_get(name=name),
            widgets=self.body["widgets"],
        )
        return ok(present_widget_area(selectors.widget_area_get(name=name)))

    @endpoint("widgets.write", body=WidgetUpdateIn, response=WidgetOut, summary="Update a widget")
    def update(self, request, name: str, pk: str):
        area = selectors.widget_area_get(name=name)
        widget = services.widget_update(
            actor=actor_from_request(request),
            widget=selectors.widget_get(area=area, widget_id=pk),
            changes=dict(self.body),
        )
        return ok(present_widget(widget))

    @endpoint("widgets.write", body=WidgetUpdateIn, response=WidgetOut, summary="Update a widget (as PUT)")
    def partial_update(self, request, name: str, pk: str):
        return self.update(request, name, pk)

    @endpoint("widgets.write", response=SuccessFlagOut, summary="Delete a widget")
    def destroy(self, request, name: str, pk: str):
        area = selectors.widget_area_get(name=name)
        services.widget_delete(
            actor=actor_from_request(request), widget=selectors.widget_get(area=area, widget_id=pk)
        )
        return ok(SUCCESS)


class SectionViewSet(CmsViewSet):
    @endpoint(
        "sections.read",
        bodiless=NOT_MODIFIED,
        query=SectionListIn,
        response=paged(SectionOut),
        summary="List sections",
    )
    def list(self, request):
        """By slug; ``source`` (user or import) and ``search`` (words in the title or keywords) narrow the list."""
        actor = actor_from_request(request)
        page = selectors.section_list(
            actor=actor,
            source=self.query.get("source"),
            search=self.query.get("search"),
            cursor=self.query.get("cursor"),
            limit=self.query["limit"],
        )
        return small_answer(
            request, page.to_data(present_section), public=actor.anonymous, keys=("sections",)
        )

    @endpoint(
        "sections.write",
        body=SectionIn,
        response=SectionOut,
        status=201,
        errors=(409,),
        summary="Create a section",
    )
    def create(self, request):
        section = services.section_create(actor=actor_from_request(request), **self.body)
        return ok(present_section(section), status=201)

    @endpoint("sections.read", bodiless=NOT_MODIFIED, response=SectionOut, summary="Get a section")
    def retrieve(self, request, slug: str):
        actor = actor_from_request(request)
        section = present_section(selectors.section_read(actor=actor, slug=slug))
        return small_answer(request, section, public=actor.anonymous, keys=("sections", f"section:{slug}"))

    @endpoint(
        "sections.write", body=SectionUpdateIn, response=SectionOut, errors=(409,), summary="Update a section"
    )
    def update(self, request, slug: str):
        section = services.section_update(
            actor=actor_from_request(request),
            section=selectors.section_get(slug=slug),
            changes=dict(self.body),
        )
        return ok(present_section(section))

    @endpoint(
        "sections.write",
        body=SectionUpdateIn,
        response=SectionOut,
        errors=(409,),
        summary="Update a section (as PUT)",
    )
    def partial_update(self, request, slug: str):
        return self.update(request, slug)

    @endpoint("sections.write", response=SuccessFlagOut, summary="Delete a section")
    def destroy(self, request, slug: str):
        services.section_delete(actor=actor_from_request(request), section=selectors.section_get(slug=slug))
        return ok(SUCCESS)


class SettingsView(CmsAPIView):
    @endpoint("settings.read", bodiless=NOT_MODIFIED, response=SettingsOut, summary="Get the site settings")
    def get(self, request):
        """Logo and favicon are resolved to their images. Anonymous readers (while a collection is public) get the
        same answer: it holds what a page shows, no configuration."""
        actor = actor_from_request(request)
        current = present_settings(selectors.settings_read(actor=actor))
        return small_answer(request, current, public=actor.anonymous, keys=("settings",))

    @endpoint("settings.write", body=SettingsIn, response=SettingsOut, summary="Change site settings")
    def put(self, request):
        """A partial update: the keys sent change, the others keep their values. Unknown keys are refused."""
        changes = {SETTING_NAMES[key]: value for key, value in self.body.items()}
        services.settings_update(actor=actor_from_request(request), changes=changes)
        return ok(present_settings(selectors.site_settings()))

    @endpoint(
        "settings.write", body=SettingsIn, response=SettingsOut, summary="Change site settings (as PUT)"
    )
    def patch(self, request):
        return self.put(request)
