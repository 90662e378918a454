"""Items of a mapped post type become entries of its collection: new plain ones many at a time, the others (updates,
scheduled, trashed or translated items, failed conversions) one by one. An item that cannot be imported is kept as
a draft holding its original content in ``_importError`` (SPEC §7), and the import goes on."""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.conf import settings

from apps.accounts.models import User
from apps.content import services as content_services
from apps.content.models import Entry, Status
from apps.core.errors import CmsError
from apps.core.timefmt import now
from apps.importer.items import ImportItem
from apps.importer.models import ImportRecord
from apps.importer.pipeline.bylines import Bylines
from apps.importer.pipeline.sections import Sections
from apps.importer.pipeline.state import RunState, checksum, reason
from apps.importer.pipeline.terms import Terms
from apps.importer.slugs import base_slug
from apps.schema.models import Collection
from apps.taxonomy import services as taxonomy_services


class Entries:
    def __init__(self, state: RunState, terms: Terms, sections: Sections) -> None:
        self.state = state
        self.terms = terms
        self.sections = sections
        self.bylines = Bylines(state)

    # --- one by one -------------------------------------------------------------------------------------------------

    def write(self, item: ImportItem, record: ImportRecord | None) -> None:
        state = self.state
        post_type = item.post_type
        collection = state.collections[post_type]
        fingerprint = checksum(item)
        entry = Entry.objects.filter(pk=record.target_id).first() if record else None
        # An entry imported before stays in its collection, whatever the post type is mapped to now: counted there.
        where = record.target_type if entry is not None and record.target_type else collection.slug
        stats = state.per_collection.setdefault(where, Counter())
        if entry is not None and record.checksum == fingerprint:
            stats["unchanged"] += 1
            return
        if item.content is None:
            entry_id = self.fail(
                item, item.conversion_error or "The content could not be converted.", collection
            )
            self._record(item, entry_id, collection, fingerprint, {})
            return
        data, pending = self._data(item, post_type)
        credits, author = self._credits(item)
        payload = self._payload(item, data, pending)
        outcome = state.row(lambda: self._save(item, entry, collection, data, credits, author, stats))
        if isinstance(outcome, CmsError):
            entry_id = self.fail(item, reason(outcome), collection)
            self._record(item, entry_id, collection, fingerprint, {})
            return
        if outcome is None:  # trashed by an editor since the last import
            return
        state.counters["entries"] += 1
        self._record(item, outcome.pk, collection, fingerprint, payload)

    def _save(
        self,
        item: ImportItem,
        entry: Entry | None,
        collection: Collection,
        data: dict[str, Any],
        credits: list[dict[str, str]] | None,
        author: User | None,
        stats: Counter,
    ) -> Entry | None:
        """The entry created or updated with its terms; None for one an editor has trashed since, left there."""
        state = self.state
        fresh = entry is None
        if fresh:
            entry = self._create(item, collection, data, credits, author)
            stats["created"] += 1
        elif entry.deleted_at is not None:
            stats["unchanged"] += 1
            return None
        else:
            withheld = self._draft_only(item)
            republish = item.status == "publish" and entry.status != Status.SCHEDULED and not withheld
            content_services.entry_update(
                actor=state.system,
                entry=entry,
                data=data,
                bylines=credits,
                status=Status.PUBLISHED if republish else None,
            )
            stats["updated"] += 1
        taxonomy_services.entry_terms_set_many(
            actor=state.system, entry=entry, terms=self.terms.of_item(item, collection), fresh=fresh
        )
        return entry

    def _create(
        self,
        item: ImportItem,
        collection: Collection,
        data: dict[str, Any],
        credits: list[dict[str, str]] | None,
        author: User | None,
    ) -> Entry:
        state = self.state
        locale = self._locale(item)
        slug = self._slug(item, collection, locale)
        translation_of = None
        if item.language and item.language.translation_group:
            group = state.get(
                "translation_group", f"{item.language.source}:{item.language.translation_group}"
            )
            if group is not None:
                head = Entry.objects.filter(
                    pk=group.target_id, collection=collection, deleted_at__isnull=True
                )
                holder = head.values_list("translation_group", flat=True).first()
                taken = (
                    holder
                    and Entry.objects.filter(
                        translation_group=holder,
                        locale=locale or settings.CMS_DEFAULT_LOCALE,
                        deleted_at__isnull=True,
                    ).exists()
                )
                if holder and not taken:
                    translation_of = group.target_id
        moment = now()
        date = item.date
        status = item.status
        withheld = self._draft_only(item)
        create_status = Status.DRAFT
        published_at = None
        if withheld:
            pass
        elif status == "publish" or (status == "future" and date is not None and date <= moment):
            create_status = Status.PUBLISHED
            published_at = min(date, moment) if date else None
        entry = content_services.entry_create(
            actor=state.system,
            collection=collection,
            data=data,
            slug=slug,
            status=create_status,
            locale=locale,
            translation_of=translation_of,
            bylines=credits,
            author=author or state.owner,
            published_at=published_at,
            meta=self._meta(item),
            # The post's own date, also for a scheduled post (WordPress's date of it is when it goes out).
            created_at=date,
        )
        if status == "future" and create_status == Status.DRAFT and not withheld:
            if date is not None and collection.supports_feature("scheduling"):
                entry = content_services.entry_schedule(actor=state.system, entry=entry, scheduled_at=date)
            else:
                state.warn(
                    "NOT_SCHEDULED",
                    f"Item {item.source_id} was scheduled, but '{collection.slug}' does not support scheduling; "
                    "imported as a draft.",
                    sourceId=item.source_id,
                )
        elif status == "trash":
            entry = content_services.entry_trash(actor=state.system, entry=entry)
        return entry

    # --- many new entries at once -----------------------------------------------------------------------------------

    def simple(self, item: ImportItem, records: dict) -> bool:
        """A new entry with nothing that needs its own steps (scheduling, trash, translations, a failed conversion)."""
        if item.post_type not in self.state.collections or ("entry", str(item.source_id)) in records:
            return False
        if item.content is None or item.language is not None:
            return False
        if item.status == "future":
            return item.date is not None and item.date <= now()
        return item.status in ("publish", "draft", "pending", "private") and bool(base_slug(item))

    def write_many(self, items: list[ImportItem]) -> None:
        """New plain entries (``simple``), created together per collection; all or nothing."""
        state = self.state
        groups: dict[str, list[tuple[ImportItem, dict[str, Any], dict[str, Any], str]]] = {}
        moment = now()
        for item in items:
            collection = state.collections[item.post_type]
            data, pending = self._data(item, item.post_type)
            credits, author = self._credits(item)
            withheld = self._draft_only(item)
            published = item.status in ("publish", "future") and not withheld
            date = min(item.date, moment) if item.date else None
            row = {
                "data": data,
                "slug": self._slug(item, collection, None),
                "status": Status.PUBLISHED if published else Status.DRAFT,
                "bylines": credits,
                "author": author or state.owner,
                "published_at": date if published else None,
                # The post's own date, as WordPress shows it (a publication is never later than now).
                "created_at": item.date,
                "meta": self._meta(item),
            }
            payload = self._payload(item, data, pending)
            groups.setdefault(item.post_type, []).append((item, row, payload, checksum(item)))
        # A refusal fails the whole batch, which is then redone one by one, so that the refused item alone fails.
        for post_type, group in groups.items():
            self._write_group(state.collections[post_type], group)

    def _write_group(self, collection: Collection, group: list) -> None:
        state = self.state
        entries = content_services.entry_create_many(
            actor=state.system, collection=collection, rows=[row for _, row, _, _ in group]
        )
        taxonomy_services.entry_terms_add_many(
            actor=state.system,
            assignments=[
                (entry, self.terms.of_item(item, collection))
                for (item, _, _, _), entry in zip(group, entries, strict=True)
            ],
        )
        stats = state.per_collection.setdefault(collection.slug, Counter())
        for (item, _, payload, fingerprint), entry in zip(group, entries, strict=True):
            stats["created"] += 1
            state.counters["entries"] += 1
            self._record(item, entry.pk, collection, fingerprint, payload)

    # --- what could not be imported ---------------------------------------------------------------------------------

    def fail(self, item: ImportItem, why: str, collection: Collection | None) -> str | None:
        """SPEC §7: the item is kept as a draft holding its original content in ``_importError``; the import goes on."""
        state = self.state
        entry_id = None
        if collection is not None:
            fields = state.fields.get(item.post_type, set())
            data = {}
            if "title" in fields:
                data["title"] = item.title or f"Untitled {item.post_type} {item.source_id}"
            meta = self._meta(item)
            meta["_importError"] = {"message": why, "content": item.raw_content, "excerpt": item.excerpt}
            outcome = state.row(
                lambda: content_services.entry_create(
                    actor=state.system,
                    collection=collection,
                    data=data,
                    slug=self._slug(item, collection, None),
                    status=Status.DRAFT,
                    author=state.owner,
                    meta=meta,
                )
            )
            if isinstance(outcome, CmsError):
                why = f"{why}; saving it as a draft failed too: {reason(outcome)}"
            else:
                entry_id = outcome.pk
        state.failure(item, why, entry_id)
        return entry_id

    # --- the parts of an entry --------------------------------------------------------------------------------------

    def _record(
        self, item: ImportItem, entry_id: str | None, collection: Collection, fingerprint: str, payload: dict
    ) -> None:
        state = self.state
        state.put(
            "entry",
            item.source_id,
            target_id=entry_id or "",
            target_type=collection.slug,
            checksum=fingerprint if entry_id else "",
            payload=payload,
        )
        if item.language and item.language.translation_group and entry_id:
            group = f"{item.language.source}:{item.language.translation_group}"
            if state.get("translation_group", group) is None:
                state.put("translation_group", group, target_id=entry_id)

    def _payload(self, item: ImportItem, data: dict[str, Any], pending: bool) -> dict[str, Any]:
        """What the links phase still has to do for the entry, kept on its record."""
        payload: dict[str, Any] = {}
        if item.featured_image is not None and "featured_image" in self.state.fields[item.post_type]:
            payload["featuredImage"] = item.featured_image
            if "featured_image" not in data:
                # Its attachment comes later in the file: linked once every item is in.
                payload["featuredPending"] = True
        if pending:
            payload["sectionRefs"] = True
        return payload

    def _data(self, item: ImportItem, post_type: str) -> tuple[dict[str, Any], bool]:
        fields = self.state.fields[post_type]
        content, pending = self.sections.resolve(item.content or [])
        data: dict[str, Any] = {}
        if "title" in fields:
            data["title"] = item.title
        if "content" in fields:
            data["content"] = content
        if "excerpt" in fields and item.excerpt:
            data["excerpt"] = item.excerpt
        if "featured_image" in fields and item.featured_image is not None:
            image = self.state.featured_image(item.featured_image)
            if image:
                data["featured_image"] = image
        return data, pending

    def _credits(self, item: ImportItem) -> tuple[list[dict[str, str]] | None, User | None]:
        logins = list(dict.fromkeys(login for login in [item.author, *item.authors] if login))
        credits, owner = [], None
        for login in logins:
            byline_id, user = self.bylines.of(login)
            credits.append({"bylineId": byline_id})
            if owner is None and user is not None:
                owner = user
        return (credits or None), owner

    def _meta(self, item: ImportItem) -> dict[str, Any]:
        state = self.state
        custom = {key: value for key, value in item.meta.items() if not key.startswith("_")}
        source = {
            "source": state.job.source,
            "site": state.site,
            "sourceId": item.source_id,
            "postType": item.post_type,
            "originalStatus": item.status,
            "link": item.link,
            "guid": item.guid,
            "parentId": item.parent_id,
            "menuOrder": item.menu_order,
            "sticky": item.sticky,
            "commentStatus": item.comment_status,
        }
        if item.password:
            source["passwordProtected"] = True
        if custom:
            source["customFields"] = custom
        if item.comments:
            source["comments"] = [comment.to_dict() for comment in item.comments]
        if item.content_problem:
            # SPEC §7: the original is kept beside the text that could be saved.
            return {
                "import": source,
                "_importError": {
                    "message": item.content_problem["message"],
                    "content": item.raw_content,
                    "excerpt": item.excerpt,
                },
            }
        return {"import": source}

    def _locale(self, item: ImportItem) -> str | None:
        if item.language is None:
            return None
        code = item.language.code
        locales = settings.CMS_LOCALES
        for candidate in (code, code.replace("_", "-"), code.split("_")[0].split("-")[0]):
            if candidate in locales:
                return candidate
        self.state.warn(
            "UNKNOWN_LOCALE",
            f"Item {item.source_id} is in '{code}', which is not a configured locale; imported in "
            f"'{settings.CMS_DEFAULT_LOCALE}'.",
            sourceId=item.source_id,
        )
        return None

    def _slug(self, item: ImportItem, collection: Collection, locale: str | None) -> str | None:
        free, base = self.state.slugs.assign(item, collection.pk, locale)
        if base is not None:
            self.state.warn(
                "SLUG_RENAMED",
                f"The slug '{base}' of item {item.source_id} was taken in '{collection.slug}'; renamed to '{free}'.",
                sourceId=item.source_id,
                slug=free,
            )
        return free

    def _draft_only(self, item: ImportItem) -> bool:
        """Whether the item is imported as a draft whatever its WordPress status, with a warning naming it
        (docs/decisions.md, "Import pipeline"): its content could not be converted faithfully (SPEC §7: a draft with
        the original in ``_importError``), or WordPress shows it only to some, which the CMS has no status for: a
        private post (editors and its author) or a password-protected one (behind its password)."""
        state = self.state
        problem = item.content_problem
        if problem:
            state.warn(
                problem["code"],
                f"Item {item.source_id} '{item.title}': {problem['message']} Imported as a draft with the original "
                "in its meta._importError.",
                sourceId=item.source_id,
            )
        if item.status == "private":
            state.warn(
                "PRIVATE",
                f"Item {item.source_id} '{item.title}' is private in WordPress; imported as a draft so that it does "
                "not become public.",
                sourceId=item.source_id,
            )
            return True
        if item.password and item.status in ("publish", "future"):
            state.warn(
                "PASSWORD_PROTECTED",
                f"Item {item.source_id} '{item.title}' is password-protected in WordPress; imported as a draft so "
                "that it does not become public.",
                sourceId=item.source_id,
            )
            return True
        return bool(problem)
