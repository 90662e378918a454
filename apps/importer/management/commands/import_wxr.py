"""``manage.py import_wxr FILE [--map post=posts …] [--create] [--author LOGIN=USER …] [--media] [--resume JOB]``:
the import from the command line.

The same services as the REST flow: analyse the file, prepare the collections, run the job in this process, then
print the summary on stdout. Progress goes to stderr (``_progress.py``). ``--resume JOB`` continues a paused, failed
or interrupted job from its cursor.

Mistakes in the options are refused before the file is read where they can be: a ``--map`` to a collection that does
not exist (a typo, unless ``--create`` says to make it), a collection slug the schema would refuse, an ``--author``
naming no user.
"""

from __future__ import annotations

import difflib

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from apps.accounts.permissions import Actor
from apps.core.errors import CmsError, summarize
from apps.importer import jobs, selectors, services
from apps.importer.errors import FAILURE_REASONS
from apps.importer.management.commands._progress import Progress
from apps.importer.mappings import find_user, mapping_slug_problem
from apps.importer.models import ImportJob, JobState
from apps.schema import selectors as schema_selectors

EXAMPLES = 3  # failed media shown per reason; the job's status lists them all


class Command(BaseCommand):
    help = (
        "Import a WordPress export (WXR) file: posts, pages, terms, authors, menus, reusable blocks, media."
    )
    # Django's system checks import every URL, view and admin module to inspect them (1.7 s on a two-core
    # machine, the MCP SDK's models most of it) and find nothing an import depends on; `migrate` and the test
    # suite run them.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser):
        parser.add_argument("file", nargs="?", help="The WXR file (Tools → Export in WordPress).")
        parser.add_argument(
            "--map",
            action="append",
            default=[],
            metavar="TYPE=COLLECTION",
            help="Import a post type into a collection (repeatable); TYPE= with no collection skips the type. "
            "A collection that does not exist yet needs --create.",
        )
        parser.add_argument(
            "--create",
            action="store_true",
            help="Create the collections --map names that do not exist yet.",
        )
        parser.add_argument(
            "--media", action="store_true", help="Download attachments and rewrite their URLs."
        )
        parser.add_argument("--no-menus", action="store_true", help="Do not import navigation menus.")
        parser.add_argument(
            "--no-taxonomies", action="store_true", help="Do not import categories, tags, terms."
        )
        parser.add_argument(
            "--author",
            action="append",
            default=[],
            metavar="LOGIN=USER",
            help="Credit an export author's posts to a user, by id or email (repeatable).",
        )
        parser.add_argument("--resume", metavar="JOB", help="Resume this job instead of starting one.")
        parser.add_argument("--no-progress", action="store_true", help="Show no progress at all.")

    def handle(self, *args, **options):
        actor = Actor.system()
        try:
            if options["resume"]:
                job = services.job_resume(actor=actor, job=selectors.job_get(job_id=options["resume"]))
            else:
                if not options["file"]:
                    raise CommandError("Give the WXR file to import, or --resume JOB.")
                job = self._start(actor, options)
        except CmsError as error:
            raise CommandError(error_text(error)) from error
        except OSError as error:
            raise CommandError(f"Cannot read {options['file']}: {error.strerror}.") from error
        self.stdout.write(self._header(job))
        progress = None if options["no_progress"] else Progress(self.stderr, job)
        job = jobs.run_now(job, progress=progress)
        if progress is not None:
            progress.finish(job.cursor)
        self._report(job)
        if job.state != JobState.COMPLETED:
            error = job.error or {}
            reason = error_text(CmsError(error.get("message"), details=error.get("details")))
            raise CommandError(
                f"The import {job.state}: {error.get('code', '')}: {reason} Resume it with --resume {job.pk} "
                f"once that is dealt with."
            )

    # --- options ----------------------------------------------------------------------------------------------------

    def _start(self, actor: Actor, options) -> ImportJob:
        mappings = self._mappings(options["map"], create=options["create"])
        authors = {}
        for item in options["author"]:
            login, sep, user = item.partition("=")
            if not sep or not login or not user:
                raise CommandError(f"--author takes LOGIN=USER (id or email), not '{item}'.")
            if find_user(user) is None:
                raise CommandError(f"--author {item}: no user has the id or email '{user}'.")
            authors[login] = user
        analysis = services.analysis_from_path(actor=actor, path=options["file"])
        return services.job_create(
            actor=actor,
            analysis=analysis,
            options={
                "includeMedia": options["media"],
                "includeMenus": not options["no_menus"],
                "includeTaxonomies": not options["no_taxonomies"],
            },
            post_type_mappings=mappings,
            author_mappings=authors,
        )

    @staticmethod
    def _mappings(given: list[str], *, create: bool) -> dict[str, dict]:
        """``--map`` options checked before the file is read: a typo'd collection would otherwise be created empty
        beside the intended one."""
        existing = [collection.slug for collection in schema_selectors.collection_list(actor=Actor.system())]
        mappings = {}
        for item in given:
            name, sep, collection = item.partition("=")
            if not sep or not name:
                raise CommandError(f"--map takes TYPE=COLLECTION, not '{item}'.")
            if not collection:
                mappings[name] = {"enabled": False}
                continue
            if problem := mapping_slug_problem(name, collection):
                raise CommandError(f"--map {item}: {problem}")
            # The post type's own collection (post → posts) is made without --map too.
            if collection not in existing and collection != services.default_collection(name) and not create:
                close = difflib.get_close_matches(collection, existing, n=3)
                if close:
                    hint = f"did you mean {' or '.join(repr(slug) for slug in close)}?"
                else:
                    hint = (
                        f"the collections are: {', '.join(sorted(existing))}."
                        if existing
                        else "there are none."
                    )
                raise CommandError(
                    f"--map {item}: there is no collection '{collection}'; {hint} Add --create to create it."
                )
            mappings[name] = {"collection": collection, "enabled": True}
        return mappings

    # --- output -----------------------------------------------------------------------------------------------------

    @staticmethod
    def _header(job: ImportJob) -> str:
        """What the job will read, in the unit the progress counts (every item of the export), with how many of
        them become entries: the job's ``total`` counts only those."""
        result = job.analysis.result if job.analysis else {}
        items = result.get("itemCount")
        if not items:
            return f"Import job {job.pk}: {_count(job.total, 'entry', 'entries')}"
        post_types = result.get("postTypes", [])
        entries = sum(post_type["count"] for post_type in post_types)
        attachments = result.get("attachments", 0)
        sections = len(result.get("reusableBlocks", []))
        internal = sum(skipped["count"] for skipped in result.get("skipped", []))
        menu_items = items - entries - attachments - sections - internal
        by_type = ", ".join(f"{post_type['name']} {post_type['count']}" for post_type in post_types)
        parts = [_count(entries, "entry", "entries") + (f" ({by_type})" if by_type else "")]
        for count, singular, plural in (
            (attachments, "attachment", "attachments"),
            (menu_items, "menu item", "menu items"),
            (sections, "reusable block", "reusable blocks"),
            (internal, "WordPress-internal item (skipped)", "WordPress-internal items (skipped)"),
        ):
            if count > 0:
                parts.append(_count(count, singular, plural))
        header = f"Import job {job.pk}: {_count(items, 'item', 'items')} in the export: {', '.join(parts)}"
        if job.cursor:
            header += f"\nResuming after item {job.cursor}."
        return header

    def _report(self, job: ImportJob) -> None:
        summary = job.summary or {}
        self.stdout.write(f"State: {job.state}")
        for collection, counts in (summary.get("imported") or {}).items():
            parts = ", ".join(f"{name} {value}" for name, value in sorted(counts.items()))
            self.stdout.write(f"  {collection}: {parts}")
        kinds = summary.get("kinds") or {}
        if kinds:
            self.stdout.write("  " + ", ".join(f"{name} {value}" for name, value in sorted(kinds.items())))
        for skipped in summary.get("skipped") or []:
            self.stdout.write(f"  skipped {skipped['count']} {skipped['postType']}: {skipped['reason']}")
        if summary.get("warningCount"):
            self.stdout.write(f"Warnings: {summary['warningCount']}")
            for warning in summary.get("warnings", [])[:20]:
                self.stdout.write(f"  {warning['code']}: {warning['message']}")
        for failed in summary.get("failed") or []:
            self.stdout.write(f"Failed: {failed['postType']} {failed['sourceId']}: {failed['reason']}")
        if summary.get("media"):
            self._media_report(job, summary["media"])
        # A job's own error is the CommandError that follows: said once.

    def _media_report(self, job: ImportJob, media: dict) -> None:
        failures = selectors.media_failures(site=job.options.get("site", ""))
        self.stdout.write(f"Media: {media.get('imported', 0)} imported, {len(failures)} failed")
        if not failures:
            return
        groups: dict[str, list[dict]] = {}
        for failure in failures:
            groups.setdefault(failure["reason"], []).append(failure)
        for reason, group in sorted(groups.items(), key=lambda pair: (-len(pair[1]), pair[0])):
            self.stdout.write(f"  {FAILURE_REASONS.get(reason, reason)}: {len(group)}")
            for failure in group[:EXAMPLES]:
                self.stdout.write(f"    {failure['url']}: {failure['error']}")
            if len(group) > EXAMPLES:
                self.stdout.write(f"    and {len(group) - EXAMPLES} more")
        self.stdout.write(
            f"  The job lists them with their errors: {settings.CMS_BASE_URL}{settings.CMS_API_PREFIX}"
            f"/import/jobs/{job.pk}"
        )


def _count(number: int, singular: str, plural: str) -> str:
    return f"{number} {singular if number == 1 else plural}"


def _option(key: str) -> str:
    """A REST detail key as the option the user typed (``postTypeMappings.post.collection`` → ``--map post``)."""
    head, _, rest = key.partition(".")
    name = rest.split(".", 1)[0]
    return {"postTypeMappings": f"--map {name}", "authorMappings": f"--author {name}"}.get(head, key)


def error_text(error: CmsError) -> str:
    """An error said once: a message that only summarises its details gives way to the whole list of them, and
    details the message already states are not repeated after it."""
    details = error.details if isinstance(error.details, dict) else {}
    if details and error.message == summarize(details):
        return "\n".join(f"{_option(key)}: {value}" for key, value in details.items())
    extra = [f"{_option(key)}: {value}" for key, value in details.items() if str(value) not in error.message]
    return f"{error.message} ({'; '.join(extra)})" if extra else error.message
