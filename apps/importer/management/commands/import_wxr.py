"""``manage.py import_wxr FILE [--map post=posts …] [--media] [--resume JOB]``: the import from the command line.

The same services as the REST flow: analyse the file, prepare the collections, run the job in this process with a
progress bar (items per second and time left), then print the summary. ``--resume JOB`` continues a paused, failed
or interrupted job from its cursor.
"""

from __future__ import annotations

import sys
import time

from django.core.management.base import BaseCommand, CommandError

from apps.accounts.permissions import Actor
from apps.core.errors import CmsError
from apps.importer import jobs, selectors, services
from apps.importer.models import ImportJob, JobState


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
            help="Import a post type into a collection (repeatable); TYPE= with no collection skips the type.",
        )
        parser.add_argument(
            "--media", action="store_true", help="Download attachments and rewrite their URLs."
        )
        parser.add_argument("--no-menus", action="store_true", help="Do not import navigation menus.")
        parser.add_argument(
            "--no-taxonomies", action="store_true", help="Do not import categories, tags, terms."
        )
        parser.add_argument(
            "--author", action="append", default=[], metavar="LOGIN=USER", help="Map an author."
        )
        parser.add_argument("--resume", metavar="JOB", help="Resume this job instead of starting one.")
        parser.add_argument("--no-progress", action="store_true", help="No progress bar (logs, CI).")

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
            raise CommandError(f"{error.message} {self._details(error.details)}".strip()) from error
        except OSError as error:
            raise CommandError(f"Cannot read {options['file']}: {error.strerror}.") from error
        self.stdout.write(f"Import job {job.pk}: {job.total} items")
        job = self._run(job, progress=not options["no_progress"])
        self._report(job)
        if job.state != JobState.COMPLETED:
            raise CommandError(f"The import {job.state}: {job.error['message'] if job.error else ''}")

    def _start(self, actor: Actor, options) -> ImportJob:
        mappings = {}
        for item in options["map"]:
            name, sep, collection = item.partition("=")
            if not sep or not name:
                raise CommandError(f"--map takes TYPE=COLLECTION, not '{item}'.")
            mappings[name] = {"collection": collection, "enabled": True} if collection else {"enabled": False}
        authors = {}
        for item in options["author"]:
            login, sep, user = item.partition("=")
            if not sep:
                raise CommandError(f"--author takes LOGIN=USER (id or email), not '{item}'.")
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

    def _run(self, job: ImportJob, *, progress: bool) -> ImportJob:
        started = time.monotonic()
        total = (job.analysis.result.get("itemCount") if job.analysis else 0) or 1

        def bar(current: int, phase: str, final: bool = False) -> None:
            elapsed = max(time.monotonic() - started, 1e-6)
            rate = current / elapsed
            left = (total - current) / rate if rate else 0
            width = 30
            filled = int(width * min(current, total) / total)
            sys.stderr.write(
                f"\r[{'#' * filled}{'.' * (width - filled)}] {current}/{total} items  "
                f"{rate:.0f} items/s  ETA {max(left, 0):.0f}s  ({phase})" + ("\n" if final else "")
            )
            sys.stderr.flush()

        job = jobs.run_now(job, progress=bar if progress else None)
        if progress:
            bar(job.cursor, job.phase, final=True)
        return job

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
        media = summary.get("media") or {}
        if media:
            self.stdout.write(
                f"Media: {media.get('imported', 0)} imported, {len(media.get('failed', []))} failed"
            )
        if job.error:
            self.stdout.write(f"Error: {job.error['code']}: {job.error['message']}")

    @staticmethod
    def _details(details) -> str:
        if isinstance(details, dict):
            return "; ".join(f"{key}: {value}" for key, value in details.items())
        return ""
